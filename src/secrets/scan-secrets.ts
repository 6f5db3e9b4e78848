/**
 * Suspected-secret detection for memory documents and any text, through the one detector
 * (detect-secrets.ts): the credential shapes of the public ecc.memory.v1 format (a superset of
 * them), the gaps of secretlint's recommended preset, and the preset's rules, on the text as given
 * and normalised. A finding names the kind of secret and where it is (frontmatter field or body),
 * never the value.
 */
import { detectSecrets, detectSecretsAsync, redactSecrets } from './detect-secrets.js';

/** One suspected secret: what kind and where. Never holds the secret itself. */
export interface SecretFinding {
  /** human label of the credential kind, e.g. "GitHub token" */
  label: string;
  /** frontmatter key, "frontmatter", "body", or "document" (a file whose frontmatter never closes) */
  field: string;
  /** 1-based line in the document */
  line: number;
  /** which detector found it: a shape id of ours (e.g. `github-token`) or the secretlint rule id */
  source: string;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function lineAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * Maps a 1-based line of a memory document to the frontmatter key on it, or "body".
 *
 * @param fields the keys that count as fields (a line of another key belongs to the field above
 *   it); undefined: every top-level key counts
 */
function fieldAt(text: string, line: number, fields: readonly string[] | undefined): string {
  const lines = text.split('\n', line);
  let closing = -1;
  for (let i = 1; i < lines.length; i++)
    if (/^---\r?$/.test(lines[i]!)) {
      closing = i;
      break;
    }
  if (line === 1 || (closing !== -1 && line > closing + 1)) return line === 1 ? 'frontmatter' : 'body';
  const m = /^([A-Za-z_]+)\s*:/.exec(lines[line - 1] ?? '');
  if (m && (fields === undefined || fields.includes(m[1]!))) return m[1]!;
  // no closing fence (an invalid file): frontmatter and body cannot be told apart
  if (closing === -1) return 'document';
  // a continuation line of a block-style value: walk up to its key
  for (let i = line - 2; i >= 1; i--) {
    const k = /^([A-Za-z_]+)\s*:/.exec(lines[i] ?? '');
    if (k) return k[1]!;
  }
  return 'frontmatter';
}

/**
 * The kinds of suspected secret in `text` (synchronous; the one detector: our shapes and
 * secretlint's recommended rules, on the text as given and normalised).
 *
 * @param text any text (a document, a transcript line)
 * @returns the labels found, de-duplicated, in the order they occur
 */
export function findSecretShapes(text: string): string[] {
  return [...new Set(detectSecrets(text).map((s) => s.label))];
}

/**
 * Replaces every suspected secret in `text` with `[REDACTED <label>]` (the one detector).
 *
 * @param text any text
 * @returns the text with secrets replaced, and how many were replaced
 */
export function redactSecretShapes(text: string): { text: string; redacted: number } {
  return redactSecrets(text);
}

/**
 * Scans a whole memory document (as it would be written) for suspected secrets: our shapes and
 * secretlint's recommended rules, on the text as given and normalised (JSON escapes, controls,
 * invisible characters, NFKC).
 *
 * @param documentText the serialized memory document
 * @param fields the frontmatter keys a finding may name (the contract's FIELD_ORDER; a finding on
 *   the line of another key names the field above it); default: any top-level key
 * @returns findings (label, field, line, source), empty when clean; never the secret values
 */
export async function scanDocumentForSecrets(documentText: string, fields?: readonly string[]): Promise<SecretFinding[]> {
  const starts = lineStarts(documentText);
  const findings: SecretFinding[] = [];
  const seen = new Set<string>();
  for (const span of await detectSecretsAsync(documentText)) {
    const line = lineAt(starts, span.start);
    const field = fieldAt(documentText, line, fields);
    const key = `${span.label}\u0000${field}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push({ label: span.label, field, line, source: span.source });
  }
  return findings;
}
