#!/usr/bin/env node
// Thin shim: process → main(argv, io) → process.exitCode.
// `vault hook ...` skips yargs and loads only the hook runner, so lifecycle hooks start fast.
const argv = process.argv.slice(2);
if (argv[0] === 'hook' && !argv.includes('--help') && !argv.includes('-h')) {
  try {
    const { runHookProcess } = await import('../dist/hooks/hook-bundle.js');
    process.exitCode = await runHookProcess(argv);
  } catch {
    process.exitCode = 0; // even a broken installation must never fail the agent
  }
} else {
  const { runCli } = await import('../dist/cli/node-io.js');
  process.exitCode = await runCli(argv);
}
