#!/usr/bin/env node
// npm's `prepare` script: builds dist/ (gitignored) wherever npm builds this package from source:
// `npm ci` / `npm install` in a clone, `npm pack`, and `npm install <git url>` (npm clones the
// repository, installs its dependencies and devDependencies, runs `prepare`, then packs it).
//
// Two cases need help, both where npm runs `prepare` without having installed the
// devDependencies: `npm install -g <git url>` passes its global flag on to the install it runs
// inside its clone (npm_config_global=true in the environment; npm/cli#8440), and `npm pack` in a
// fresh clone installs nothing first. Then, and only then, the build's one tool, esbuild, at the
// version package-lock.json locks, is installed into a temporary folder outside the package
// (`--ignore-scripts`: esbuild's binary comes from its optional platform package, no install
// script needed), linked as node_modules/esbuild for the build, and removed after it. Anywhere
// else a missing esbuild is an error that says what to run.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const build = pathToFileURL(join(root, 'scripts', 'build.mjs')).href;

function hasEsbuild() {
  try {
    createRequire(join(root, 'package.json')).resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

function fail(message) {
  console.error(`prepare: ${message}`);
  process.exit(1);
}

if (hasEsbuild()) {
  await import(build);
} else {
  const npmCli = process.env.npm_execpath;
  const selfInstall = process.env.npm_config_global === 'true' || process.env.npm_command === 'pack';
  if (!selfInstall || !npmCli) fail('esbuild (a devDependency) is not installed, so dist/ cannot be built. Run `npm ci` (without --omit=dev) first.');
  let version;
  try {
    version = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages['node_modules/esbuild'].version;
  } catch {
    fail('package-lock.json does not lock esbuild, so dist/ cannot be built. Run `npm ci` first.');
  }
  console.error(`prepare: npm installed no devDependencies before prepare: installing esbuild@${version} to build dist/`);
  const tools = mkdtempSync(join(tmpdir(), 'vault-prepare-'));
  const modules = join(root, 'node_modules');
  const madeModules = !existsSync(modules);
  const link = join(modules, 'esbuild');
  try {
    // a plain local install into the temporary folder, whatever the outer npm was asked to do
    const env = { ...process.env, npm_config_global: 'false' };
    for (const k of ['npm_config_prefix', 'npm_config_install_links', 'npm_config_omit', 'npm_config_include', 'npm_config_strict_allow_scripts'])
      delete env[k];
    const args = [npmCli, 'install', '--prefix', tools, '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];
    const r = spawnSync(process.execPath, [...args, `esbuild@${version}`], { cwd: tools, env, stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) fail(`npm could not install esbuild@${version} (exit ${r.status ?? r.signal ?? r.error?.message}); dist/ was not built`);
    if (madeModules) mkdirSync(modules);
    // esbuild finds its platform package next to its real path, in the temporary folder
    symlinkSync(join(tools, 'node_modules', 'esbuild'), link, 'junction');
    await import(build);
  } finally {
    if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(link);
    try {
      if (madeModules) rmdirSync(modules); // only when empty again: nothing else is ever removed
    } catch {}
    rmSync(tools, { recursive: true, force: true });
  }
}
