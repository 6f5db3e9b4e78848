#!/usr/bin/env node
// The main job on this repository's own vault, through the real binary: init, save a memory into
// the local (git-ignored) project scope, read it back, search, and doctor the team vault.
// Commands that later issues add (search, doctor) run when present.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(repo, 'bin', 'vault.js');
const env = { ...process.env, ECC_MEMORY_HARNESS: process.env.ECC_MEMORY_HARNESS ?? 'demo' };

function vault(...args) {
  console.log(`\n$ vault ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: repo, env, encoding: 'utf8' });
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  return r;
}

const help = spawnSync(process.execPath, [bin, '--help'], { cwd: repo, env, encoding: 'utf8' }).stdout;
function has(command) {
  return new RegExp(`^\\s+vault ${command}\\b`, 'm').test(help);
}

let failed = false;
const check = (r, what) => {
  if (r.status !== 0) {
    console.error(`demo: ${what} failed with exit code ${r.status}`);
    failed = true;
  }
  return r;
};

check(vault('init', '--scope', 'project'), 'init');
const stamp = new Date().toISOString();
const saved = check(
  vault(
    'save',
    '--scope',
    'project',
    '--kind',
    'note',
    '--title',
    `Demo run at ${stamp}`,
    '--tag',
    'demo',
    '--body',
    `The README's first command ran the main job at ${stamp}: save, read, search and doctor on this repository's own vault.`,
    '--json',
  ),
  'save',
);
if (saved.status === 0) {
  const { id } = JSON.parse(saved.stdout);
  check(vault('read', id), 'read');
}
if (has('search')) check(vault('search', 'create-only write'), 'search');
if (has('doctor')) check(vault('doctor', '--scope', 'team'), 'doctor');
process.exitCode = failed ? 1 : 0;
