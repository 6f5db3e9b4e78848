/**
 * Rule: no memory file holds a credential. Existing files are checked with the same detectors as
 * writes (built-in credential shapes plus secretlint's recommended preset). A finding names the
 * kind of secret, the field and the line, never the value.
 *
 * For speed, secretlint first runs over the selected files joined in chunks; only files with a hit
 * are scanned again on their own to get the exact field and line.
 */
import { isSelected, readInvalidText, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';
import { FIELD_ORDER } from '../../document/contract.js';
import type { ScanEntry } from '../../scanner/scan-vault.js';
import type { SecretFinding } from '../../secrets/scan-secrets.js';

/** Characters per secretlint batch: big enough to amortise its per-call cost, small enough to stay cheap. */
const CHUNK_CHARS = 1_000_000;

const HINT = 'remove the credential from the file and rotate it (it may already be in git history); memories must never hold secrets';

function toProblems(path: string, findings: SecretFinding[]): Diagnostic[] {
  return findings.map((f) =>
    diagnostic(
      'error',
      'suspected-secret',
      path,
      f.line,
      `suspected secret (${f.label}) in ${f.field === 'body' ? 'the body' : f.field === 'frontmatter' ? 'the frontmatter' : `field ${f.field}`}; the value is not shown`,
      HINT,
    ),
  );
}

/** Finds which entries have a secretlint or pattern hit, by scanning them in large joined chunks. */
async function entriesWithHits(entries: ScanEntry[], scan: (text: string) => Promise<SecretFinding[]>): Promise<ScanEntry[]> {
  const hits = new Set<ScanEntry>();
  let i = 0;
  while (i < entries.length) {
    const chunk: ScanEntry[] = [];
    const starts: number[] = [];
    let size = 0;
    let line = 1;
    while (i < entries.length && (chunk.length === 0 || size < CHUNK_CHARS)) {
      const e = entries[i++]!;
      const text = e.text ?? '';
      chunk.push(e);
      starts.push(line);
      size += text.length + 1;
      line += text.split('\n').length; // each text ends with "\n", joined by "\n": one blank line between
    }
    const findings = await scan(chunk.map((e) => e.text ?? '').join('\n'));
    for (const f of findings) {
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= f.line) lo = mid;
        else hi = mid - 1;
      }
      hits.add(chunk[lo]!);
      // a match spanning two files would be attributed to the first: re-scan the next one too
      if (chunk[lo + 1]) hits.add(chunk[lo + 1]!);
    }
  }
  return [...hits];
}

/** Errors for suspected secrets in existing memory files. */
export async function checkSecrets(ctx: DoctorContext): Promise<Diagnostic[]> {
  const selected = ctx.scan.entries.filter((e) => isSelected(ctx, e.path));
  const quarantined = ctx.scan.invalid.filter((f) => f.code === 'suspected-secret' && isSelected(ctx, f.path));
  if (selected.length === 0 && quarantined.length === 0) return [];
  const { scanDocumentForSecrets } = await import('../../secrets/scan-secrets.js');
  const scan = (text: string) => scanDocumentForSecrets(text, FIELD_ORDER);
  const out: Diagnostic[] = [];
  for (const e of await entriesWithHits(selected, scan)) {
    out.push(...toProblems(e.path, await scan(e.text ?? '')));
  }
  for (const f of quarantined) {
    const text = readInvalidText(f, ctx);
    const findings = text === undefined ? [] : await scan(text);
    if (findings.length > 0) out.push(...toProblems(f.path, findings));
    else out.push(diagnostic('error', 'suspected-secret', f.path, undefined, f.message, HINT));
  }
  return out;
}
