/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", Program 14(3), 1980),
 * applied to lowercase ASCII words so that "painting", "painted" and "paints" meet at "paint".
 * Index and query use the same function, so consistency matters more than linguistic accuracy.
 */

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  if (c === 'y') return i === 0 ? true : !isConsonant(w, i - 1);
  return true;
}

/** m: the number of vowel-consonant sequences in `w` (Porter's [C](VC)^m[V]). */
function measure(w: string): number {
  let m = 0;
  let i = 0;
  const n = w.length;
  while (i < n && isConsonant(w, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(w, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(w, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(w: string): boolean {
  for (let i = 0; i < w.length; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** *o: stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n < 3) return false;
  if (!isConsonant(w, n - 1) || isConsonant(w, n - 2) || !isConsonant(w, n - 3)) return false;
  const c = w[n - 1];
  return c !== 'w' && c !== 'x' && c !== 'y';
}

function replaceSuffix(w: string, rules: ReadonlyArray<readonly [string, string]>, minMeasure: number): string {
  for (const [suffix, repl] of rules) {
    if (w.endsWith(suffix)) {
      const stem = w.slice(0, -suffix.length);
      return measure(stem) > minMeasure ? stem + repl : w;
    }
  }
  return w;
}

const STEP2: ReadonlyArray<readonly [string, string]> = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
];
const STEP3: ReadonlyArray<readonly [string, string]> = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];
const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'];

/**
 * Stems one lowercase English word with the Porter algorithm. Words shorter than three letters
 * and words with anything but `a`–`z` are returned unchanged.
 */
export function stemEnglish(word: string): string {
  if (word.length < 3) return word;
  let stem = memo.get(word);
  if (stem === undefined) {
    stem = /^[a-z]+$/.test(word) ? porter(word) : word;
    // vocabularies are Zipfian: a bounded memo makes stemming nearly free
    if (memo.size >= 100_000) memo.clear();
    memo.set(word, stem);
  }
  return stem;
}

const memo = new Map<string, string>();

function porter(word: string): string {
  let w = word;
  // step 1a
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (!w.endsWith('ss') && w.endsWith('s')) w = w.slice(0, -1);
  // step 1b
  let extra = false;
  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    extra = true;
  } else if (w.endsWith('ing') && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    extra = true;
  }
  if (extra) {
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w) === 1 && endsCvc(w)) w += 'e';
  }
  // step 1c
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  // steps 2 and 3
  w = replaceSuffix(w, STEP2, 0);
  w = replaceSuffix(w, STEP3, 0);
  // step 4
  for (const suffix of STEP4) {
    if (w.endsWith(suffix)) {
      const stem = w.slice(0, -suffix.length);
      if (measure(stem) > 1 && (suffix !== 'ion' || /[st]$/.test(stem))) w = stem;
      break;
    }
  }
  // step 5
  if (w.endsWith('e')) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  if (measure(w) > 1 && endsDoubleConsonant(w) && w.endsWith('l')) w = w.slice(0, -1);
  return w;
}
