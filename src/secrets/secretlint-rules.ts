/**
 * secretlint's recommended rules (@secretlint/secretlint-rule-preset-recommend), run on a text
 * synchronously, so that the one detector serves synchronous callers (session snapshots, error
 * messages, the scanner) as well as save and doctor.
 *
 * The rules are loaded only when a text needs them: {@link SECRETLINT_TRIGGERS} are each rule's
 * own match patterns (from the rules' source, version 11.7.1), loosened, so a rule can report only
 * where one of them matches. A text in which no trigger matches, or where every match is already
 * a finding of our shapes, never loads secretlint (a hook's start-up stays lean).
 *
 * The rules run through the rule API of @secretlint/types (`create(context).file(source)`)
 * instead of @secretlint/core's `lintSource`, which is asynchronous; a test holds the two to the
 * same findings. Left out on purpose: `secretlint-rule-filter-comments`, which lets a
 * `secretlint-disable` comment in the scanned text switch detection off (a memory's author
 * must not be able to do that). The rules' messages (which quote the secret) are never built:
 * the translator hands back the message id only.
 */
import { createRequire } from 'node:module';
import type { SecretLintRuleContext, SecretLintRuleCreator, SecretLintSourceCode } from '@secretlint/types';

/** What a rule reported: which rule, and the range (UTF-16 offsets) it named. */
export interface RuleHit {
  ruleId: string;
  start: number;
  end: number;
}

/** Runs every rule on one text. */
export type RuleRunner = (content: string) => RuleHit[];

const PRESET = '@secretlint/secretlint-rule-preset-recommend';
const SKIPPED = new Set(['@secretlint/secretlint-rule-filter-comments']);

/**
 * Necessary conditions, one list per rule of the preset: where the rule reports, one of these
 * matches (a test checks it on every finding of the test corpus, and that no rule lacks a list).
 */
export const SECRETLINT_TRIGGERS: Readonly<Record<string, readonly RegExp[]>> = {
  '@secretlint/secretlint-rule-aws': [/secret_?access_?key["']?\s*(?::|=>|=)\s*["']?[A-Za-z0-9/+=]{40}/gi],
  '@secretlint/secretlint-rule-gcp': [], // reads only .json and .p12 files; ours are text
  '@secretlint/secretlint-rule-npm': [/npm_[A-Za-z0-9_]{36}/g, /:x-oauth-basic@github\.com\//g],
  '@secretlint/secretlint-rule-slack': [/(?:xox[abpor]|xapp)-/g, /hooks\.slack\.com\/services\//gi],
  '@secretlint/secretlint-rule-basicauth': [/(?:https?|ftps?):\/\/[-\w]+:[-\w]+@/g],
  '@secretlint/secretlint-rule-openai': [/T3BlbkFJ/g],
  '@secretlint/secretlint-rule-anthropic': [/sk-ant-api0\d-/g],
  '@secretlint/secretlint-rule-linear': [/lin_api_/g],
  '@secretlint/secretlint-rule-privatekey': [/-----BEGIN ?(?:(?:RSA|DSA|EC|OPENSSH|PGP) )?PRIVATE KEY/g],
  '@secretlint/secretlint-rule-sendgrid': [/SG\.\w+\.\w/g],
  '@secretlint/secretlint-rule-shopify': [/shp(?:pa|ca|at|ss)_/g],
  '@secretlint/secretlint-rule-github': [/gh[pousr]_[A-Za-z0-9_]{36}/g, /github_pat_/g],
  '@secretlint/secretlint-rule-1password': [/ops_ey/g],
  '@secretlint/secretlint-rule-database-connection-string': [/(?:mongodb(?:\+srv)?|mysqlx?|postgres(?:ql)?):\/\/[^:/\s]+:[^@/\s]+@/gi],
};

/**
 * A necessary condition of the triggers, on the lowercased text: literals, or a regex where the
 * literal would be a common word (a test checks that every trigger match meets one).
 */
export const TRIGGER_ANCHORS: ReadonlyArray<string | RegExp> = [
  /secret_?access_?key/,
  'npm_',
  'x-oauth-basic',
  'xox',
  'xapp-',
  'hooks.slack.com',
  /:\/\/[^:/\s]+:[^@/\s]+@/, // basic auth and database URLs
  't3blbkfj',
  'sk-ant-api0',
  'lin_api_',
  '-----begin',
  /sg\.\w+\.\w/,
  'shpat_',
  'shpca_',
  'shppa_',
  'shpss_',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'ops_ey',
];

/** Every trigger of every rule. */
export const ALL_TRIGGERS: readonly RegExp[] = Object.values(SECRETLINT_TRIGGERS).flat();

type Loaded = { runner: RuleRunner; ruleIds: string[] };
let loaded: Loaded | undefined;
let syncLoadFailed = false;

/** Builds the runner from the preset's rule creators. */
function makeRunner(rules: readonly SecretLintRuleCreator[]): Loaded {
  let hits: RuleHit[] = [];
  const handlers = rules
    .filter((rule) => !SKIPPED.has(rule.meta.id) && rule.meta.supportedContentTypes.some((t) => t === 'text' || t === 'all'))
    .map((rule) => {
      const ruleId = rule.meta.id;
      const context: SecretLintRuleContext = {
        sharedOptions: {},
        // the message id only: the rules' messages quote the secret, which must never be held
        createTranslator: () => ((messageId: string) => ({ message: messageId, messageId, data: undefined })) as never,
        report: (d) => void hits.push({ ruleId, start: d.range[0], end: d.range[1] }),
        ignore: () => undefined,
      };
      return { ruleId, handler: rule.create(context, {}) };
    });
  const runner: RuleRunner = (content) => {
    hits = [];
    const source: SecretLintSourceCode = {
      hasBOM: false,
      content,
      filePath: undefined,
      physicalFilePath: undefined,
      contentType: 'text',
      ext: '',
      getFilePath: () => undefined,
      getPhysicalFilePath: () => undefined,
      rangeToLocation: () => ({ start: { line: 1, column: 0 }, end: { line: 1, column: 0 } }),
    } as unknown as SecretLintSourceCode;
    for (const { handler } of handlers) {
      const done = handler.file?.(source);
      // The text rules are synchronous; one that is not (GCP's .p12 check, never for text) cannot be awaited here.
      if (done && typeof (done as Promise<void>).catch === 'function') (done as Promise<void>).catch(() => undefined);
    }
    const out = hits;
    hits = [];
    return out;
  };
  return { runner, ruleIds: handlers.map((h) => h.ruleId) };
}

function fromModule(mod: unknown): Loaded {
  const rules = (mod as { rules?: SecretLintRuleCreator[] }).rules;
  if (!Array.isArray(rules) || rules.length === 0) throw new Error(`${PRESET} exports no rules`);
  return makeRunner(rules);
}

/**
 * The rules, loaded on first use with a synchronous `require` (Node.js loads an ES module that
 * way from 20.19 and 22.12). Undefined when that is impossible (an older 22.x): the caller then
 * treats every trigger as a finding (fail closed) unless {@link loadSecretlintRulesAsync} has
 * loaded the rules since.
 */
export function secretlintRules(): Loaded | undefined {
  if (loaded || syncLoadFailed) return loaded;
  try {
    const load = typeof require === 'function' ? require : createRequire(import.meta.url);
    loaded = fromModule(load(PRESET));
  } catch {
    syncLoadFailed = true;
  }
  return loaded;
}

/** Loads the rules with `import()` (for asynchronous callers where a synchronous load failed). */
export async function loadSecretlintRulesAsync(): Promise<Loaded | undefined> {
  if (loaded) return loaded;
  try {
    loaded = fromModule(await import(PRESET));
  } catch {
    // stays unavailable: the detector fails closed
  }
  return loaded;
}

/** True once the rules are loaded (for tests and benchmarks: whether a text made us load them). */
export function secretlintLoaded(): boolean {
  return loaded !== undefined;
}
