/** Shared helpers of the search tests: memories written straight to disk with the library's serializer. */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { serializeMemory } from '../../src/document/serialize.js';
import type { Memory } from '../../src/document/contract.js';

let counter = 0;

/** A valid memory with defaults; `over` wins. */
export function memory(over: Partial<Memory> = {}): Memory {
  counter++;
  return {
    schema: 'ecc.memory.v1',
    id: `mem_test_${String(counter).padStart(4, '0')}`,
    title: `Memory ${counter}`,
    kind: 'note',
    scope: 'team',
    trust: 'unreviewed',
    status: 'active',
    sourceHarness: 'test',
    targetHarnesses: ['all'],
    tags: [],
    links: [],
    createdAt: '2026-07-01T00:00:00.000Z',
    updatedAt: '2026-07-01T00:00:00.000Z',
    body: 'Nothing in particular.',
    ...over,
  };
}

/** Absolute path of a memory file under a repository's default vault. */
export function memoryPath(repo: string, m: Memory): string {
  const root = m.scope === 'user' ? join(repo, 'home', '.ecc', 'memory') : join(repo, '.ecc', 'memory', m.scope);
  return join(root, `${m.kind}s`, `${m.id}.md`);
}

/**
 * Writes memories into `<repo>/.ecc/memory/<scope>/<kind>s/<id>.md` and dates the files 10 s in the
 * past, so the index trusts their fingerprints (newer files are re-read on every check).
 */
export function putMemories(repo: string, ...ms: Memory[]): void {
  const past = new Date(Date.now() - 10_000);
  for (const m of ms) {
    const p = memoryPath(repo, m);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, serializeMemory(m));
    utimesSync(p, past, past);
  }
}

/** Writes any file under the repo, dated in the past. */
export function putFile(repo: string, rel: string, text: string): void {
  const p = join(repo, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  const past = new Date(Date.now() - 10_000);
  utimesSync(p, past, past);
}

/** One canonical team decision about Redis, as file text (mem_20260801_redis01; the code-cache tests search it). */
export const REDIS_DECISION_TEXT = [
  '---',
  'schema: "ecc.memory.v1"',
  'id: "mem_20260801_redis01"',
  'title: "Sessions live in Redis"',
  'kind: "decision"',
  'scope: "team"',
  'trust: "unreviewed"',
  'status: "active"',
  'source_harness: "claude"',
  'target_harnesses: ["all"]',
  'tags: ["redis"]',
  'links: []',
  'created_at: "2026-08-01T10:00:00.000Z"',
  'updated_at: "2026-08-01T10:00:00.000Z"',
  '---',
  '',
  'We keep user sessions in Redis.',
  '',
].join('\n');
