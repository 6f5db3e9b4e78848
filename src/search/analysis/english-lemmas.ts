/**
 * Irregular English verb forms folded to their base form before stemming (`went` → `go`,
 * `bought` → `buy`, `found` → `find`), so a question in the present tense meets a memory written
 * in the past. Porter stemming only strips regular suffixes. The forms come from the WordNet-based
 * list of the english-verbs-irregular package (569 verbs), turned into `form base` pairs at
 * development time (scripts/gen-irregular-forms.mjs; a test holds the committed file equal to the
 * package's list), and made into a map on first use.
 *
 * Measured on LoCoMo (docs/locomo.md): turn-level fractional R@10 0.695 → 0.706.
 */
import { IRREGULAR_FORMS } from './irregular-forms.generated.js';

let lemmas: Map<string, string> | undefined;

function load(): Map<string, string> {
  const map = new Map<string, string>();
  for (const pair of IRREGULAR_FORMS.split(',')) {
    const sp = pair.indexOf(' ');
    map.set(pair.slice(0, sp), pair.slice(sp + 1));
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
