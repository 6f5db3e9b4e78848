/**
 * Reads one vault file for the index: the scanner's checks (safe read, parse, location, built-in
 * secret shapes), then the memory's terms per field. A file that is not a usable memory becomes an
 * {@link InvalidRecord} (the scanner's diagnostic), never an exception.
 */
import { diagnostic } from '../../diagnostics.js';
import { LIMITS, linkedIds, type Memory } from '../../document/contract.js';
import { readFailure, scanFileBytes, type FileDiagnostic, type WalkedFile } from '../../scanner/scan-vault.js';
import type { ScopeReader } from '../../store/read-scope-file.js';
import { FIELDS, encodeOverlayTerms, type DocRecord, type InvalidRecord, type OverlayEntry } from './index-format.js';
import { tokenize } from '../analysis/tokenizer.js';

/** The terms of a memory, field by field, in {@link FIELDS} order. */
export function memoryFieldTerms(memory: Pick<Memory, 'title' | 'tags' | 'kind' | 'id' | 'body'>): string[][] {
  return [tokenize(memory.title), memory.tags.flatMap((t) => tokenize(t)), [memory.kind], tokenize(memory.id), tokenize(memory.body)];
}

/** Term → frequency per field, and the number of terms per field. */
export function countTerms(fieldTerms: string[][]): { terms: Record<string, number[]>; len: number[] } {
  const terms: Record<string, number[]> = Object.create(null);
  const len = fieldTerms.map((ts) => ts.length);
  fieldTerms.forEach((ts, f) => {
    for (const t of ts) {
      const row = (terms[t] ??= new Array<number>(FIELDS.length).fill(0));
      row[f] = row[f]! + 1;
    }
  });
  return { terms, len };
}

/** A memory's index record with its terms (term → frequency per field, in {@link FIELDS} order). */
export interface IndexedDoc extends DocRecord {
  terms: Record<string, number[]>;
}

/** What {@link readIndexableFile} found. */
export type IndexableFile = { doc: IndexedDoc; memory: Memory } | { invalid: InvalidRecord };

/** The overlay entry (state.bin) of what {@link readIndexableFile} found, with `mtime` when given (-1: racy, check again). */
export function overlayEntryOf(r: IndexableFile, mtime?: number): OverlayEntry {
  if ('invalid' in r) return { invalid: mtime === undefined ? r.invalid : { ...r.invalid, mtime } };
  return { doc: { ...r.doc, ...(mtime === undefined ? {} : { mtime }), terms: encodeOverlayTerms(r.doc.terms) } };
}

/** The index's record of a file the scanner could not use: its diagnostic, path below the scope folder, fingerprint. */
function invalidRecord(d: FileDiagnostic, relPath: string, size: number, mtime: number): InvalidRecord {
  return { ...diagnostic(d.severity, d.code, relPath, d.line, d.message, d.hint, d.column), size, mtime, ...(d.id !== undefined ? { id: d.id } : {}) };
}

/** What {@link readIndexableMemory} found: the memory and its record without terms, or why the file is not usable. */
export type IndexableMemory = { doc: Omit<DocRecord, 'len'>; memory: Memory } | { invalid: InvalidRecord };

/**
 * Reads and checks one walked `*.md` file exactly as the scanner does (scanFileBytes: safe read,
 * parse, location, built-in secret shapes); the memory's terms are not counted (a full build
 * counts them into its postings directly, see index-build.ts).
 *
 * @param file from the scanner's walk
 * @param relPath path below the scope folder
 * @param reader the file's scope's reader (store/read-scope-file.ts): the file is read through
 *   folder handles, never through a folder swapped for a link since the walk
 */
export function readIndexableMemory(file: WalkedFile, relPath: string, reader: ScopeReader): IndexableMemory {
  const read = reader.read(relPath, LIMITS.documentMaxBytes);
  if (!read.ok) return { invalid: invalidRecord(readFailure(file, read), relPath, read.size ?? -1, -1) };
  const scanned = scanFileBytes(file, read.bytes, read.mtimeMs, { secretCheck: true, keepText: false });
  if (scanned.invalid) return { invalid: invalidRecord(scanned.invalid, relPath, read.size, read.mtimeMs) };
  const memory = scanned.entry.memory;
  return {
    memory,
    doc: {
      path: relPath,
      size: read.size,
      mtime: read.mtimeMs,
      scope: file.scope,
      id: memory.id,
      kind: memory.kind,
      status: memory.status,
      tags: memory.tags,
      targets: memory.targetHarnesses,
      source: memory.sourceHarness,
      links: linkedIds(memory),
      updated: Date.parse(memory.updatedAt),
    },
  };
}

/**
 * Reads and checks one walked `*.md` file exactly as the scanner does ({@link readIndexableMemory}),
 * then counts the memory's terms.
 *
 * @param file from the scanner's walk
 * @param relPath path below the scope folder
 * @param reader the file's scope's reader (store/read-scope-file.ts)
 */
export function readIndexableFile(file: WalkedFile, relPath: string, reader: ScopeReader): IndexableFile {
  const r = readIndexableMemory(file, relPath, reader);
  if ('invalid' in r) return r;
  const { terms, len } = countTerms(memoryFieldTerms(r.memory));
  return { memory: r.memory, doc: { ...r.doc, len, terms } };
}
