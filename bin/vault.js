#!/usr/bin/env node
// Thin shim: process → main(argv, io) → process.exitCode.
// `vault hook ...` skips yargs and loads only the hook runner, so lifecycle hooks start fast.
// `vault search ...` and `vault read ...` start from a lean entry without yargs; it answers
// undefined (having printed nothing) for any argument form it does not handle exactly like
// yargs, and the full CLI runs instead. ECC_VAULT_CLI=full always runs the full CLI (tests
// compare both paths with it).
const argv = process.argv.slice(2);
if (argv[0] === 'hook' && !argv.includes('--help') && !argv.includes('-h')) {
  try {
    const { runHookProcess } = await import('../dist/hooks/hook-bundle.js');
    process.exitCode = await runHookProcess(argv);
  } catch {
    process.exitCode = 0; // even a broken installation must never fail the agent
  }
} else {
  let code;
  if ((argv[0] === 'search' || argv[0] === 'read') && process.env.ECC_VAULT_CLI !== 'full') {
    // a missing or unloadable bundle (a partial build) costs speed, never the command
    const lean = await import('../dist/cli/lean-bundle.js').catch(() => undefined);
    code = await lean?.runLeanCli(argv);
  }
  if (code === undefined) {
    const { runCli } = await import('../dist/cli/node-io.js');
    code = await runCli(argv);
  }
  process.exitCode = code;
}
