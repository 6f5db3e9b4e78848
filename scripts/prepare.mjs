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
//
// After dist/, the library's type declarations are emitted into types/ (package.json `types`) by
// TypeScript, a devDependency like esbuild: wherever npm installed the devDependencies, and in
// `npm pack`, which fetches the locked typescript and @types/node beside esbuild (a package made without its
// declarations would give its TypeScript users no types). A global install skips them: a command
// on the PATH is never imported as a library. build.mjs leaves types/ alone, because it swaps
// dist/ whole on every build and tsc takes seconds where esbuild takes well under one.
// `--noCheck`: type checking is `npm run typecheck`'s job, and `npm pack` in a fresh clone has no
// dependencies installed to check against. Compared on 2026-12-02: the declarations of every
// layer below the adapters are byte-identical with and without it; in cli/, mcp/, hooks/ and
// server/ (not part of the library's API) a type inferred from yargs becomes `any`.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmdirSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
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

function resolveTsc() {
  try {
    return createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

/** Emits the declarations into a fresh folder, then swaps it in for types/ (never half-written). */
function buildTypes(tsc, extraArgs = []) {
  const tmp = `types.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--emitDeclarationOnly', '--noCheck', '--outDir', tmp, ...extraArgs], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    fail(`tsc could not emit the type declarations (exit ${r.status ?? r.signal}); types/ was not written`);
  }
  rmSync('types', { recursive: true, force: true });
  renameSync(tmp, 'types');
}

function fail(message) {
  console.error(`prepare: ${message}`);
  process.exit(1);
}

if (hasEsbuild()) {
  await import(build);
  const tsc = resolveTsc();
  if (tsc) buildTypes(tsc);
} else {
  const npmCli = process.env.npm_execpath;
  const selfInstall = process.env.npm_config_global === 'true' || process.env.npm_command === 'pack';
  if (!selfInstall || !npmCli) fail('esbuild (a devDependency) is not installed, so dist/ cannot be built. Run `npm ci` (without --omit=dev) first.');
  let version;
  let tsVersion;
  let nodeTypesVersion;
  try {
    const locked = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages;
    version = locked['node_modules/esbuild'].version;
    tsVersion = locked['node_modules/typescript']?.version;
    nodeTypesVersion = locked['node_modules/@types/node']?.version;
  } catch {
    fail('package-lock.json does not lock esbuild, so dist/ cannot be built. Run `npm ci` first.');
  }
  const withTypes = process.env.npm_command === 'pack' && tsVersion !== undefined && nodeTypesVersion !== undefined;
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
    const wanted = [`esbuild@${version}`, ...(withTypes ? [`typescript@${tsVersion}`, `@types/node@${nodeTypesVersion}`] : [])];
    const r = spawnSync(process.execPath, [...args, ...wanted], { cwd: tools, env, stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) fail(`npm could not install ${wanted.join(' ')} (exit ${r.status ?? r.signal ?? r.error?.message}); dist/ was not built`);
    if (madeModules) mkdirSync(modules);
    // esbuild finds its platform package next to its real path, in the temporary folder
    symlinkSync(join(tools, 'node_modules', 'esbuild'), link, 'junction');
    await import(build);
    if (withTypes) buildTypes(join(tools, 'node_modules', 'typescript', 'bin', 'tsc'), ['--typeRoots', join(tools, 'node_modules', '@types')]);
  } finally {
    if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(link);
    try {
      if (madeModules) rmdirSync(modules); // only when empty again: nothing else is ever removed
    } catch {}
    rmSync(tools, { recursive: true, force: true });
  }
}
