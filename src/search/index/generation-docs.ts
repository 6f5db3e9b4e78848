/**
 * A generation's documents table, kept in the columns docs.json stores them in. A search needs
 * every document's fingerprint and field lengths but the full record of only the few it returns,
 * so records are built on first use (100,000 objects per cold search otherwise).
 */
import { isDiagnosticCode, SEVERITIES } from '../../diagnostics.js';
import { KINDS, STATUSES, kindFolder, type Scope } from '../../document/contract.js';
import { BUCKET_COUNT, FIELDS, IndexUnusable, type DocRecord, type InvalidRecord, type StoredDocs } from './index-format.js';

/** The columns of docs.json without the header fields. */
export type DocColumns = Pick<
  StoredDocs,
  'path' | 'id' | 'kind' | 'status' | 'tags' | 'targets' | 'source' | 'links' | 'updated' | 'size' | 'mtime' | 'len' | 'invalid' | 'ordered'
>;

/**
 * Orders two scope-relative paths as the walk visits them: folder by folder, names in UTF-16
 * code-unit order. A generation lists its documents (and, apart, its invalid files) in this order.
 */
export function compareWalkOrder(a: string, b: string): number {
  if (a === b) return 0;
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    if (as[i] !== bs[i]) return as[i]! < bs[i]! ? -1 : 1;
  }
  return as.length - bs.length;
}

/** True when `r` has the fields of an {@link InvalidRecord} that the index code reads (path, size, mtime, code, severity, message, hint). */
export function isInvalidRecord(r: unknown): r is InvalidRecord {
  if (typeof r !== 'object' || r === null) return false;
  const v = r as Record<string, unknown>;
  return (
    typeof v.path === 'string' &&
    typeof v.size === 'number' &&
    typeof v.mtime === 'number' &&
    isDiagnosticCode(v.code) &&
    (SEVERITIES as readonly unknown[]).includes(v.severity) &&
    typeof v.message === 'string' &&
    typeof v.hint === 'string' &&
    (v.line === undefined || typeof v.line === 'number')
  );
}

/** Turns document records into columns (the canonical path `<kind>s/<id>.md` is stored as 0). */
export function toColumns(docs: readonly DocRecord[], invalid: InvalidRecord[]): DocColumns {
  return {
    path: docs.map((d) => (d.path === `${kindFolder(d.kind)}/${d.id}.md` ? 0 : d.path)),
    id: docs.map((d) => d.id),
    kind: docs.map((d) => KINDS.indexOf(d.kind)),
    status: docs.map((d) => STATUSES.indexOf(d.status)),
    tags: docs.map((d) => d.tags),
    targets: docs.map((d) => d.targets),
    source: docs.map((d) => d.source),
    links: docs.map((d) => d.links),
    updated: docs.map((d) => d.updated),
    size: docs.map((d) => d.size),
    mtime: docs.map((d) => d.mtime),
    len: docs.flatMap((d) => d.len),
    invalid,
  };
}

/** A generation's documents: columns, with records built on demand. */
export class GenerationDocs {
  /** number of documents */
  readonly count: number;
  /** terms per field, {@link FIELDS}.length numbers per document */
  readonly len: readonly number[];
  /** file size in bytes, per document */
  readonly size: readonly number[];
  /** file mtime in ms (-1: re-read on the next check), per document */
  readonly mtime: readonly number[];
  readonly invalid: InvalidRecord[];
  private readonly records: Array<DocRecord | undefined>;
  private all: DocRecord[] | undefined;
  /** undefined until first needed: true when the paths are in walk order (binary search works) */
  private ordered: boolean | undefined;
  private byPath: Map<string, number> | undefined;

  /**
   * @param buckets byte length of each bucket file (empty when the generation is only in memory)
   * @param bytes total bytes of docs.json and the bucket files
   * @throws IndexUnusable when the columns do not line up or hold an unknown kind or status
   */
  constructor(
    readonly scope: Scope,
    readonly generation: string,
    private readonly columns: DocColumns,
    readonly buckets: number[],
    readonly bytes: number,
  ) {
    const c = columns;
    const n = Array.isArray(c.id) ? c.id.length : -1;
    const cols = [c.path, c.kind, c.status, c.tags, c.targets, c.source, c.links, c.updated, c.size, c.mtime];
    if (
      n < 0 ||
      cols.some((col) => !Array.isArray(col) || col.length !== n) ||
      !Array.isArray(c.len) ||
      c.len.length !== n * FIELDS.length ||
      !Array.isArray(c.invalid) ||
      (buckets.length !== 0 && buckets.length !== BUCKET_COUNT)
    ) {
      throw new IndexUnusable('docs.json columns do not line up');
    }
    for (let i = 0; i < n; i++)
      if (KINDS[c.kind[i]!] === undefined || STATUSES[c.status[i]!] === undefined) throw new IndexUnusable('docs.json holds an unknown kind or status');
    // the walk-order merge, filters and sorting read these without further checks
    for (let i = 0; i < n; i++) {
      const p = c.path[i];
      if (
        (p !== 0 && typeof p !== 'string') ||
        typeof c.id[i] !== 'string' ||
        !Array.isArray(c.tags[i]) ||
        !Array.isArray(c.targets[i]) ||
        !Array.isArray(c.links[i]) ||
        typeof c.source[i] !== 'string' ||
        typeof c.updated[i] !== 'number' ||
        typeof c.size[i] !== 'number' ||
        typeof c.mtime[i] !== 'number'
      ) {
        throw new IndexUnusable('docs.json holds a document of an unexpected shape');
      }
    }
    if (!c.invalid.every(isInvalidRecord)) throw new IndexUnusable('docs.json holds an invalid-file record of an unexpected shape');
    this.count = n;
    this.len = c.len;
    this.size = c.size;
    this.mtime = c.mtime;
    this.invalid = c.invalid;
    this.records = new Array<DocRecord | undefined>(n);
    if (c.ordered === true) this.ordered = true;
  }

  /** Document `i`'s id (no record built). */
  id(i: number): string {
    return this.columns.id[i]!;
  }

  /** Whether document `i` links to `id` (no record built). */
  linksTo(i: number, id: string): boolean {
    return this.columns.links[i]!.includes(id);
  }

  /** Document `i`'s path below the scope folder. */
  path(i: number): string {
    const p = this.columns.path[i];
    return p === 0 ? `${kindFolder(KINDS[this.columns.kind[i]!]!)}/${this.columns.id[i]!}.md` : String(p);
  }

  /** Document `i`'s record (built once). */
  doc(i: number): DocRecord {
    let d = this.records[i];
    if (!d) {
      const c = this.columns;
      const F = FIELDS.length;
      d = this.records[i] = {
        scope: this.scope,
        path: this.path(i),
        id: c.id[i]!,
        kind: KINDS[c.kind[i]!]!,
        status: STATUSES[c.status[i]!]!,
        tags: c.tags[i]!,
        targets: c.targets[i]!,
        source: c.source[i]!,
        links: c.links[i]!,
        updated: c.updated[i]!,
        size: c.size[i]!,
        mtime: c.mtime[i]!,
        len: c.len.slice(i * F, i * F + F),
      };
    }
    return d;
  }

  /**
   * The number of the document at `path`, or -1. A binary search when the documents are in walk
   * order (as every generation is written, and says so with `ordered`); else checked once, with a
   * table of paths as the fallback (checking splits every path: a search that meets any overlay
   * entry would otherwise pay for it).
   */
  numberOf(path: string): number {
    if (this.ordered === undefined) {
      this.ordered = true;
      for (let i = 1; i < this.count && this.ordered; i++) if (compareWalkOrder(this.path(i - 1), this.path(i)) >= 0) this.ordered = false;
    }
    if (!this.ordered) {
      this.byPath ??= new Map(Array.from({ length: this.count }, (_, i) => [this.path(i), i]));
      return this.byPath.get(path) ?? -1;
    }
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = compareWalkOrder(this.path(mid), path);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Every document's record, in generation order. */
  get docs(): DocRecord[] {
    if (!this.all) this.all = Array.from({ length: this.count }, (_, i) => this.doc(i));
    return this.all;
  }
}
