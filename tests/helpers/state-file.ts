/**
 * The search index's state file, as tests read and plant it: one JSON line, then the overlay
 * documents' terms as bytes (src/search/index/index-store.ts, readState). A document's `terms`
 * in the line is `[start, length]` of those bytes; `termBytes` is their length.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export { STATE_FILE } from '../../src/search/index/index-store.js';

type Line = any;

/** The state file's JSON line, parsed, and the terms after it. */
export function readStateFile(file: string): { line: Line; terms: Buffer } {
  const bytes = readFileSync(file);
  const end = bytes.indexOf(10);
  return { line: JSON.parse(bytes.toString('utf8', 0, end)), terms: bytes.subarray(end + 1) };
}

/** The state file's JSON line, parsed. */
export function stateLine(file: string): Line {
  return readStateFile(file).line;
}

/** Writes a state file of `line` and `terms` (termBytes set to their length). */
export function writeStateFile(file: string, line: Line, terms: Buffer = Buffer.alloc(0)): void {
  writeFileSync(file, Buffer.concat([Buffer.from(`${JSON.stringify({ ...line, termBytes: terms.length })}\n`), terms]));
}

/** Edits the state file's JSON line in place, keeping its terms. */
export function editStateLine(file: string, edit: (line: Line) => void): void {
  const { line, terms } = readStateFile(file);
  edit(line);
  writeStateFile(file, line, terms);
}

/** Appends `text` (encoded terms, `\nterm\tf,f,f,f,f` lines) to the state file's terms; returns its `[start, length]`. */
export function appendTerms(file: string, text: string | Buffer): { line: Line; range: [number, number]; terms: Buffer } {
  const { line, terms } = readStateFile(file);
  const add = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
  return { line, range: [terms.length, add.length], terms: Buffer.concat([terms, add]) };
}

/**
 * Plants an overlay record for the file `key` (a note of the team scope with one term `widget`'s
 * field lengths) whose terms are `text`, appended to the state file's terms. `doc` overrides the
 * record's fields (its real path, size, mtime and id); `range` replaces the byte range the line
 * gives the terms.
 */
export function plantOverlayDoc(
  file: string,
  key: string,
  doc: { path?: string; size: number; mtime: number; id: string },
  text: string,
  range?: unknown,
): void {
  const planted = appendTerms(file, text);
  planted.line.overlay[key] = {
    doc: {
      path: key,
      scope: 'team',
      kind: 'note',
      status: 'active',
      tags: [],
      targets: ['all'],
      source: 'test',
      links: [],
      updated: 1,
      len: [1, 0, 0, 0, 1],
      ...doc,
      terms: range === undefined ? planted.range : range,
    },
  };
  writeStateFile(file, planted.line, planted.terms);
}
