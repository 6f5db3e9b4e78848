/**
 * Suspected-secret detection for memory documents: the credential shapes of the public
 * ecc.memory.v1 format (a superset of them) plus secretlint's recommended preset.
 * A finding names the kind of secret and where it is (frontmatter field or body), never the value.
 */
/** One suspected secret: what kind and where. Never holds the secret itself. */
export interface SecretFinding {
  /** human label of the credential kind, e.g. "GitHub token" */
  label: string;
  /** frontmatter key, or "body" */
  field: string;
  /** 1-based line in the document */
  line: number;
  /** which detector found it: "pattern" (built-in shapes) or the secretlint rule id */
  source: string;
}

/**
 * Credential shapes from the public format (provider keys, Stripe, npm, Hugging Face, GitHub
 * classic and fine-grained, Google, Slack, AWS, PEM private keys), plus a few more common ones.
 */
export const SECRET_PATTERNS: ReadonlyArray<{ label: string; pattern: RegExp }> = [
  // A token glued to a letter or digit is not matched (it is not a usable credential as written);
  // one after "_", "-", "=", quotes or punctuation is.
  { label: 'provider API key', pattern: /(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}/i },
  { label: 'Stripe key', pattern: /(?<![A-Za-z0-9])[sr]k_live_[A-Za-z0-9]{16,}/ },
  { label: 'npm token', pattern: /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{20,}/ },
  { label: 'Hugging Face token', pattern: /(?<![A-Za-z0-9])hf_[A-Za-z0-9]{20,}/ },
  { label: 'GitHub token', pattern: /(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{16,}/ },
  { label: 'GitHub token', pattern: /(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{16,}/ },
  { label: 'GitLab token', pattern: /(?<![A-Za-z0-9])glpat-[A-Za-z0-9_-]{20,}/ },
  { label: 'Google API key', pattern: /(?<![A-Za-z0-9])AIza[A-Za-z0-9_-]{16,}/ },
  { label: 'Slack token', pattern: /(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}/ },
  { label: 'Slack webhook', pattern: /hooks\.slack\.com\/services\/T[A-Za-z0-9_]+\/B[A-Za-z0-9_]+\/[A-Za-z0-9_]+/ },
  { label: 'AWS access key', pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}/ },
  // The whole block: redaction must remove the key lines, not just the BEGIN line. Without an
  // END line (a truncated paste) everything after BEGIN is treated as key material.
  { label: 'private key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*$)/ },
];

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
    if (lines[i] === '---') {
      closing = i;
      break;
    }
  if (line === 1 || (closing !== -1 && line > closing + 1)) return line === 1 ? 'frontmatter' : 'body';
  const m = /^([A-Za-z_]+)\s*:/.exec(lines[line - 1] ?? '');
  if (m && (fields === undefined || fields.includes(m[1]!))) return m[1]!;
  // a continuation line of a block-style value: walk up to its key
  for (let i = line - 2; i >= 1; i--) {
    const k = /^([A-Za-z_]+)\s*:/.exec(lines[i] ?? '');
    if (k) return k[1]!;
  }
  return 'frontmatter';
}

/**
 * Synchronous scan with the built-in credential shapes only (for hot paths such as hooks).
 *
 * @param text any text (a document, a transcript line)
 * @returns the labels found, de-duplicated, in table order
 */
export function findSecretShapes(text: string): string[] {
  const labels: string[] = [];
  for (const { label, pattern } of SECRET_PATTERNS) if (pattern.test(text) && !labels.includes(label)) labels.push(label);
  return labels;
}

/**
 * Replaces every built-in credential shape in `text` with `[REDACTED <label>]`.
 *
 * @param text any text
 * @returns the text with secrets replaced, and whether anything was replaced
 */
export function redactSecretShapes(text: string): { text: string; redacted: number } {
  let redacted = 0;
  let out = text;
  for (const { label, pattern } of SECRET_PATTERNS) {
    const g = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
    out = out.replace(g, () => {
      redacted++;
      return `[REDACTED ${label}]`;
    });
  }
  return { text: out, redacted };
}

type SecretlintRunner = (content: string) => Promise<Array<{ ruleId: string; range: readonly [number, number]; message: string }>>;
let secretlintLoading: Promise<SecretlintRunner> | undefined;

function loadSecretlint(): Promise<SecretlintRunner> {
  secretlintLoading ??= (async () => {
    const [{ lintSource }, preset] = await Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend')]);
    const config = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: preset.creator }] };
    return async (content: string) => {
      const result = await lintSource({
        source: { content, filePath: '/memory.md', ext: '.md', contentType: 'text' },
        options: { config: config as never, maskSecrets: true },
      });
      return result.messages.map((m) => ({ ruleId: m.ruleId, range: m.range, message: m.message }));
    };
  })().catch((err: unknown) => {
    secretlintLoading = undefined; // let the next scan try again and report the failure itself
    throw err;
  });
  return secretlintLoading;
}

/**
 * Starts loading secretlint in the background (about 30-150 ms of module loading), so that a
 * later {@link scanDocumentForSecrets} does not wait for it. Never throws; a failure surfaces
 * from the scan.
 */
export function preloadSecretScanner(): void {
  loadSecretlint().catch(() => undefined);
}

function labelFromRule(ruleId: string): string {
  const name = ruleId.replace(/^@secretlint\/secretlint-rule-/, '');
  const known: Record<string, string> = {
    aws: 'AWS credential',
    gcp: 'Google Cloud credential',
    github: 'GitHub token',
    npm: 'npm token',
    slack: 'Slack token',
    basicauth: 'basic-auth credential in a URL',
    privatekey: 'private key',
    openai: 'OpenAI key',
    anthropic: 'Anthropic key',
    linear: 'Linear key',
    sendgrid: 'SendGrid key',
    shopify: 'Shopify token',
    '1password': '1Password token',
    'secp256k1-privatekey': 'secp256k1 private key',
    azure: 'Azure credential',
  };
  return known[name] ?? `${name} credential`;
}

/**
 * Scans a whole memory document (as it would be written) for suspected secrets with the built-in
 * shapes and secretlint's recommended preset.
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
  const add = (label: string, offset: number, source: string) => {
    const line = lineAt(starts, offset);
    const field = fieldAt(documentText, line, fields);
    const key = `${label}\u0000${field}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push({ label, field, line, source });
  };
  for (const { label, pattern } of SECRET_PATTERNS) {
    const g = new RegExp(pattern.source, `${pattern.flags}g`);
    for (const m of documentText.matchAll(g)) add(label, m.index ?? 0, 'pattern');
  }
  const run = await loadSecretlint();
  for (const m of await run(documentText)) add(labelFromRule(m.ruleId), m.range[0], m.ruleId);
  return findings;
}
