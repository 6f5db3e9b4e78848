/**
 * Reading and writing index files. Every write is atomic (a temp file in the same folder, then
 * rename), generation folders are renamed into place complete, and every read is checked
 * (version, shape, byte length), so a missing, truncated, garbage or old-format index reads as
 * "absent" and is rebuilt, never trusted.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KINDS, SCHEMA_VERSION, STATUSES, kindFolder, type Scope } from '../document/contract.js';
import { BUCKET_COUNT, FIELDS, INDEX_FORMAT_VERSION, IndexUnusable, bucketFileName, type DocRecord, type IndexState, type InvalidRecord, type StoredDocs } from './index-format.js';
import { BucketReader } from './postings.js';
import { GenerationDocs, toColumns } from './generation-docs.js';

export { IndexUnusable };

function tempName(): string {
  return `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/**
 * Refuses an index folder reached through a symbolic link: the folder itself, its parent and
 * grandparent (`<git dir>/ecc-memory-index/<scope>`, `<vault>/.index/<scope>`,
 * `~/.ecc/memory/.index`) must be real folders or not exist yet. A linked index would let
 * index writes and clean-ups land outside the vault, and let planted index files feed search.
 *
 * @throws Error when a component is a symbolic link
 */
export function assertIndexDirUnlinked(dir: string): void {
  let p = dir;
  for (let level = 0; level < 3; level++) {
    try {
      if (lstatSync(p).isSymbolicLink()) throw new Error(`index folder path contains a symbolic link: ${p}`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    p = dirname(p);
  }
}

/** Creates the index folder and its self-ignoring `.gitignore`. @throws Error for a linked path */
export function ensureIndexDir(dir: string): void {
  assertIndexDirUnlinked(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  assertIndexDirUnlinked(dir);
  try {
    statSync(join(dir, '.gitignore'));
  } catch {
    writeAtomic(join(dir, '.gitignore'), '*\n');
  }
}

/** Writes a file atomically (temp + fsync + rename). Returns the file's mtime (the file system's clock). */
export function writeAtomic(target: string, text: string): number {
  const dir = join(target, '..');
  assertIndexDirUnlinked(dir);
  const tmp = join(dir, tempName());
  const fd = openSync(tmp, 'wx', 0o600);
  let mtime: number;
  try {
    writeSync(fd, text);
    mtime = fstatSync(fd).mtimeMs;
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, target);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  return mtime;
}

/** The file system's current time, read from a probe file in `dir` (the clock that stamps memory files). */
export function fileSystemNow(dir: string): number {
  const probe = join(dir, tempName());
  writeFileSync(probe, '', { mode: 0o600 });
  try {
    return statSync(probe).mtimeMs;
  } finally {
    rmSync(probe, { force: true });
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads state.json; throws {@link IndexUnusable} when it is missing, unreadable, of another format or another folder. */
export function readState(dir: string, scope: Scope, root: string): { state: IndexState; mtime: number } {
  let text: string;
  let mtime: number;
  try {
    assertIndexDirUnlinked(dir);
  } catch (err) {
    throw new IndexUnusable((err as Error).message);
  }
  try {
    text = readFileSync(join(dir, 'state.json'), 'utf8');
    mtime = statSync(join(dir, 'state.json')).mtimeMs;
  } catch {
    throw new IndexUnusable('missing');
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new IndexUnusable('state.json is not valid JSON (truncated or garbage)');
  }
  if (!isObj(v) || v.format !== INDEX_FORMAT_VERSION) throw new IndexUnusable(`index format ${isObj(v) ? String(v.format) : '?'} is not ${INDEX_FORMAT_VERSION}`);
  if (v.schema !== SCHEMA_VERSION) throw new IndexUnusable(`index was built for schema ${String(v.schema)}`);
  if (v.scope !== scope || v.root !== root) throw new IndexUnusable('index describes another folder');
  if (typeof v.generation !== 'string' || !/^[a-z0-9]{1,40}$/.test(v.generation) || !isObj(v.overlay)) throw new IndexUnusable('state.json has an unexpected shape');
  return { state: v as unknown as IndexState, mtime };
}

/** Writes state.json atomically; returns its mtime. */
export function writeState(dir: string, state: IndexState): number {
  return writeAtomic(join(dir, 'state.json'), JSON.stringify(state));
}

/** A generation's documents (see generation-docs.ts). */
export type BaseDocs = GenerationDocs;

/** Reads and checks a generation's docs.json. @throws IndexUnusable */
export function readBaseDocs(dir: string, generation: string, scope: Scope): BaseDocs {
  let text: string;
  try {
    text = readFileSync(join(dir, `g-${generation}`, 'docs.json'), 'utf8');
  } catch {
    throw new IndexUnusable(`generation ${generation} is missing`);
  }
  let s: StoredDocs;
  try {
    s = JSON.parse(text) as StoredDocs;
  } catch {
    throw new IndexUnusable('docs.json is not valid JSON (truncated or garbage)');
  }
  if (!isObj(s) || s.format !== INDEX_FORMAT_VERSION || s.schema !== SCHEMA_VERSION || s.scope !== scope || s.generation !== generation || s.bucketCount !== BUCKET_COUNT || !Array.isArray(s.buckets) || s.buckets.length !== BUCKET_COUNT) {
    throw new IndexUnusable('docs.json is of another format or generation');
  }
  const bytes = Buffer.byteLength(text) + s.buckets.reduce((a, b) => a + b, 0);
  return new GenerationDocs(scope, generation, s, s.buckets, bytes);
}

/** Reads one bucket of a generation and checks its length and header. @throws IndexUnusable */
export function readBucket(dir: string, base: BaseDocs, bucket: number): BucketReader {
  const expected = base.buckets[bucket] ?? 0;
  if (expected === 0) return new BucketReader(Buffer.alloc(0), base.count);
  let buf: Buffer;
  try {
    buf = readFileSync(join(dir, `g-${base.generation}`, bucketFileName(bucket)));
  } catch {
    throw new IndexUnusable(`bucket ${bucket} is missing`);
  }
  if (buf.length !== expected) throw new IndexUnusable(`bucket ${bucket} has ${buf.length} bytes, expected ${expected}`);
  return new BucketReader(buf, base.count);
}

/**
 * Writes a complete generation folder: bucket files, then docs.json, all into a temp folder that
 * is renamed into place, so a reader never sees half a generation.
 */
export function writeGeneration(dir: string, generation: string, scope: Scope, docs: DocRecord[], invalid: InvalidRecord[], bucket: (b: number) => Buffer): number {
  const tmp = join(dir, `${tempName()}-g`);
  mkdirSync(tmp, { mode: 0o700 });
  try {
    const sizes = Array.from({ length: BUCKET_COUNT }, (_, b) => {
      const bytes = bucket(b);
      if (bytes.length === 0) return 0;
      writeFileSync(join(tmp, bucketFileName(b)), bytes, { mode: 0o600 });
      return bytes.length;
    });
    const stored: StoredDocs = {
      format: INDEX_FORMAT_VERSION,
      schema: SCHEMA_VERSION,
      scope,
      generation,
      bucketCount: BUCKET_COUNT,
      buckets: sizes,
      ...toColumns(docs, invalid),
    };
    const text = JSON.stringify(stored);
    writeFileSync(join(tmp, 'docs.json'), text, { mode: 0o600 });
    renameSync(tmp, join(dir, `g-${generation}`));
    return Buffer.byteLength(text) + sizes.reduce((a, b) => a + b, 0);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** A fresh generation name. */
export function newGeneration(): string {
  return randomBytes(8).toString('hex');
}

/**
 * Removes what earlier runs left behind: generations other than `keep` and temp files, once they
 * are older than `graceMs` (a reader that loaded the previous state may still be reading them).
 * The generation just replaced is touched so its grace period starts now.
 */
export function cleanIndexDir(dir: string, keep: string, replaced: string | undefined, now: number, graceMs = 60_000): void {
  assertIndexDirUnlinked(dir);
  if (replaced && replaced !== keep) {
    try {
      const t = new Date(now);
      utimesSync(join(dir, `g-${replaced}`), t, t);
    } catch {
      /* already gone */
    }
  }
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === `g-${keep}` || name === `g-${replaced}` || !(name.startsWith('g-') || name.startsWith('.tmp-'))) continue;
    try {
      if (now - statSync(join(dir, name)).mtimeMs > graceMs) rmSync(join(dir, name), { recursive: true, force: true });
    } catch {
      /* another process cleaned it */
    }
  }
}

/** Total bytes of the files in the index folder (for status). */
export function indexBytes(dir: string): number {
  let total = 0;
  const walk = (d: string) => {
    let names;
    try {
      names = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of names) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.isFile()) {
        try {
          total += statSync(join(d, e.name)).size;
        } catch {
          /* gone */
        }
      }
    }
  };
  walk(dir);
  return total;
}
