/**
 * Check-then-use races on paths (hardening item 2): a second process swaps vault folders (a kind
 * folder, a scope folder, `.ecc`) for symbolic links to look-alike trees outside the vault, in a
 * tight loop, while saves, reads and searches run. Nothing outside the vault may ever be read or
 * written. Linux only: the race-free path is procfs (store/dir-handle.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, unlinkSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, gitRepo, runBin, runCli, tempDir } from '../helpers/cli.js';
import { memoryText } from '../helpers/corpus-vault.js';

const LINUX = process.platform === 'linux';
if (!LINUX) console.warn('path-races.test.ts: skipped, the race-free folder handles are tested on Linux only');

const CANARY = 'CANARY_OUTSIDE_THE_VAULT';

/** Swaps `real` for a link to `fake` and back by rename pairs, until `stop` exists. */
const RENAME_SWAPPER = `
const fs = require('fs');
const [stop, ...pairs] = process.argv.slice(1);
let n = 0;
// hold each state a moment (0-1 ms, busy): a link shown for no time at all is never hit
const hold = () => { const t = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 1e6)); while (process.hrtime.bigint() < t); };
while (!fs.existsSync(stop)) {
  for (let i = 0; i < pairs.length; i += 2) {
    const real = pairs[i], fake = pairs[i + 1];
    try {
      fs.renameSync(real, real + '.swapped');
      fs.symlinkSync(fake, real);
      hold();
      fs.unlinkSync(real);
      fs.renameSync(real + '.swapped', real);
      hold();
    } catch {}
    n++;
  }
}
console.log(n);
`;

/** Exchanges `real` with a link to `fake` atomically (renameat2 RENAME_EXCHANGE) until `stop` exists. */
const EXCHANGE_SWAPPER = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
stop, real, fake = sys.argv[1:4]
# through a handle of the parent folder, so the other swapper moving .ecc never redirects this one
parent = os.open(os.path.dirname(real), os.O_RDONLY | os.O_DIRECTORY)
name = os.path.basename(real).encode()
link = name + b'.xlink'
os.symlink(fake, link, dir_fd=parent)
# the test starts the rename swapper only after this: opening the parent while .ecc is swapped away would fail
open(stop + '.ready', 'w').close()
n = 0
flipped = False
def exchange():
    global flipped
    if libc.renameat2(parent, name, parent, link, 2) == 0:
        flipped = not flipped
while not os.path.exists(stop):
    exchange()
    time.sleep(0.0005)
    exchange()
    time.sleep(0.0005)
    n += 1
while flipped:
    exchange()
os.unlink(link, dir_fd=parent)
print(n)
`;

function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[p] = e.isFile() ? readFileSync(p, 'utf8') : `<${e.isSymbolicLink() ? 'link' : 'other'}>`;
    }
  };
  walk(dir);
  return out;
}

function plant(root: string, rel: string, text: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

describe.skipIf(!LINUX)('path races: folders swapped for links while commands run (Linux only)', () => {
  it('never reads or writes outside the vault (rename pairs and renameat2 exchange)', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    // real folders, each with a memory, so the swaps have something to swap
    for (const [scope, kind] of [
      ['team', 'note'],
      ['project', 'note'],
      ['team', 'decision'],
    ]) {
      const r = await runCli(['save', '--scope', scope!, '--kind', kind!, '--title', `real ${scope} ${kind}`, '--body', 'Inside the vault.'], {
        cwd: repo,
        env,
      });
      expect(r.code, r.stderr).toBe(0);
    }
    const outside = tempDir('vault-outside-');
    const canary = (id: string, scope = 'team', kind = 'note') => memoryText({ id, scope, kind, title: `Canary ${id}` }, `${CANARY} queue retries ${id}.`);
    // look-alike trees: what each link would show if it were followed
    plant(outside, 'notes/mem_canary_kind.md', canary('mem_canary_kind'));
    plant(outside, 'pnotes/mem_canary_pkind.md', canary('mem_canary_pkind', 'project'));
    plant(outside, 'team/notes/mem_canary_scope.md', canary('mem_canary_scope'));
    plant(outside, 'ecc/memory/team/notes/mem_canary_ecc.md', canary('mem_canary_ecc'));
    plant(outside, 'ecc/memory/project/.gitignore', '*\n!.gitignore\n');
    plant(outside, 'decisions/mem_canary_x.md', canary('mem_canary_x', 'team', 'decision'));
    const before = snapshotTree(outside);
    const mem = join(repo, '.ecc/memory');
    const stop = join(tempDir(), 'stop');
    const children: ChildProcess[] = [];
    const outputs: Promise<string>[] = [];
    const start = (cmd: string, args: string[]) => {
      const c = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(c);
      outputs.push(
        new Promise((res) => {
          let out = '';
          c.stdout!.on('data', (d) => (out += d));
          c.on('close', () => res(out.trim()));
        }),
      );
    };
    const python = spawnSync('python3', ['-c', 'import ctypes; ctypes.CDLL(None).renameat2'], { encoding: 'utf8' }).status === 0;
    if (python) {
      // first, and wait until it holds its handle on team/: the rename swapper moves .ecc away
      start('python3', ['-c', EXCHANGE_SWAPPER, stop, join(mem, 'team/decisions'), join(outside, 'decisions')]);
      const ready = Date.now() + 10_000;
      while (!existsSync(`${stop}.ready`) && Date.now() < ready) await new Promise((r) => setTimeout(r, 10));
      expect(existsSync(`${stop}.ready`), 'the renameat2 swapper started').toBe(true);
    } else console.warn('path-races.test.ts: python3 with renameat2 not found, the RENAME_EXCHANGE swapper did not run');

    start(process.execPath, [
      '-e',
      RENAME_SWAPPER,
      stop,
      join(mem, 'team/notes'),
      join(outside, 'notes'),
      join(mem, 'project/notes'),
      join(outside, 'pnotes'),
      join(mem, 'team'),
      join(outside, 'team'),
      join(repo, '.ecc'),
      join(outside, 'ecc'),
    ]);
    const seen: string[] = [];
    const deadline = Date.now() + 3_500;
    let runs = 0;
    try {
      const inProcess = (async () => {
        for (let i = 0; Date.now() < deadline; i++) {
          const scope = i % 2 ? 'team' : 'project';
          const kind = i % 3 ? 'note' : 'decision';
          const s = await runCli(['save', '--scope', scope, '--kind', kind, '--title', `racing save ${i}`, '--body', `Body ${i}.`, '--json'], {
            cwd: repo,
            env,
          });
          const ids = ['mem_canary_kind', 'mem_canary_pkind', 'mem_canary_scope', 'mem_canary_ecc', 'mem_canary_x'];
          const r = await runCli(['read', ids[i % ids.length]!, '--json'], { cwd: repo, env });
          const q = await runCli(['search', 'queue retries canary', '--json'], { cwd: repo, env });
          seen.push(s.stdout + s.stderr, r.stdout + r.stderr, q.stdout + q.stderr);
          runs++;
        }
      })();
      const binary = (async () => {
        for (let i = 0; Date.now() < deadline; i++) {
          const s = await runBin(['save', '--scope', 'team', '--title', `binary save ${i}`, '--body', 'From the binary.'], { cwd: repo, env });
          const r = await runBin(['read', 'mem_canary_scope'], { cwd: repo, env });
          seen.push(s.stdout + s.stderr, r.stdout + r.stderr);
          runs++;
        }
      })();
      await Promise.all([inProcess, binary]);
    } finally {
      writeFileSync(stop, '');
      await Promise.all(outputs);
    }
    const swaps = (await Promise.all(outputs)).map(Number);
    // the exchanger's own link, when the rename swapper had its parent away as it ended
    const xlink = join(mem, 'team/decisions.xlink');
    if (lstatSync(xlink, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(xlink);
    // the exchanger started first (when python3 has renameat2), the rename swapper last
    expect(swaps.at(-1)).toBeGreaterThan(10);
    if (python) expect(swaps[0]).toBeGreaterThan(10);
    expect(runs).toBeGreaterThan(5);
    // nothing from outside was ever read...
    for (const out of seen) expect(out).not.toContain(CANARY);
    // ...and nothing outside was written: not a memory, not a temp file, not a folder
    expect(snapshotTree(outside)).toEqual(before);
    for (const d of ['notes', 'pnotes', 'team/notes', 'ecc/memory/team/notes', 'decisions']) expect(readdirSync(join(outside, d)).length, d).toBe(1);
    expect(existsSync(join(outside, 'ecc/memory/team/decisions'))).toBe(false);
    // every memory in the vault is whole and valid (a save may recreate a kind folder while the
    // swapper holds the real one aside as `<folder>.swapped`: those are misplaced, not broken)
    expect(statSync(join(mem, 'team/notes')).isDirectory()).toBe(true);
    const doctor = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env });
    const report = JSON.parse(doctor.stdout);
    const moved = (p: { code: string; path: string }) => p.code === 'location-mismatch' && /\.(swapped|xlink)\//.test(p.path);
    expect(report.problems.filter((p: { code: string; path: string }) => !moved(p) && p.code !== 'stray-file')).toEqual([]);
  }, 30_000);
});
