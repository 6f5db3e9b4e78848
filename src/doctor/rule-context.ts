/**
 * What every doctor rule receives: the whole-vault scan (always the whole vault, so vault-wide
 * checks stay exact), the selection of files the per-file checks are limited to, and helpers
 * that find the line of a frontmatter key or of a text in a file.
 */
import { FIELD_ORDER, LIMITS, linkedIds, type Scope } from '../document/contract.js';
import type { FileDiagnostic, ScanEntry, ScanResult } from '../scanner/scan-vault.js';
import { readScopeFile } from '../store/read-scope-file.js';
import type { VaultRoots } from '../store/roots.js';

/** The files a `--changed` / `--staged` run is limited to. */
export interface Selection {
  /** vault-relative paths of changed files that still exist */
  paths: ReadonlySet<string>;
  /** ids of memories in changed or deleted files (file name stem and parsed id) */
  ids: ReadonlySet<string>;
}

/** Shared input of the rules. */
export interface DoctorContext {
  roots: VaultRoots;
  scopes: readonly Scope[];
  scan: ScanResult;
  /** undefined = every file is selected */
  selection: Selection | undefined;
  /** check the search index's freshness */
  checkIndex: boolean;
  /** entries by id (several when an id is claimed twice) */
  byId: ReadonlyMap<string, ScanEntry[]>;
  /** vault paths of sync-conflict copies (reported by their own rule, skipped by duplicate-id) */
  conflictCopies: ReadonlySet<string>;
  /** `--staged`: the staged content of changed files, which replaces the working-tree copy */
  contents: ReadonlyMap<string, Buffer>;
  /** the adapter's clock (ms since the epoch) for age rules; undefined: they are skipped */
  nowMs: number | undefined;
  /** days after which an active handoff is stale (default 30) */
  handoffStaleDays: number;
}

/** True when per-file checks apply to `path` (no selection, or the file is selected). */
export function isSelected(ctx: DoctorContext, path: string): boolean {
  return ctx.selection === undefined || ctx.selection.paths.has(path);
}

/** Line (1-based) of each frontmatter key in a byte-exact canonical document. */
const CANONICAL_KEY_LINE = new Map<string, number>(FIELD_ORDER.map((k, i) => [k, i + 2]));

/** Splits text into lines as the parser sees them (BOM dropped, CRLF = one line break). */
function linesOf(text: string): string[] {
  return (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split(/\r?\n/);
}

/**
 * Line of a frontmatter key in a memory file.
 *
 * @param key a frontmatter key (snake_case)
 * @returns the 1-based line, or undefined when the key is not on a line of its own
 */
export function keyLineIn(text: string | undefined, canonical: boolean, key: string): number | undefined {
  if (canonical || text === undefined) return CANONICAL_KEY_LINE.get(key);
  const lines = linesOf(text);
  for (let i = 1; i < lines.length && lines[i] !== '---'; i++) {
    const m = /^["']?([A-Za-z_]+)["']?\s*:/.exec(lines[i]!);
    if (m && m[1] === key) return i + 1;
  }
  return undefined;
}

/** Line of a frontmatter key of a scanned entry. */
export function keyLine(entry: ScanEntry, key: string): number | undefined {
  return keyLineIn(entry.text, entry.canonical, key);
}

/** Line of the first occurrence of `needle` in the body of an entry (after the frontmatter). */
export function bodyLineOf(entry: ScanEntry, needle: string): number | undefined {
  if (entry.text === undefined) return undefined;
  const lines = linesOf(entry.text);
  let i = 1;
  while (i < lines.length && lines[i] !== '---') i++;
  for (i++; i < lines.length; i++) if (lines[i]!.includes(needle)) return i + 1;
  return undefined;
}

/**
 * Re-reads an invalid file's text (bounded, no symlinks, through the scope's folder handles:
 * store/read-scope-file.ts) for rules that need a line number. Returns undefined when it cannot
 * be read; the text is used for locating, never printed.
 */
export function readInvalidText(file: FileDiagnostic, ctx: DoctorContext): string | undefined {
  const staged = ctx.contents.get(file.path);
  if (staged) return staged.toString('utf8');
  const r = readScopeFile(ctx.roots, file.scope, file.path.slice(file.scope.length + 1), LIMITS.documentMaxBytes);
  return r.ok ? r.bytes.toString('utf8') : undefined;
}

/** The id a memory file name suggests (`<id>.md`), before any conflict suffix. */
export function idFromFileName(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.endsWith('.md') ? base.slice(0, -3) : base;
}

const linkCache = new WeakMap<ScanEntry, string[]>();

/** The ids an entry links to (frontmatter links and body wikilinks), computed once per entry. */
export function linksOf(entry: ScanEntry): string[] {
  let ids = linkCache.get(entry);
  if (!ids) {
    ids = linkedIds(entry.memory);
    linkCache.set(entry, ids);
  }
  return ids;
}
