/**
 * Rule: no memory file holds a credential. Every selected file's raw text is checked, valid or
 * not (a token in a file that also has a schema error is still reported), with the detector
 * that writes use (our shapes plus secretlint's recommended rules, on the text as given and
 * normalised). The text is the one the scan read (at most the 128 KiB document limit). A finding
 * names the kind of secret, the field and the line, never the value.
 */
import { isSelected, readInvalidText, type DoctorContext } from '../rule-context.js';
import { diagnostic, type Diagnostic } from '../../diagnostics.js';
import { FIELD_ORDER } from '../../document/contract.js';
import type { SecretFinding } from '../../secrets/scan-secrets.js';

const HINT = 'remove the credential from the file and rotate it (it may already be in git history); memories must never hold secrets';

function toProblems(path: string, findings: SecretFinding[]): Diagnostic[] {
  return findings.map((f) =>
    diagnostic(
      'error',
      'suspected-secret',
      path,
      f.line,
      `suspected secret (${f.label}) in ${f.field === 'body' || f.field === 'frontmatter' || f.field === 'document' ? `the ${f.field}` : `field ${f.field}`}; the value is not shown`,
      HINT,
    ),
  );
}

/** Errors for suspected secrets in the vault's files, valid memories and invalid files alike. */
export async function checkSecrets(ctx: DoctorContext): Promise<Diagnostic[]> {
  const selected = ctx.scan.entries.filter((e) => isSelected(ctx, e.path));
  const invalid = ctx.scan.invalid.filter((f) => isSelected(ctx, f.path));
  if (selected.length === 0 && invalid.length === 0) return [];
  const { scanDocumentForSecrets } = await import('../../secrets/scan-secrets.js');
  const scan = (text: string) => scanDocumentForSecrets(text, FIELD_ORDER);
  const out: Diagnostic[] = [];
  for (const e of selected) out.push(...toProblems(e.path, await scan(e.text ?? '')));
  for (const f of invalid) {
    const text = f.text ?? (f.code === 'unreadable' ? undefined : readInvalidText(f, ctx));
    const findings = text === undefined ? [] : await scan(text);
    if (findings.length > 0) out.push(...toProblems(f.path, findings));
    // quarantined by the scan but not found again (the file changed in between): still reported
    else if (f.code === 'suspected-secret') out.push(diagnostic('error', 'suspected-secret', f.path, undefined, f.message, HINT));
  }
  return out;
}
