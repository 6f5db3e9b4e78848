/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", Program 14(3), 1980),
 * applied to lowercase ASCII words so that "painting", "painted" and "paints" meet at "paint".
 * Index and query use the same function, so consistency matters more than linguistic accuracy.
 */

// A cold process stems every distinct word it meets once (a save's similar check: ~3,000 words),
// mostly in the interpreter: the helpers below take an end index instead of a slice, test
// character codes instead of regular expressions, and the suffix lists are looked up by their last
// letter, in their order (the first suffix that matches is the same one).

function isVowelCode(c: number): boolean {
  return c === 97 || c === 101 || c === 105 || c === 111 || c === 117; // a e i o u
}

function isConsonant(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  if (isVowelCode(c)) return false;
  if (c === 121) return i === 0 ? true : !isConsonant(w, i - 1); // y
  return true;
}

/** m of `w`'s first `end` characters: the number of vowel-consonant sequences (Porter's [C](VC)^m[V]). */
function measure(w: string, end: number = w.length): number {
  let m = 0;
  let prev = false; // w[i - 1] is a consonant (a y at 0 is one whatever this says)
  for (let i = 0; i < end; i++) {
    const c = w.charCodeAt(i);
    const cons: boolean = isVowelCode(c) ? false : c === 121 ? i === 0 || !prev : true;
    if (cons && i > 0 && !prev) m++;
    prev = cons;
  }
  return m;
}

/** Whether `w`'s first `end` characters hold a vowel. */
function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w.charCodeAt(n - 1) === w.charCodeAt(n - 2) && isConsonant(w, n - 1);
}

/** *o: `w`'s first `n` characters end consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(w: string, n: number = w.length): boolean {
  if (n < 3) return false;
  if (!isConsonant(w, n - 1) || isConsonant(w, n - 2) || !isConsonant(w, n - 3)) return false;
  const c = w.charCodeAt(n - 1);
  return c !== 119 && c !== 120 && c !== 121; // w x y
}

type Rule = readonly [string, string];

/** Rules by the character code of their suffix's last letter, each list in the rules' order. */
function byLastLetter(rules: readonly Rule[]): Rule[][] {
  const out: Rule[][] = Array.from({ length: 128 }, () => []);
  for (const r of rules) out[r[0].charCodeAt(r[0].length - 1)]!.push(r);
  return out;
}

function replaceSuffix(w: string, rules: readonly Rule[][], minMeasure: number): string {
  const list = rules[w.charCodeAt(w.length - 1)];
  if (list === undefined) return w;
  for (let k = 0; k < list.length; k++) {
    const r = list[k]!;
    if (w.endsWith(r[0])) {
      const end = w.length - r[0].length;
      return measure(w, end) > minMeasure ? w.slice(0, end) + r[1] : w;
    }
  }
  return w;
}

const STEP2 = byLastLetter([
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
]);
const STEP3 = byLastLetter([
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
]);
const STEP4 = byLastLetter(
  ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'].map(
    (s): Rule => [s, ''],
  ),
);

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
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w, w.length - 2)) {
    w = w.slice(0, -2);
    extra = true;
  } else if (w.endsWith('ing') && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3);
    extra = true;
  }
  if (extra) {
    const last = w.charCodeAt(w.length - 1);
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (endsDoubleConsonant(w) && last !== 108 && last !== 115 && last !== 122)
      w = w.slice(0, -1); // not l s z
    else if (measure(w) === 1 && endsCvc(w)) w += 'e';
  }
  // step 1c
  if (w.endsWith('y') && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`;
  // steps 2 and 3
  w = replaceSuffix(w, STEP2, 0);
  w = replaceSuffix(w, STEP3, 0);
  // step 4: the first suffix that matches decides
  const step4 = STEP4[w.charCodeAt(w.length - 1)];
  if (step4 !== undefined)
    for (let k = 0; k < step4.length; k++) {
      const suffix = step4[k]![0];
      if (w.endsWith(suffix)) {
        const end = w.length - suffix.length;
        const before = end > 0 ? w.charCodeAt(end - 1) : -1;
        if (measure(w, end) > 1 && (suffix !== 'ion' || before === 115 || before === 116)) w = w.slice(0, end); // s t
        break;
      }
    }
  // step 5
  if (w.endsWith('e')) {
    const end = w.length - 1;
    const m = measure(w, end);
    if (m > 1 || (m === 1 && !endsCvc(w, end))) w = w.slice(0, end);
  }
  if (measure(w) > 1 && endsDoubleConsonant(w) && w.endsWith('l')) w = w.slice(0, -1);
  return w;
}
