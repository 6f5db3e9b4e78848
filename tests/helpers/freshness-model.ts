/**
 * The model of the freshness tests (tests/search/index/freshness-model.test.ts): random sequences
 * of changes to a real vault in a real git repository, and the answers of a fresh rebuild (a copy
 * of the vault's files with no index) to compare with after each step.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { serializeMemory } from '../../src/document/serialize.js';
import { nodeRuntime, type Runtime } from '../../src/io/runtime.js';
import { readMemory } from '../../src/operations/read.js';
import { save } from '../../src/operations/save.js';
import { searchMemories } from '../../src/search/query/search-memories.js';
import { indexDirFor } from '../../src/store/layout.js';
import { resolveRoots, type VaultRoots } from '../../src/store/roots.js';
import { git, gitRepo, tempDir } from './cli.js';
import { memory } from './search.js';
import { STATE_FILE } from './state-file.js';

const WORDS = ['apple', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'gale', 'harbor', '東京', '検索'];

/** The queries every comparison asks (the empty one lists newest first). */
export const QUERIES = ['apple', 'harbor cedar', '東京', ''];

export type Step =
  | { t: 'save'; words: number[] }
  | { t: 'create'; words: number[]; kind: 'note' | 'decision' }
  | { t: 'delete'; pick: number }
  | { t: 'rename'; pick: number; across: boolean }
  | { t: 'inPlace'; pick: number; words: number[] }
  | { t: 'checkout' }
  | { t: 'damage'; how: 'garbage' | 'truncate' | 'docs' }
  | { t: 'killedWriter' }
  | { t: 'age' };

const words = fc.array(fc.integer({ min: 0, max: WORDS.length - 1 }), { minLength: 1, maxLength: 4 });

/** One random change. */
export const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ t: fc.constant('save' as const), words }),
  fc.record({ t: fc.constant('create' as const), words, kind: fc.constantFrom('note' as const, 'decision' as const) }),
  fc.record({ t: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ t: fc.constant('rename' as const), pick: fc.nat(), across: fc.boolean() }),
  fc.record({ t: fc.constant('inPlace' as const), pick: fc.nat(), words }),
  fc.record({ t: fc.constant('checkout' as const) }),
  fc.record({ t: fc.constant('damage' as const), how: fc.constantFrom('garbage' as const, 'truncate' as const, 'docs' as const) }),
  fc.record({ t: fc.constant('killedWriter' as const) }),
  fc.record({ t: fc.constant('age' as const) }),
);

const text = (ws: number[]) => ws.map((w) => WORDS[w]).join(' ');

/** Every memory file of the team scope (absolute paths, sorted). */
function memoryFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names.sort()) {
      if (n.startsWith('.')) continue;
      const p = join(d, n);
      if (n.endsWith('.md')) out.push(p);
      else walk(p);
    }
  };
  walk(root);
  return out;
}

/** Dates every file and folder of the vault in the past (distinct per call), as if time had passed. */
let ageTick = 0;
export function age(root: string): void {
  ageTick++;
  const t = new Date(Date.now() - 60_000 - ageTick * 1000);
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      if (n.startsWith('.')) continue;
      const p = join(d, n);
      if (!n.endsWith('.md')) walk(p);
      utimesSync(p, t, t);
    }
  };
  walk(root);
  utimesSync(root, t, t);
}

/** Search answers as the comparisons see them. */
export async function answersOf(search: (q: string) => Promise<Awaited<ReturnType<typeof searchMemories>>>) {
  const out: unknown[] = [];
  for (const q of QUERIES) {
    const r = await search(q);
    out.push({ q, total: r.total, results: r.results, invalid: r.diagnostics.invalidFiles.map((d) => [d.path, d.code]) });
  }
  return out;
}

/** The answers of `searchMemories` on the files (folder check, or the full check with `fresh`). */
export function answers(roots: VaultRoots, fresh: boolean) {
  return answersOf((q) => searchMemories(roots, q, { scopes: ['team'], fresh, limit: 50 }));
}

/** A read as the comparisons see it: path, title and body, or the error code. */
export function readView(id: string, read: () => { path: string; memory: { title: string; body: string } }) {
  try {
    const r = read();
    return { id, path: r.path, title: r.memory.title, body: r.memory.body };
  } catch (err) {
    return { id, error: (err as { code?: string }).code };
  }
}

/** `readMemory` on the files for each id. */
export function reads(roots: VaultRoots, ids: readonly string[]) {
  return ids.map((id) => readView(id, () => readMemory(roots, id, { scopes: ['team'] })));
}

/** The answers of a fresh rebuild: the vault's files copied into a folder with no index. */
export async function oracle(repo: string, ids: readonly string[]) {
  const copy = tempDir('vault-oracle-');
  // a checkout can remove .ecc itself (every memory deleted on that branch): an empty vault
  if (existsSync(join(repo, '.ecc'))) cpSync(join(repo, '.ecc'), join(copy, '.ecc'), { recursive: true });
  rmSync(join(copy, '.ecc', 'memory', '.index'), { recursive: true, force: true });
  const roots = resolveRoots(nodeRuntime({ cwd: copy, env: { HOME: join(copy, 'home') }, home: join(copy, 'home') }), { root: join(copy, '.ecc', 'memory') });
  const r = { search: await answers(roots, true), read: reads(roots, ids) };
  rmSync(copy, { recursive: true, force: true });
  return r;
}

/** A model vault: a git repository with two branches of different memories, on main. */
export interface ModelVault {
  repo: string;
  team: string;
  rt: Runtime;
  roots: VaultRoots;
  /** every id that was ever in the vault (reads are compared for all of them) */
  ids: Set<string>;
}

export function modelVault(): ModelVault {
  const repo = gitRepo();
  const home = join(repo, 'home');
  const rt = nodeRuntime({ cwd: repo, env: { HOME: home, ECC_MEMORY_USER_ROOT: join(home, '.ecc', 'memory') }, home });
  const roots = resolveRoots(rt);
  const team = join(repo, '.ecc', 'memory', 'team');
  const v: ModelVault = { repo, team, rt, roots, ids: new Set(['mem_model_a', 'mem_model_b', 'mem_model_c']) };
  put(v, 'notes/a.md', memory({ id: 'mem_model_a', title: 'Apple harbor', body: 'apple cedar' }));
  put(v, 'decisions/b.md', memory({ id: 'mem_model_b', kind: 'decision', title: 'Cedar', body: '東京 harbor' }));
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'main');
  git(repo, 'checkout', '-q', '-b', 'alt');
  put(v, 'notes/c.md', memory({ id: 'mem_model_c', title: 'Birch', body: 'apple apple gale' }));
  rmSync(join(team, 'notes', 'a.md'));
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'alt');
  git(repo, 'checkout', '-q', 'main');
  age(team);
  return v;
}

function put(v: ModelVault, rel: string, m: ReturnType<typeof memory>): void {
  mkdirSync(dirname(join(v.team, rel)), { recursive: true });
  writeFileSync(join(v.team, rel), serializeMemory(m));
}

/**
 * Applies step number `n` to the vault (and, every second step, ages it).
 *
 * @returns whether it wrote a file in place (the folder check may see that late)
 */
export async function applyStep(v: ModelVault, s: Step, n: number): Promise<boolean> {
  const { repo, team, roots } = v;
  const files = memoryFiles(team);
  const pick = (i: number) => files[i % files.length];
  let inPlace = false;
  switch (s.t) {
    case 'save': {
      const r = await save(roots, { scope: 'team', kind: 'note', title: `Saved ${n} ${text(s.words)}`, body: text(s.words) }, v.rt);
      v.ids.add(r.memory.id);
      break;
    }
    case 'create': {
      const m = memory({ kind: s.kind, title: `Made ${n}`, body: text(s.words) });
      v.ids.add(m.id);
      put(v, `${s.kind}s/${m.id}.md`, m);
      break;
    }
    case 'delete': {
      const f = pick(s.pick);
      if (f) rmSync(f);
      break;
    }
    case 'rename': {
      const f = pick(s.pick);
      if (!f) break;
      const to = s.across ? join(team, 'decisions', `moved-${n}.md`) : join(dirname(f), `renamed-${n}.md`);
      mkdirSync(dirname(to), { recursive: true });
      renameSync(f, to);
      break;
    }
    case 'inPlace': {
      const f = pick(s.pick);
      if (!f) break;
      const m = memory({ title: `Rewritten ${n}`, body: text(s.words) });
      v.ids.add(m.id);
      writeFileSync(f, serializeMemory({ ...m, kind: f.includes('/decisions/') ? 'decision' : 'note' }));
      inPlace = true;
      break;
    }
    case 'checkout': {
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '--allow-empty', '-m', `step ${n}`);
      const branch = git(repo, 'rev-parse', '--abbrev-ref', 'HEAD').trim();
      git(repo, 'checkout', '-q', branch === 'main' ? 'alt' : 'main');
      break;
    }
    case 'damage': {
      const dir = indexDirFor(roots, 'team');
      const state = join(dir, STATE_FILE);
      if (s.how === 'garbage') writeFileSync(state, '{"format": garbage');
      else if (s.how === 'truncate') writeFileSync(state, '');
      else {
        // the documents table: whatever file of a generation is not a term bucket
        const gen = readdirSync(dir).find((x) => x.startsWith('g-'));
        const docs =
          gen &&
          readdirSync(join(dir, gen))
            .sort()
            .find((x) => !/^b\d+\.bin$/.test(x));
        if (gen && docs) writeFileSync(join(dir, gen, docs), '[1,2');
      }
      break;
    }
    case 'killedWriter': {
      // what a writer killed mid-way leaves: a temp file and half a generation folder
      const dir = indexDirFor(roots, 'team');
      writeFileSync(join(dir, '.tmp-999999-deadbeef0000'), '{"format":9,');
      mkdirSync(join(dir, '.tmp-999999-deadbeef0001-g'), { recursive: true });
      writeFileSync(join(dir, '.tmp-999999-deadbeef0001-g', 'b001.bin'), Buffer.alloc(7));
      break;
    }
    case 'age':
      age(team);
      break;
  }
  if (s.t !== 'age' && n % 2 === 0) age(team);
  return inPlace;
}
