#!/usr/bin/env node
// npm's `prepare` script: builds dist/ (gitignored) wherever npm builds this package from source:
// `npm ci` / `npm install` in a clone, `npm pack`, and `npm install <git url>` (npm clones the
// repository, installs its dependencies and devDependencies, runs `prepare`, then packs it).
//
// Two cases need help, both where npm runs `prepare` without having installed the
// devDependencies: `npm install -g <git url>` passes its global flag on to the install it runs
// inside its clone (npm_config_global=true in the environment; npm/cli#8440), and `npm pack` in a
// fresh clone installs nothing first. Then, and only then, the locked dependencies are installed
// into the package folder first, with `npm ci --ignore-scripts` (esbuild needs no install script:
// its binary comes from the locked optional platform package). Anywhere else a missing esbuild is
// an error that says what to run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

function hasEsbuild() {
  try {
    createRequire(join(root, 'package.json')).resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

if (!hasEsbuild()) {
  const npmCli = process.env.npm_execpath;
  const selfInstall = process.env.npm_config_global === 'true' || process.env.npm_command === 'pack';
  if (!selfInstall || !npmCli || !existsSync(join(root, 'package-lock.json'))) {
    console.error('prepare: esbuild (a devDependency) is not installed, so dist/ cannot be built. Run `npm ci` (without --omit=dev) first.');
    process.exit(1);
  }
  console.error('prepare: installing the locked devDependencies to build dist/ (npm did not install them before prepare)');
  const env = { ...process.env, npm_config_global: 'false' };
  // the clone's own install, never the global prefix's; and no nested `prepare` (--ignore-scripts)
  for (const k of ['npm_config_prefix', 'npm_config_install_links', 'npm_config_omit', 'npm_config_include']) delete env[k];
  const args = [npmCli, 'ci', '--include=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];
  const r = spawnSync(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0 || !hasEsbuild()) {
    console.error(`prepare: npm ci failed (exit ${r.status ?? r.signal ?? r.error?.message}); dist/ was not built`);
    process.exit(1);
  }
}

await import(pathToFileURL(join(root, 'scripts', 'build.mjs')).href);
