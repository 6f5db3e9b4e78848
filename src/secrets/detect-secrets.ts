/**
 * The one secret detector: our credential shapes (secret-shapes.ts) and secretlint's recommended
 * rules (secretlint-rules.ts), each run on the text as given and on its normalised form
 * (normalize-text.ts: JSON escapes decoded, controls and invisible characters removed, NFKC), the
 * findings of all four runs mapped back to the text as given and merged. Save, handoff, doctor,
 * the scanner, session snapshots and every error message that may quote input use it, so what
 * one refuses another redacts.
 *
 * Synchronous and cheap for the usual text: secretlint is loaded (once, a few tens of ms) only when
 * one of its rules' own patterns matches somewhere our shapes found nothing.
 */
import { normalizeForScan, type ScanText } from './normalize-text.js';
import { ANCHOR_LITERALS, ANCHOR_REGEXES, isPlaceholder, type SecretShape, secretShapes } from './secret-shapes.js';
import { ALL_TRIGGERS, loadSecretlintRulesAsync, secretlintRules, TRIGGER_ANCHORS, type RuleRunner } from './secretlint-rules.js';

/** One suspected secret in a text. Holds where it is and what kind, never the value. */
export interface SecretSpan {
  /** UTF-16 offset of the first character of the secret */
  start: number;
  /** UTF-16 offset after its last character */
  end: number;
  /** human label of the credential kind, e.g. "GitHub token" (letters and spaces) */
  label: string;
  /** which detector found it: a shape id (`github-token`) or a secretlint rule id */
  source: string;
}

/** {@link SecretSpan.source} of a finding made because secretlint could not be loaded (fail closed). */
export const SECRETLINT_UNAVAILABLE = 'secretlint-unavailable';

/** Labels of secretlint's rules (their messages are never built: they quote the secret). */
const RULE_LABELS: Record<string, string> = {
  aws: 'AWS secret access key',
  gcp: 'Google Cloud credential',
  npm: 'npm token',
  slack: 'Slack token',
  basicauth: 'password in a URL',
  openai: 'provider API key',
  anthropic: 'provider API key',
  linear: 'Linear key',
  privatekey: 'private key',
  sendgrid: 'SendGrid key',
  shopify: 'Shopify token',
  github: 'GitHub token',
  '1password': 'OnePassword token',
  'database-connection-string': 'password in a URL',
};

function ruleLabel(ruleId: string): string {
  return RULE_LABELS[ruleId.replace(/^@secretlint\/secretlint-rule-/, '')] ?? 'suspected credential';
}

type Local = { start: number; end: number; label: string; source: string };

const escapeLiteral = (lit: string) => lit.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
/**
 * Every anchor of every shape and every trigger as one alternation, literals first: a text
 * (lowercased) it does not match has no finding, and costs one native scan. Each alternative
 * starts with a literal, so the regex engine skips most positions at once, and none of the
 * shapes is built until a text opens the gate.
 */
const GATE = new RegExp(
  [...new Set([...ANCHOR_LITERALS, ...TRIGGER_ANCHORS.filter((a): a is string => typeof a === 'string')])]
    .sort((a, b) => b.length - a.length)
    .map(escapeLiteral)
    .concat([...ANCHOR_REGEXES, ...TRIGGER_ANCHORS.filter((a): a is RegExp => a instanceof RegExp)].map((r) => `(?:${r.source})`))
    .join('|'),
);

const meets = (anchor: string | RegExp, lower: string) => (typeof anchor === 'string' ? lower.includes(anchor) : anchor.test(lower));

let anchors: ReadonlyArray<readonly string[] | RegExp> | undefined;
/** Each shape's anchor: its literals, or (a shape without one) its regex. */
function shapeAnchors(table: readonly SecretShape[]): ReadonlyArray<readonly string[] | RegExp> {
  anchors ??= table.map((s) => (typeof s.anchor === 'string' ? s.anchor.split('|') : s.anchor));
  return anchors;
}

function anchored(anchor: readonly string[] | RegExp, lower: string): boolean {
  if (anchor instanceof RegExp) return anchor.test(lower);
  for (const lit of anchor) if (lower.includes(lit)) return true;
  return false;
}

/** Our shapes on one text (offsets in that text): those whose anchor the lowercased text meets (every one when `exhaustive`). */
function shapeHits(text: string, lower: string, exhaustive: boolean): Local[] {
  const out: Local[] = [];
  const table = secretShapes();
  const anchorOf = shapeAnchors(table);
  for (let i = 0; i < table.length; i++) {
    const s = table[i]!;
    if (!exhaustive && !anchored(anchorOf[i]!, lower)) continue;
    const re = s.pattern;
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      let start = m.index;
      let end = m.index + m[0].length;
      if (s.secret) {
        for (const g of s.secret) {
          const r = m.indices?.groups?.[g];
          if (r) {
            [start, end] = r;
            break;
          }
        }
      }
      if (s.grow) for (let n = 0; n < 64 && start > 0 && s.grow.test(text[start - 1]!); n++) start--;
      if (s.keep && !s.keep(text.slice(start, end), m)) continue;
      out.push({ start, end, label: s.label, source: s.id });
    }
  }
  return out;
}

const URL_RULES = new Set(['@secretlint/secretlint-rule-basicauth', '@secretlint/secretlint-rule-database-connection-string']);
const URL_PASSWORD = /:\/\/[^\s:/?#@'"]*:([^\s/?#'"]+)@/;

/**
 * A finding of secretlint's URL rules whose password is a placeholder by our rule: their own
 * placeholder lists miss common ones (`mongodb+srv://user:<password>@...` is what MongoDB Atlas
 * shows to copy), so the union of the two detectors would refuse documentation.
 */
function vetoed(ruleId: string, found: string): boolean {
  if (!URL_RULES.has(ruleId)) return false;
  const pw = URL_PASSWORD.exec(found)?.[1];
  return pw !== undefined && isPlaceholder(pw);
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c || c === 0x0b;

/**
 * secretlint's findings on one text, when a trigger matches where `ours` found nothing. A rule's
 * range is widened to the whole run of non-space characters at each end: some name only part of
 * the secret (the AWS rule's range starts at the variable name and is as long as the key).
 */
function ruleHits(text: string, lower: string, ours: readonly Local[], rules: RuleRunner | undefined | 'unavailable', exhaustive: boolean): Local[] {
  if (!exhaustive && !TRIGGER_ANCHORS.some((a) => meets(a, lower))) return [];
  const uncovered: Array<[number, number]> = [];
  for (const t of ALL_TRIGGERS) {
    t.lastIndex = 0;
    for (let m = t.exec(text); m; m = t.exec(text)) {
      const s = m.index;
      const e = s + Math.max(1, m[0].length);
      if (!ours.some((o) => o.start < e && s < o.end)) uncovered.push([s, e]);
      if (m[0].length === 0) t.lastIndex++;
    }
  }
  if (uncovered.length === 0) return [];
  const widen = (s: number, e: number, label: string, source: string): Local => {
    while (s > 0 && !isSpace(text.charCodeAt(s - 1))) s--;
    while (e < text.length && !isSpace(text.charCodeAt(e))) e++;
    return { start: s, end: e, label, source };
  };
  const run = rules === 'unavailable' ? undefined : (rules ?? secretlintRules()?.runner);
  if (!run) return uncovered.map(([s, e]) => widen(s, e, 'suspected credential', SECRETLINT_UNAVAILABLE));
  return run(text)
    .filter((h) => !vetoed(h.ruleId, text.slice(h.start, h.end)))
    .map((h) => widen(h.start, Math.max(h.end, h.start + 1), ruleLabel(h.ruleId), h.ruleId));
}

/**
 * A line break between two token characters (base64, base64url, hex, the `_`/`-` of vendor
 * prefixes, the `.` of a JWT), with what a wrap puts around it: a continuation backslash or a
 * quoted-printable soft break (`=`) before it, the indentation of a folded YAML or wrapped line
 * after it (group `indent`).
 */
const BREAK_IN_RUN = /(?<=[A-Za-z0-9+/=_%!~*.-])[\\=]?(?:\r\n|\r|\n)(?<indent>[ \t]*)(?=[A-Za-z0-9+/=_%!~*-])/g;
/** The token run that ends just before a break: an indented continuation joins only after a long one. */
const RUN_BEFORE = /[A-Za-z0-9+/=_%!~*.-]{16}$/;
/**
 * The token run that follows a break when it reads as a word of prose (`The`, `then`, `a`, `I`),
 * not as the rest of a token: a random tail looks like that only when it is a few characters long.
 */
const WORD_RUN = /^(?:[A-Z]?[a-z]{2,}|[A-Z][a-z]|[aAI])(?![A-Za-z0-9+/=_%!~*-])/;

/**
 * The text with each line break inside a run of token characters removed: a key split by a
 * line break (a wrapped terminal line, a CRLF inserted, a JSON `\n` decoded) becomes whole again.
 * A break before a run that reads as a word of prose (`...hunter2\nThe next line`) stays: a
 * line that ends where a token ends is not a split. Findings in this view count only when they
 * span a removed break (the others are found in the text itself). A break before a finding of
 * the text itself (`starts`, offsets in `text`) stays too.
 *
 * @returns the joined text, the output offsets where a break was removed, and the way back; or
 *   undefined when there is no such break
 */
function joinBrokenRuns(text: string, starts: ReadonlySet<number>): { text: string; joins: number[]; toSource: ScanText['toSource'] } | undefined {
  BREAK_IN_RUN.lastIndex = 0;
  const cuts: Array<[number, number]> = []; // [source offset, length removed]
  for (let m = BREAK_IN_RUN.exec(text); m; m = BREAK_IN_RUN.exec(text)) {
    const after = m.index + m[0].length;
    if (starts.has(after) || WORD_RUN.test(text.slice(after, after + 64))) continue;
    if (m.groups!.indent && !RUN_BEFORE.test(text.slice(Math.max(0, m.index - 16), m.index))) continue;
    cuts.push([m.index, m[0].length]);
  }
  if (cuts.length === 0) return undefined;
  let out = '';
  let at = 0;
  const joins: number[] = [];
  for (const [start, len] of cuts) {
    out += text.slice(at, start);
    joins.push(out.length);
    at = start + len;
  }
  out += text.slice(at);
  /** Source offset of the character at output offset `i` (the breaks removed before it added back). */
  const charAt = (i: number): number => {
    let shift = 0;
    for (let k = 0; k < joins.length && joins[k]! <= i; k++) shift += cuts[k]![1];
    return i + shift;
  };
  return { text: out, joins, toSource: (a, b) => (b <= a ? [charAt(a), charAt(a)] : [charAt(a), charAt(b - 1) + 1]) };
}

/** Both detectors on the text as given and on its normalised form, in the given text's offsets. */
function detect(text: string, rules?: RuleRunner | 'unavailable', exhaustive = false): SecretSpan[] {
  const found: SecretSpan[] = [];
  /** Our shapes and secretlint's rules on one view of the text; `exhaustive` skips the anchors. */
  const scan = (view: string): Local[] => {
    const lower = view.toLowerCase(); // for the anchors only: its offsets may differ
    if (!exhaustive && !GATE.test(lower)) return [];
    const ours = shapeHits(view, lower, exhaustive);
    return [...ours, ...ruleHits(view, lower, ours, rules, exhaustive)];
  };
  let last = scan(text);
  found.push(...last);
  // Normalised: once, and again while that still changes the text (an escape inside an escape:
  // JSON quoted inside JSON, as in a tool result that holds a JSON document), at most three times.
  let view: { text: string; toSource: ScanText['toSource'] } = { text, toSource: (a, b) => [a, b] };
  for (let depth = 0; depth < 3; depth++) {
    const norm = normalizeForScan(view.text);
    if (!norm) break;
    const outer = view;
    view = { text: norm.text, toSource: (a, b) => outer.toSource(...norm.toSource(a, b)) };
    last = scan(view.text);
    for (const h of last) {
      const [start, end] = view.toSource(h.start, h.end);
      found.push({ ...h, start, end });
    }
  }
  // The last view with line breaks inside token runs removed: a key split across lines (a line
  // that starts a finding of its own is not the rest of the one before: a list of keys stays a list)
  const joined = joinBrokenRuns(view.text, new Set(last.map((h) => h.start)));
  if (joined) {
    for (const h of scan(joined.text)) {
      if (!joined.joins.some((j) => h.start < j && j < h.end)) continue;
      const [start, end] = view.toSource(...joined.toSource(h.start, h.end));
      found.push({ ...h, start, end });
    }
  }
  return merge(found);
}

/** Sorted, overlapping findings merged into one (labelled by the first). */
function merge(spans: SecretSpan[]): SecretSpan[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretSpan[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/**
 * Finds every suspected secret in `text`. Synchronous; loads secretlint's rules only when the
 * text needs them, and when they cannot be loaded synchronously (Node.js 22.0–22.11) treats
 * what their patterns match as findings (fail closed; see {@link detectSecretsAsync}).
 *
 * @param text any text (a memory document, a transcript line, an error message)
 * @param options `exhaustive`: run every shape and every secretlint trigger, skipping the anchors
 *   and the gate (slower; tests use it to show the shortcuts never change a result)
 * @returns findings sorted by position, overlapping ones merged; never the values
 */
export function detectSecrets(text: string, options: { exhaustive?: boolean } = {}): SecretSpan[] {
  return detect(text, undefined, options.exhaustive === true);
}

/**
 * Like {@link detectSecrets}, but where secretlint cannot be loaded synchronously it is loaded
 * with `import()`, so that a fail-closed finding is replaced by secretlint's own answer.
 */
export async function detectSecretsAsync(text: string): Promise<SecretSpan[]> {
  const first = detect(text);
  if (!first.some((s) => s.source === SECRETLINT_UNAVAILABLE)) return first;
  const rules = await loadSecretlintRulesAsync();
  return detect(text, rules?.runner ?? 'unavailable');
}

/** Shortest detected value whose other occurrences are redacted too (shorter ones are ordinary words too often). */
const REPEAT_MIN_CHARS = 6;

/**
 * `spans` plus every other occurrence of a detected value of at least {@link REPEAT_MIN_CHARS}
 * characters: a password found in a URL is a secret wherever else the text repeats it
 * ("use password hunter2secret"), though no shape matches it there.
 */
function withRepeats(text: string, spans: SecretSpan[]): SecretSpan[] {
  const extra: SecretSpan[] = [];
  for (const v of new Map(spans.map((s) => [text.slice(s.start, s.end), s] as const))) {
    const [value, span] = v;
    if (value.length < REPEAT_MIN_CHARS) continue;
    for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + value.length))
      if (!spans.some((s) => at < s.end && s.start < at + value.length)) extra.push({ ...span, start: at, end: at + value.length });
  }
  return extra.length ? merge([...spans, ...extra]) : spans;
}

/**
 * Replaces every suspected secret with `[REDACTED <label>]`, and every other occurrence in
 * `text` of a detected value (at least 6 characters) as well.
 *
 * @returns the redacted text and the number of secrets replaced (each occurrence counts)
 */
export function redactSecrets(text: string): { text: string; redacted: number } {
  const spans = withRepeats(text, detectSecrets(text));
  if (spans.length === 0) return { text, redacted: 0 };
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += `${text.slice(at, s.start)}[REDACTED ${s.label}]`;
    at = s.end;
  }
  return { text: out + text.slice(at), redacted: spans.length };
}
