/**
 * Walks the vault's scope folders and returns every memory plus diagnostics. Never follows a
 * symbolic link, never enters hidden folders, never throws for a malformed file, and never puts
 * raw file content into a diagnostic. Bounded (files, depth, bytes) and says when a bound was hit.
 */
import { lstatSync, readdirSync, statSync, type Dirent, type Stats } from 'node:fs';
import { basename, dirname, relative, sep } from 'node:path';
import { kindFolder, kindOfFolder, LIMITS, SCOPES, type Memory, type Scope } from '../document/contract.js';
import type { NonCanonicalReason } from '../document/parse.js';
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics.js';
import { isVaultError } from '../errors.js';
import { parseMemory } from '../document/parse.js';
import { parseCanonicalText } from './fast-parse.js';

/** Strict UTF-8 (invalid bytes throw); the BOM is kept so the parser can report it. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
import { describeParseError } from './parse-problem.js';
import { findSecretShapes } from '../secrets/scan-secrets.js';
import { DirHandle, isLinkRefusal } from '../store/dir-handle.js';
import { NON_MEMORY_FOLDERS, SAVE_TEMP_FILE, STAGING_DIR, SWEEP_MARK } from '../store/layout.js';
import { readFileSafe } from '../store/read-file-safe.js';
import { guardedDirs, scopeRoot, type VaultRoots } from '../store/roots.js';

/** Bounds of one scan. Generous (100,000+ memories) but finite. */
export interface ScanLimits {
  /** directory entries visited across all scopes */
  maxEntries: number;
  /** folder depth below a scope root (scope root = 0, kind folder = 1) */
  maxDepth: number;
  /** bytes of memory files read, in total */
  maxTotalBytes: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = { maxEntries: 500_000, maxDepth: 8, maxTotalBytes: 2 * 1024 ** 3 };

/** A readable, valid memory found by the scan. */
export interface ScanEntry {
  memory: Memory;
  /** the scope folder it was found in */
  scope: Scope;
  /** vault-relative path, `<scope>/<kind>s/<file>.md`, always with `/` */
  path: string;
  /** absolute path */
  absPath: string;
  canonical: boolean;
  nonCanonical: NonCanonicalReason[];
  /** file size in bytes */
  size: number;
  /** modification time in ms since the epoch */
  mtimeMs: number;
  /** the decoded file text, only when the scan was asked to keep it ({@link ScanOptions.keepText}) */
  text?: string;
}

/**
 * A file that is in the vault but is not a usable memory: its diagnostic (severity error; `code`
 * a document error code, `invalid-document`, `unreadable`, `location-mismatch` or
 * `suspected-secret`), plus where the file is and, when it parsed, the id it claims. Holds file
 * content only in `text`, when the scan was asked to keep it; never in a message.
 */
export interface FileDiagnostic extends Diagnostic {
  /** the scope folder it was found in */
  scope: Scope;
  absPath: string;
  /** the memory's id, when the file parsed (a location mismatch, a quarantined secret) */
  id?: string | undefined;
  /**
   * The file's text (decoded leniently when it is not valid UTF-8), only when the scan was asked
   * to keep text ({@link ScanOptions.keepText}) and the file was read (at most the document
   * limit): doctor scans it for secrets whether or not the file is a valid memory.
   */
  text?: string;
}

/** The diagnostic of a file the scanner found and could not use (see {@link FileDiagnostic}). */
function fileDiagnostic(
  f: Pick<WalkedFile, 'scope' | 'path' | 'absPath'>,
  code: DiagnosticCode,
  line: number | undefined,
  message: string,
  hint: string,
  id?: string,
): FileDiagnostic {
  return { ...diagnostic('error', code, f.path, line, message, hint), scope: f.scope, absPath: f.absPath, ...(id !== undefined ? { id } : {}) };
}

/**
 * The diagnostic of a file {@link readFileSafe} could not read: too large (a document error) or
 * unreadable (permissions, a FIFO, a link swapped in).
 */
export function readFailure(f: Pick<WalkedFile, 'scope' | 'path' | 'absPath'>, read: { code: string; size?: number }): FileDiagnostic {
  return read.code === 'too-large'
    ? fileDiagnostic(
        f,
        'document-too-large',
        undefined,
        `document is too large (${read.size ?? 'over'} bytes, maximum ${LIMITS.documentMaxBytes})`,
        'a memory is at most 128 KiB; split it',
      )
    : fileDiagnostic(f, 'unreadable', undefined, `file could not be read (${read.code})`, 'check the file permissions');
}

/** The result of a scan. `complete` is false when a bound was hit or a folder could not be read. */
export interface ScanResult {
  entries: ScanEntry[];
  invalid: FileDiagnostic[];
  /** symbolic links found (files or folders), never followed: vault-relative paths */
  symlinks: string[];
  /** regular non-hidden files that are not `*.md` memories, e.g. notes.txt: vault-relative paths */
  strays: string[];
  /** hidden entries skipped (.obsidian/, .trash/, .index/, dotfiles; the user vault's inbox/ and attachments/): count only */
  hiddenSkipped: number;
  /**
   * what killed saves left: temporary files in a scope's staging folder or in a folder of the
   * vault (`.ecc-memory-*.tmp`), and memory files with more than one hard link: vault-relative paths
   */
  leftovers: string[];
  /** editor files that are never memories (Obsidian *.canvas, *.base, *.excalidraw.md, ...): vault-relative paths */
  editorFiles: string[];
  /** bytes of memory files read */
  scannedBytes: number;
  /** false when a limit was hit or a folder could not be listed */
  complete: boolean;
  /** why the scan is incomplete, one line each */
  incompleteReasons: string[];
  /** scopes scanned, in order */
  scopes: Scope[];
}

/** Options of {@link scanVault}. */
export interface ScanOptions {
  scopes?: readonly Scope[];
  limits?: Partial<ScanLimits>;
  /** re-scan file text for suspected secrets with the one detector (default true) */
  secretCheck?: boolean;
  /** keep each file's decoded text in {@link ScanEntry.text} and {@link InvalidFile.text} (default false; doctor uses it) */
  keepText?: boolean;
}

/** A regular file found by the walk, before reading. */
export interface WalkedFile {
  scope: Scope;
  /** vault-relative, `/`-separated */
  path: string;
  absPath: string;
  /** path segments below the scope root */
  segments: string[];
  /**
   * the path to open the file by, resolved inside the folder the walk holds open (see
   * store/dir-handle.ts): valid only while `onFile` runs; later, open by `absPath` with checks
   */
  openPath?: string;
  /** size in bytes and mtime in ms, from the walk's own lstat (only when the walk was asked to stat) */
  size?: number;
  mtimeMs?: number;
}

/** Callbacks and results of {@link walkVault}. */
export interface WalkResult {
  symlinks: string[];
  strays: string[];
  hiddenSkipped: number;
  /** temporary files of killed saves (see {@link ScanResult.leftovers}) */
  leftovers: string[];
  editorFiles: string[];
  complete: boolean;
  incompleteReasons: string[];
}

/**
 * A walked file whose path and segments are built only when asked for: the freshness check of
 * every search walks the whole vault but reads the paths of only the files that changed. The
 * folder's segments are shared by all files in it.
 */
class LazyWalkedFile implements WalkedFile {
  size?: number;
  mtimeMs?: number;
  constructor(
    readonly scope: Scope,
    private readonly folder: readonly string[],
    private readonly name: string,
    readonly absPath: string,
    readonly openPath: string,
  ) {}
  get segments(): string[] {
    return [...this.folder, this.name];
  }
  get path(): string {
    return this.folder.length === 0 ? `${this.scope}/${this.name}` : `${this.scope}/${this.folder.join('/')}/${this.name}`;
  }
  /** the path below the scope folder */
  get scopePath(): string {
    return this.folder.length === 0 ? this.name : `${this.folder.join('/')}/${this.name}`;
  }
}

/**
 * Files that editors keep beside notes and that are never memories: Obsidian canvases and bases,
 * Excalidraw drawings (also stored as `*.excalidraw.md`). They are listed, never read, never errors.
 */
const EDITOR_FILE = /\.(?:canvas|base|excalidraw|excalidraw\.md|excalidraw\.json)$/i;

/** True when a file name belongs to an editor, not to the vault (see {@link EDITOR_FILE}). */
export function isEditorFile(name: string): boolean {
  return EDITOR_FILE.test(name);
}

function toVaultPath(scope: Scope, root: string, abs: string): string {
  return `${scope}/${relative(root, abs).split(sep).join('/')}`;
}

/**
 * Walks the scope folders without reading files: lists `*.md` candidates, symlinks, strays.
 * Entries are visited in sorted order (code points) for stable output.
 *
 * @param onFile called for every regular, non-hidden `*.md` file; return false to stop the walk
 * @param options.stat classify every entry with its own lstat instead of the listing's file
 *   types, and hand each file's size and mtime to `onFile` (one system call per file in total:
 *   the search index's freshness check); an entry gone before its lstat is skipped
 * @param options.onFolder with `stat`: called for the scope folder and every non-hidden folder
 *   below it, with its lstat taken before it is listed (the index records these for
 *   folder-level freshness: a folder whose mtime and inode are unchanged lists the same names)
 */
export function walkVault(
  roots: VaultRoots,
  scopes: readonly Scope[],
  limits: ScanLimits,
  onFile: (f: WalkedFile) => boolean | void,
  options: { stat?: boolean; onFolder?: (segments: readonly string[], st: Stats) => void } = {},
): WalkResult {
  const result: WalkResult = { symlinks: [], strays: [], hiddenSkipped: 0, leftovers: [], editorFiles: [], complete: true, incompleteReasons: [] };
  let visited = 0;
  let stopped = false;
  const incomplete = (reason: string) => {
    result.complete = false;
    if (!result.incompleteReasons.includes(reason)) result.incompleteReasons.push(reason);
  };

  const walk = (scope: Scope, root: string, handle: DirHandle, depth: number, segments: string[]): void => {
    if (stopped) return;
    const dir = handle.path;
    if (depth > limits.maxDepth) {
      incomplete(`folder deeper than ${limits.maxDepth} levels not scanned: ${toVaultPath(scope, root, dir)}`);
      return;
    }
    let names: Array<Dirent | string>;
    try {
      names = options.stat ? readdirSync(handle.listPath) : readdirSync(handle.listPath, { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && depth === 0) return; // a missing vault is an empty vault
      incomplete(`folder could not be read (${code ?? 'error'}): ${toVaultPath(scope, root, dir)}`);
      return;
    }
    const nameOf = (e: Dirent | string) => (typeof e === 'string' ? e : e.name);
    // UTF-16 code-unit order either way (the default sort of strings is exactly that)
    if (options.stat) (names as string[]).sort();
    else (names as Dirent[]).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of names) {
      if (stopped) return;
      if (++visited > limits.maxEntries) {
        incomplete(`more than ${limits.maxEntries} entries; the rest was not scanned`);
        stopped = true;
        return;
      }
      const name = nameOf(entry);
      // readdir names never contain a separator or . / ..: concatenation is join() without the normalising cost
      const abs = dir.endsWith(sep) ? dir + name : dir + sep + name;
      // Dirent and Stats answer the same isFile/isDirectory/isSymbolicLink questions
      const d = typeof entry === 'string' ? lstatSync(handle.child(name), { throwIfNoEntry: false }) : entry;
      if (!d) continue;
      if (name.startsWith('.')) {
        if (d.isSymbolicLink()) result.symlinks.push(toVaultPath(scope, root, abs));
        else if (depth === 0 && name === STAGING_DIR && d.isDirectory()) listStaging(handle, scope, root, abs, result.leftovers);
        else if (d.isFile() && SAVE_TEMP_FILE.test(name)) result.leftovers.push(toVaultPath(scope, root, abs));
        else if (!(depth === 0 && name === '.gitignore' && scope === 'project')) result.hiddenSkipped++;
        continue;
      }
      if (d.isSymbolicLink()) {
        result.symlinks.push(toVaultPath(scope, root, abs));
        // A link named like a memory file is one file that was not read (a lookup of its id is
        // incomplete, see operations/read.ts); any other link may be a folder of memories,
        // which was not seen: no lookup can be complete.
        // A link named like a memory file that points to a folder (statted, never opened or
        // listed) is a folder of memories all the same.
        if (!name.endsWith('.md') || linksToFolder(handle.child(name)))
          incomplete(`a symbolic link that may be a folder was not followed: ${toVaultPath(scope, root, abs)}`);
        continue;
      }
      if (d.isDirectory()) {
        // the user vault's root holds its kind folders directly: Obsidian's inbox/ and attachments/ there are not memories
        if (depth === 0 && scope === 'user' && (NON_MEMORY_FOLDERS as readonly string[]).includes(name)) {
          result.hiddenSkipped++;
          continue;
        }
        if (options.onFolder && typeof entry === 'string') options.onFolder([...segments, name], d as Stats);
        let sub: DirHandle;
        try {
          sub = handle.openDir(name);
        } catch (err) {
          // swapped for a link (or removed) since the listing: never followed
          if (isLinkRefusal(err)) result.symlinks.push(toVaultPath(scope, root, abs));
          incomplete(`folder changed while it was scanned, not entered: ${toVaultPath(scope, root, abs)}`);
          continue;
        }
        try {
          walk(scope, root, sub, depth + 1, [...segments, name]);
        } finally {
          sub.close();
        }
        continue;
      }
      if (d.isFile() && isEditorFile(name)) {
        result.editorFiles.push(toVaultPath(scope, root, abs));
        continue;
      }
      if (d.isFile() && name.endsWith('.md')) {
        const file = new LazyWalkedFile(scope, segments, name, abs, handle.child(name));
        if (typeof entry === 'string') {
          file.size = (d as Stats).size;
          file.mtimeMs = (d as Stats).mtimeMs;
        }
        if (onFile(file) === false) stopped = true;
        continue;
      }
      if (!d.isFile() && name.endsWith('.md')) {
        // a FIFO, socket or device named like a memory: never opened, so it is unreadable and
        // no lookup can be complete (save answers "exists" for that name)
        incomplete(`not a regular file, never read: ${toVaultPath(scope, root, abs)}`);
        continue;
      }
      result.strays.push(toVaultPath(scope, root, abs));
    }
  };

  for (const scope of scopes) {
    const root = scopeRoot(roots, scope);
    // A link above the scope folder (.ecc, .ecc/memory, an override root) would move the whole
    // scope elsewhere: not followed, reported by doctor, and the scan is incomplete.
    const linkedParent = guardedDirs(roots, scope)
      .slice(0, -1)
      .find((dir) => {
        try {
          return lstatSync(dir).isSymbolicLink();
        } catch {
          return false;
        }
      });
    if (linkedParent) {
      incomplete(`a folder above the ${scope} scope is a symbolic link; the scope was not scanned`);
      continue;
    }
    let st: Stats;
    try {
      st = lstatSync(root);
      if (st.isSymbolicLink()) {
        result.symlinks.push(`${scope}/`);
        incomplete(`the ${scope} scope folder is a symbolic link and was not scanned`);
        continue;
      }
    } catch {
      continue; // missing scope = empty
    }
    if (options.onFolder && options.stat) options.onFolder([], st);
    const guarded = guardedDirs(roots, scope);
    let top: DirHandle;
    try {
      top = DirHandle.open(
        dirname(guarded[0]!),
        guarded.map((d) => basename(d)),
      );
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue; // removed since the lstat: empty
      incomplete(`the ${scope} scope folder changed or could not be opened (${code ?? 'error'}); the scope was not scanned`);
      continue;
    }
    try {
      walk(scope, root, top, 0, []);
      // without procfs, uses went by path: a folder swapped meanwhile makes the scan incomplete
      if (!top.stillThere()) incomplete(`a folder of the ${scope} scope changed while it was scanned`);
    } finally {
      top.close();
    }
  }
  return result;
}

/** True when the link at `path` resolves to a folder (stat follows it; nothing is opened or listed). */
function linksToFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // dangling, a loop, no permission: one file that was not read
  }
}

/** The temporary files in a scope's staging folder (its own `.gitignore` and the saves' sweep marks aside, store/layout.ts), through the scope's handle. */
function listStaging(scopeDir: DirHandle, scope: Scope, root: string, abs: string, out: string[]): void {
  let staging: DirHandle | undefined;
  try {
    staging = scopeDir.openDir(STAGING_DIR);
    for (const name of readdirSync(staging.listPath).sort())
      if (name !== '.gitignore' && !SWEEP_MARK.test(name)) out.push(toVaultPath(scope, root, `${abs}${sep}${name}`));
  } catch {
    /* not a usable folder: nothing is staged there */
  } finally {
    staging?.close();
  }
}

/**
 * Checks that a memory sits where its frontmatter says: in its scope's folder and its kind's
 * folder (`<scope>/<kind>s/...`; deeper subfolders are allowed).
 *
 * @returns undefined when it matches, else a message
 */
export function locationProblem(memory: Memory, scope: Scope, segments: readonly string[]): string | undefined {
  if (memory.scope !== scope) return `frontmatter says scope ${memory.scope} but the file is in the ${scope} folder`;
  if (segments.length < 2) return `a memory must be inside a kind folder (${kindFolder(memory.kind)}/), not directly in ${scope}/`;
  if (segments[0] !== kindFolder(memory.kind)) {
    const folderKind = kindOfFolder(segments[0]!);
    return folderKind
      ? `frontmatter says kind ${memory.kind} but the file is in ${segments[0]}/`
      : `the file is in ${segments[0]}/, which is not a kind folder; kind ${memory.kind} belongs in ${kindFolder(memory.kind)}/`;
  }
  return undefined;
}

/**
 * Classifies the bytes of one memory file: a valid entry, or an invalid file (parse error,
 * location mismatch, suspected secret). Never throws for content; never quotes it.
 *
 * Used by {@link scanVault} for files on disk, and by doctor `--staged` for the staged copy of a
 * file (the bytes git will commit, which may differ from the working tree).
 *
 * @param f where the file is (scope, vault path, segments)
 * @param bytes its content (at most the document limit; larger content is reported, not parsed)
 * @param mtimeMs modification time to record
 */
export function scanFileBytes(
  f: WalkedFile,
  bytes: Buffer,
  mtimeMs: number,
  options: { secretCheck: boolean; keepText: boolean },
): { entry: ScanEntry; invalid?: undefined } | { entry?: undefined; invalid: FileDiagnostic } {
  const base = { scope: f.scope, path: f.path, absPath: f.absPath };
  if (bytes.length > LIMITS.documentMaxBytes) return { invalid: readFailure(f, { code: 'too-large', size: bytes.length }) };
  // Decode once: the fast path, the secret re-check and keepText share the text.
  let decoded: string | undefined;
  try {
    decoded = STRICT_UTF8.decode(bytes);
  } catch {
    decoded = undefined;
  }
  let parsed;
  try {
    parsed = (decoded !== undefined ? parseCanonicalText(decoded) : undefined) ?? parseMemory(bytes);
  } catch (err) {
    const p = isVaultError(err)
      ? describeParseError(bytes, err)
      : { code: 'invalid-document' as const, message: 'document could not be parsed', line: undefined, hint: undefined };
    return {
      invalid: {
        ...fileDiagnostic(f, p.code, p.line, p.message, p.hint ?? 'fix the file so it matches ecc.memory.v1 (see docs/format.md)'),
        ...(options.keepText ? { text: decoded ?? bytes.toString('utf8') } : {}),
      },
    };
  }
  const where = locationProblem(parsed.memory, f.scope, f.segments);
  if (where) {
    const m = parsed.memory;
    return {
      invalid: {
        ...fileDiagnostic(f, 'location-mismatch', undefined, where, `move it to ${m.scope}/${kindFolder(m.kind)}/${m.id}.md or fix the frontmatter`, m.id),
        ...(options.keepText ? { text: decoded ?? bytes.toString('utf8') } : {}),
      },
    };
  }
  const text = decoded ?? bytes.toString('utf8');
  if (options.secretCheck) {
    const labels = findSecretShapes(text);
    if (labels.length > 0) {
      return {
        invalid: {
          ...fileDiagnostic(
            f,
            'suspected-secret',
            undefined,
            `memory contains a suspected secret (${labels.join(', ')}); it is quarantined`,
            'remove the credential from the file (and rotate it: it may be in git history)',
            parsed.memory.id,
          ),
          ...(options.keepText ? { text } : {}),
        },
      };
    }
  }
  return {
    entry: {
      memory: parsed.memory,
      ...base,
      canonical: parsed.canonical,
      nonCanonical: parsed.nonCanonical,
      size: bytes.length,
      mtimeMs,
      ...(options.keepText ? { text } : {}),
    },
  };
}

/**
 * Scans the vault: every memory in the requested scopes plus diagnostics.
 *
 * @param roots the vault's roots
 * @param options scopes (default project and team), limits, secret re-check
 * @returns memories and diagnostics; never throws for file content
 */
export function scanVault(roots: VaultRoots, options: ScanOptions = {}): ScanResult {
  const scopes = options.scopes ?? (['project', 'team'] as Scope[]);
  const limits = { ...DEFAULT_SCAN_LIMITS, ...options.limits };
  const secretCheck = options.secretCheck ?? true;
  const entries: ScanEntry[] = [];
  const invalid: FileDiagnostic[] = [];
  let scannedBytes = 0;
  const extraReasons: string[] = [];
  const leftovers: string[] = [];

  const walk = walkVault(roots, scopes, limits, (f) => {
    const read = readFileSafe(f.openPath ?? f.absPath, LIMITS.documentMaxBytes);
    if (!read.ok) {
      invalid.push(readFailure(f, read));
      return;
    }
    if (scannedBytes + read.size > limits.maxTotalBytes) {
      extraReasons.push(`more than ${limits.maxTotalBytes} bytes of memories; the rest was not scanned`);
      return false;
    }
    scannedBytes += read.size;
    // a second name for the file: a killed save's temporary file (or a hard link made by hand)
    if (read.nlink > 1) leftovers.push(f.path);
    const r = scanFileBytes(f, read.bytes, read.mtimeMs, { secretCheck, keepText: Boolean(options.keepText) });
    if (r.entry) entries.push(r.entry);
    else invalid.push(r.invalid);
  });

  const reasons = [...walk.incompleteReasons, ...extraReasons];
  return {
    entries,
    invalid,
    symlinks: walk.symlinks,
    strays: walk.strays,
    hiddenSkipped: walk.hiddenSkipped,
    leftovers: [...walk.leftovers, ...leftovers],
    editorFiles: walk.editorFiles,
    scannedBytes,
    complete: walk.complete && extraReasons.length === 0,
    incompleteReasons: reasons,
    scopes: [...scopes],
  };
}

/** Every scope, in the default recall order followed by user. */
export const ALL_SCOPES: readonly Scope[] = SCOPES;
