/**
 * Irregular English verb forms folded to their base form before stemming (`went` → `go`,
 * `bought` → `buy`, `found` → `find`), so a question in the present tense meets a memory written
 * in the past. Porter stemming only strips regular suffixes. The forms come from the WordNet-based
 * list of the english-verbs-irregular package (569 verbs), loaded on first use.
 *
 * Measured on LoCoMo (docs/locomo.md): turn-level fractional R@10 0.695 → 0.706.
 */
import { createRequire } from 'node:module';

let lemmas: Map<string, string> | undefined;

function load(): Map<string, string> {
  const verbs = createRequire(import.meta.url)('english-verbs-irregular/dist/verbs.json') as Record<string, string[][]>;
  const map = new Map<string, string>();
  for (const base of Object.keys(verbs)) {
    for (const forms of verbs[base]!) for (const form of forms) if (form !== base && !map.has(form)) map.set(form, base);
  }
  return map;
}

/**
 * The base form of an irregular past tense or past participle (lowercase ASCII in, as the
 * tokenizer folds it), or undefined when `word` is not one. A form of two verbs maps to the first
 * in alphabetical order (`found` → `find`, `lay` → `lie`); documents and queries fold alike.
 */
export function irregularBase(word: string): string | undefined {
  lemmas ??= load();
  return lemmas.get(word);
}

/**
 * The first characters (UTF-16 code units) of the irregular forms whose base form starts with one
 * of `baseStarts`: a word starting otherwise folds to a term starting as the word does.
 */
export function irregularFormStarts(baseStarts: ReadonlySet<number>): Set<number> {
  lemmas ??= load();
  const out = new Set<number>();
  for (const [form, base] of lemmas) if (baseStarts.has(base.charCodeAt(0))) out.add(form.charCodeAt(0));
  return out;
}
