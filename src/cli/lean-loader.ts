/**
 * Loads the lean CLI bundle (dist/cli/lean-bundle.cjs, built from lean-main.ts) with a V8 code
 * cache, so `vault search`, `vault read` and `vault save` skip most of the compile of a ~270 KB
 * bundle (Node.js 20 has no module compile cache of its own). bin/vault.js requires this file
 * (bundled into dist/cli/lean-loader.cjs) and calls {@link runLean}.
 *
 * The cache is one file per command in the user's cache folder: `$XDG_CACHE_HOME/ecc-vault/`
 * (an absolute XDG_CACHE_HOME), else `$HOME/.cache/ecc-vault/` (an absolute HOME); without
 * either, or with `ECC_VAULT_CODE_CACHE=off`, there is none. Its name holds the command, the
 * Node.js version, the architecture and the bundle file's identity (size, mtime, inode, device:
 * every build and every install writes a new file), so an upgrade of either never meets an old
 * cache. The file is `ECCV8C4\n`, an 8-byte checksum of the payload ({@link cacheChecksum}), the
 * bundle's byte length (4 bytes) and a copy of its bytes, zero bytes to an 8-byte boundary (V8 itself checks only the source's
 * length: a cache is used only for the very text it was made from, compared whole, which costs
 * less than checksumming that text), then the payload (V8's cached data): a truncated or damaged
 * file is never handed to V8, and a payload V8 rejects (`cachedDataRejected`: other V8 flags) is
 * rebuilt. Neither the name nor the check
 * loads a hashing module (node:crypto's load alone cost ~4-9 ms of every lean command). Hooks
 * load their bundle (dist/hooks/hook-bundle.cjs) through {@link loadBundle} too (bin/vault.js). It is made after the command ran (so
 * it holds the functions the command compiled), written by the one atomic writer
 * (store/atomic-write.ts: a temporary file created exclusively, renamed over), mode 0600 in a
 * 0700 folder. It is read and written only when the ecc-vault
 * folder is a real folder (not a link) owned by this user and writable by nobody else, and the
 * file is a regular file (opened with O_NOFOLLOW) owned by this user; anything else, and any
 * error (a read-only or missing folder), means no cache, silently: the cache only ever costs or
 * saves time, never changes what a command does.
 */
import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join } from 'node:path';
import vm from 'node:vm';
import { processIds } from '../io/runtime.js';
import { writeFileAtomic } from '../store/atomic-write.js';

/** What happened to the code cache in one load (for tests and measurements). */
export type CodeCacheState = 'off' | 'created' | 'reused' | 'rebuilt' | 'skipped';

const MAGIC = Buffer.from('ECCV8C4\n');
/** The payload's checksum ({@link cacheChecksum}), then the bundle's byte length (uint32, little-endian). */
const HEADER_BYTES = 12;
/** A cache larger than this is not ours (the payload is a few MB at most). */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;
const PREFIX = 'lean-bundle-';

/**
 * The folder of the code cache: `$XDG_CACHE_HOME/ecc-vault` when XDG_CACHE_HOME is absolute,
 * else `$HOME/.cache/ecc-vault` when HOME is absolute, else undefined (no cache). A relative
 * XDG_CACHE_HOME is ignored, as the XDG base directory specification says.
 *
 * @param env the process environment
 */
export function codeCacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.ECC_VAULT_CODE_CACHE === 'off') return undefined;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'ecc-vault');
  const home = env.HOME;
  if (home && isAbsolute(home)) return join(home, '.cache', 'ecc-vault');
  return undefined;
}

const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;

/** Ours and writable by nobody else (no ownership on Windows: any regular file or folder). */
function trusted(st: fs.Stats): boolean {
  return uid === undefined || (st.uid === uid && (st.mode & 0o022) === 0);
}

function trustedDir(dir: string): boolean {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  return st !== undefined && st.isDirectory() && !st.isSymbolicLink() && trusted(st);
}

/**
 * A checksum of a cache payload that finds a torn or damaged file (not an attack: the file is
 * this user's, in a folder nobody else can write): Fletcher-style sums over 32-bit words (the
 * second sum weighs each word by its position), then the bytes after the last whole word, as 8
 * bytes. Plain JavaScript: node:crypto (~4-9 ms) and node:zlib (~8 ms, it loads node:stream) cost
 * a lean command more to load than this takes over a few hundred KB (~2 ms).
 */
export function cacheChecksum(payload: Uint8Array): Buffer {
  const words = payload.length >>> 2;
  // 32-bit words in the platform's byte order (a cache is only ever read where it was written)
  // (a copy when the view is not 4-byte aligned: Buffer#slice would only make another view)
  const aligned = (payload.byteOffset & 3) === 0 ? payload : new Uint8Array(payload.subarray(0, words * 4));
  const view = new Int32Array(aligned.buffer, aligned.byteOffset, words);
  let a = 1;
  let b = payload.length | 0;
  for (let i = 0; i < words; i++) {
    a = (a + view[i]!) | 0;
    b = (b + a) | 0;
  }
  for (let i = words * 4; i < payload.length; i++) {
    a = (a + payload[i]!) | 0;
    b = (b + a) | 0;
  }
  const out = Buffer.alloc(8);
  out.writeInt32LE(a, 0);
  out.writeInt32LE(b, 4);
  return out;
}

/** The payload of a cache file, or undefined when there is none or it is not intact. */
function readCache(file: string, source: Buffer): Buffer | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted in the file's place must not hang the command (it is refused below, not read)
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    const start = payloadStart(source.length);
    if (!st.isFile() || !trusted(st) || st.size <= start || st.size > MAX_CACHE_BYTES) return undefined;
    const bytes = fs.readFileSync(fd);
    if (bytes.length <= start || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    // V8 checks only the source's length: data made for another text of the same length (a bundle
    // copied over with its mtime kept, a planted file) would run as this one
    if (
      bytes.readUInt32LE(MAGIC.length + 8) !== source.length ||
      !bytes.subarray(MAGIC.length + HEADER_BYTES, MAGIC.length + HEADER_BYTES + source.length).equals(source)
    )
      return undefined;
    const payload = bytes.subarray(start);
    return cacheChecksum(payload).equals(bytes.subarray(MAGIC.length, MAGIC.length + 8)) ? payload : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Where the payload starts in a cache file: after the header and the source, padded to 8 bytes (the checksum reads 32-bit words in place). */
function payloadStart(sourceBytes: number): number {
  return (MAGIC.length + HEADER_BYTES + sourceBytes + 7) & ~7;
}

/**
 * The bytes of a cache file (see the file comment): header, the payload's checksum, the source's
 * length and bytes, the payload.
 *
 * @param payload V8's cached data
 * @param source the bundle's bytes it was made from
 */
export function cacheFileBytes(payload: Buffer, source: Buffer): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  cacheChecksum(payload).copy(header, 0);
  header.writeUInt32LE(source.length, 8);
  const pad = Buffer.alloc(payloadStart(source.length) - MAGIC.length - HEADER_BYTES - source.length);
  return Buffer.concat([MAGIC, header, source, pad, payload]);
}

/** Writes the cache atomically (temp file created exclusively, renamed over); false on any error. */
function writeCache(dir: string, name: string, payload: Buffer, source: Buffer): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!trustedDir(dir)) return false;
    // the one atomic writer; no fsync: a cache torn by a power cut fails its digest and is rebuilt
    writeFileAtomic(join(dir, name), cacheFileBytes(payload, source), {
      tempPath: join(dir, `.${name}.${processIds.pid}.${processIds.randomHex(6)}.tmp`),
      commit: 'replace',
      mode: 0o600,
      durable: false,
    }); // caches of an older bundle or Node.js for this command are never read again
    const command = name.slice(0, name.indexOf('-', PREFIX.length) + 1);
    for (const other of fs.readdirSync(dir)) if (other !== name && other.startsWith(command)) fs.rmSync(join(dir, other), { force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * The bundle's text, its bytes, and its file's identity (size, mtime in ns, inode, device, from
 * the stat of the handle that is read), as a name part. An ASCII bundle (the lean one: a test
 * holds it so) is decoded as Latin-1, a plain copy, instead of UTF-8.
 */
export function readBundle(file: string): { source: string; bytes: Buffer; identity: string } {
  const fd = fs.openSync(file, 'r');
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    const bytes = fs.readFileSync(fd);
    return {
      source: bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8'),
      bytes,
      identity: [st.size, st.mtimeNs, st.ino, st.dev].map((x) => x.toString(36)).join('.'),
    };
  } finally {
    fs.closeSync(fd);
  }
}

/** A loaded bundle: its exports, and how to keep its compiled code for the next process. */
export interface LoadedBundle {
  exports: Record<string, unknown>;
  /** the cache's state at load; {@link LoadedBundle.persist} turns `created`/`rebuilt` into a file */
  state: CodeCacheState;
  /** writes the code cache when it was missing or stale (call it after the work, so it holds the functions that ran); true when written */
  persist(): boolean;
}

/**
 * Loads a CommonJS bundle through `vm.Script` with a V8 code cache (see the file comment).
 *
 * @param file absolute path of the bundle
 * @param command what the cache is for (one cache per command: each holds the functions its command ran)
 * @param env the process environment (where the cache is, see {@link codeCacheDir})
 * @throws whatever reading or running the bundle throws (the caller falls back to the full CLI)
 */
export function loadBundle(file: string, command: string, env: Readonly<Record<string, string | undefined>>): LoadedBundle {
  const { source, bytes, identity } = readBundle(file);
  const dir = codeCacheDir(env);
  const name = `${PREFIX}${command}-${process.version}-${process.arch}-${identity}.v8`;
  let cached: Buffer | undefined;
  let state: CodeCacheState = 'off';
  if (dir) {
    const usable = trustedDir(dir);
    cached = usable ? readCache(join(dir, name), bytes) : undefined;
    state = cached ? 'reused' : usable && fs.existsSync(join(dir, name)) ? 'rebuilt' : 'created';
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  // The bundle holds no `import()` (scripts/build.mjs turns them into require): a script compiled
  // from cached data loses its dynamic-import callback on Node.js 20.
  const script = new vm.Script(wrapped, { filename: file, ...(cached ? { cachedData: cached } : {}) });
  if (cached && script.cachedDataRejected) state = 'rebuilt';
  const module = { exports: {} as Record<string, unknown> };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file));
  return {
    exports: module.exports,
    state,
    persist: () => (dir !== undefined && (state === 'created' || state === 'rebuilt') ? writeCache(dir, name, script.createCachedData(), bytes) : false),
  };
}

/**
 * Runs `vault search|read|save ...` from the lean bundle, with its code cache.
 *
 * @param argv arguments after the program name
 * @param file absolute path of dist/cli/lean-bundle.cjs
 * @returns the exit code, or undefined when the arguments need the full CLI (nothing printed)
 *   or the bundle cannot be loaded (a partial build: the full CLI answers instead)
 */
export async function runLean(argv: readonly string[], file: string): Promise<number | undefined> {
  // the bundle requires ES-module packages (secretlint's preset): without require(esm) (Node.js
  // 22.0-22.11), the full CLI imports them
  if ((process.features as { require_module?: boolean }).require_module !== true) return undefined;
  let bundle: LoadedBundle;
  try {
    bundle = loadBundle(file, /^[a-z]+$/.test(String(argv[0])) ? String(argv[0]) : 'other', process.env);
  } catch {
    return undefined;
  }
  const code = await (bundle.exports.runLeanCli as (a: readonly string[]) => Promise<number | undefined>)(argv);
  if (code !== undefined) bundle.persist();
  return code;
}
