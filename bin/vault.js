#!/usr/bin/env node
'use strict';
// Thin shim: process → main(argv, io) → process.exitCode. CommonJS (bin/package.json), so a
// hook never starts Node.js's ES module loader (~12 ms measured on the 2-core machine).
// `vault hook ...` skips yargs and loads only the hook runner, one CommonJS bundle, so
// lifecycle hooks start fast.
// `vault watch --detach|--status|--stop` goes to the index server's own entry without yargs.
// `vault search ...` and `vault read ...` start from a lean entry without yargs; it answers
// undefined (having printed nothing) for any argument form it does not handle exactly like
// yargs, and the full CLI runs instead. ECC_VAULT_CLI=full always runs the full CLI (tests
// compare both paths with it).
const argv = process.argv.slice(2);

async function main() {
  // `vault --version` alone (scripts and install checks call it): the package's version without
  // loading yargs, printed as yargs prints it (ECC_VAULT_CLI=full keeps the yargs path for tests)
  if (argv.length === 1 && ['--version', '-v', '-V'].includes(argv[0]) && process.env.ECC_VAULT_CLI !== 'full') {
    try {
      const { version } = JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8'));
      if (typeof version === 'string') {
        process.stdout.write(`${version}\n`);
        return 0;
      }
    } catch {
      /* the full CLI says what it can */
    }
  }
  if (argv[0] === 'hook' && !argv.includes('--help') && !argv.includes('-h')) {
    try {
      // with the lean CLI's V8 code cache (one file for hooks): compiling the ~450 KB bundle
      // cost a hook ~18 ms; any trouble with the cache falls back to a plain require
      const file = require('node:path').join(__dirname, '..', 'dist', 'hooks', 'hook-bundle.cjs');
      let bundle;
      try {
        bundle = require('../dist/cli/lean-loader.cjs').loadBundle(file, 'hook', process.env);
      } catch {
        bundle = { exports: require(file), persist: () => false };
      }
      const code = await bundle.exports.runHookProcess(argv);
      bundle.persist();
      return code;
    } catch {
      return 0; // even a broken installation must never fail the agent
    }
  }
  let code;
  // `vault search` and `vault read` answered by the running index server: its rendered output,
  // written without loading the lean bundle (dist/cli/served-bundle.cjs); undefined, with nothing
  // printed, when no server answers, and the lean path runs
  if ((argv[0] === 'search' || argv[0] === 'read') && process.env.ECC_VAULT_CLI !== 'full' && process.env.ECC_VAULT_SERVER !== 'off') {
    try {
      code = await require('../dist/cli/served-bundle.cjs').runServed(argv);
    } catch {
      code = undefined;
    }
  }
  if (code === undefined && (argv[0] === 'search' || argv[0] === 'read' || argv[0] === 'save') && process.env.ECC_VAULT_CLI !== 'full') {
    // a missing or unloadable bundle (a partial build) costs speed, never the command
    let loader;
    try {
      loader = require('../dist/cli/lean-loader.cjs');
    } catch {
      loader = undefined;
    }
    code = await loader?.runLean(argv, require('node:path').join(__dirname, '..', 'dist', 'cli', 'lean-bundle.cjs'));
  }
  // `vault watch --detach | --status | --stop` without yargs (~250 ms of its load); any other form of
  // `vault watch` answers undefined, with nothing printed, and the full CLI runs
  if (code === undefined && argv[0] === 'watch' && process.env.ECC_VAULT_CLI !== 'full') {
    let control;
    try {
      ({ runWatchControl: control } = require('../dist/cli/watch-bundle.cjs'));
    } catch {
      try {
        ({ runWatchControl: control } = await import('../dist/cli/watch-server.js'));
      } catch {
        control = undefined;
      }
    }
    code = await control?.(argv);
  }
  if (code === undefined) {
    const { runCli } = await import('../dist/cli/run-cli.js');
    code = await runCli(argv);
  }
  return code;
}

main().then((code) => {
  process.exitCode = code;
});
