/**
 * Reads one vault file for the index: the same checks as the scanner (safe read, parse, location,
 * built-in secret shapes), then the memory's terms per field. A file that is not a usable memory
 * becomes an {@link InvalidRecord} (a diagnostic), never an exception.
 */
import { LIMITS, type Memory } from '../../document/contract.js';
import { parseMemory } from '../../document/parse.js';
import { isVaultError } from '../../errors.js';
import { locationProblem, readFileSafe, type WalkedFile } from '../../scanner/scan-vault.js';
import { findSecretShapes } from '../../secrets/scan-secrets.js';
import { FIELDS, type InvalidRecord, type OverlayDoc } from './index-format.js';
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

/** What {@link readIndexableFile} found. */
export type IndexableFile = { doc: OverlayDoc; memory: Memory } | { invalid: InvalidRecord };

/**
 * Reads and checks one walked `*.md` file.
 *
 * @param file from the scanner's walk
 * @param relPath path below the scope folder
 */
export function readIndexableFile(file: WalkedFile, relPath: string): IndexableFile {
  const read = readFileSafe(file.absPath, LIMITS.documentMaxBytes);
  if (!read.ok) {
    const tooLarge = read.code === 'too-large';
    return {
      invalid: {
        path: relPath,
        size: read.size ?? -1,
        mtime: -1,
        kind: tooLarge ? 'invalid-document' : 'unreadable',
        code: tooLarge ? 'document-too-large' : 'unreadable',
        message: tooLarge
          ? `document is too large (${read.size ?? 'over'} bytes, maximum ${LIMITS.documentMaxBytes})`
          : `file could not be read (${read.code})`,
        hint: tooLarge ? 'a memory is at most 128 KiB; split it' : 'check the file permissions',
      },
    };
  }
  const base = { path: relPath, size: read.size, mtime: read.mtimeMs };
  let memory: Memory;
  try {
    memory = parseMemory(read.bytes).memory;
  } catch (err) {
    const e = isVaultError(err) ? err : undefined;
    return {
      invalid: {
        ...base,
        kind: 'invalid-document',
        code: e?.code ?? 'invalid-document',
        message: e?.message ?? 'document could not be parsed',
        field: e?.field,
        line: e?.line,
        hint: e?.hint,
      },
    };
  }
  const where = locationProblem(memory, file.scope, file.segments);
  if (where) {
    return {
      invalid: {
        ...base,
        kind: 'location-mismatch',
        code: 'location-mismatch',
        message: where,
        hint: `move it to ${memory.scope}/${memory.kind}s/${memory.id}.md or fix the frontmatter`,
        id: memory.id,
      },
    };
  }
  const labels = findSecretShapes(read.bytes.toString('utf8'));
  if (labels.length > 0) {
    return {
      invalid: {
        ...base,
        kind: 'suspected-secret',
        code: 'suspected-secret',
        message: `memory contains a suspected secret (${labels.join(', ')}); it is quarantined`,
        hint: 'remove the credential from the file (and rotate it: it may be in git history)',
        id: memory.id,
      },
    };
  }
  const { terms, len } = countTerms(memoryFieldTerms(memory));
  return {
    memory,
    doc: {
      ...base,
      scope: file.scope,
      id: memory.id,
      kind: memory.kind,
      status: memory.status,
      tags: memory.tags,
      targets: memory.targetHarnesses,
      updated: Date.parse(memory.updatedAt),
      len,
      terms,
    },
  };
}
