/**
 * The text a secret scan reads, besides the text as given: what a credential looks like once the
 * disguises that a copy, an escape or a hostile writer can put inside it are taken off, with a
 * map back to the original so that a finding is redacted where it really is.
 *
 * What is undone, for each character of the original:
 * - JSON string escapes (`\uXXXX` with surrogate pairs, `\n`, `\t`, `\"`, `\\`, `\/`, ...): the
 *   reference format scans `JSON.stringify` of a record, transcripts quote tool output as JSON,
 *   and an escaped letter (`gh\u0070_...`) or an escaped line break (`...\nsk-...`, where the `n`
 *   glues onto the token) must not hide a credential;
 * - CRLF becomes LF; a lone CR, the other C0 controls except TAB and LF, DEL and the C1 controls
 *   (U+0080–U+009F) are removed: inserted inside a token or a PEM header, they split it;
 * - invisible characters are removed: Unicode category Cf (zero-width space, joiners, word
 *   joiner, BOM, soft hyphen, bidi controls, tag characters), combining marks (category M:
 *   `g\u0301hp_` is `ghp_` with an accent on top), the Hangul fillers, the Mongolian variation
 *   selectors and the Khmer inherent vowels;
 * - NFKC, for the characters whose compatibility form is ASCII: fullwidth (`ｇｈｐ＿`),
 *   mathematical (`𝐠𝐡𝐩`), circled, superscript letters and digits, ligatures (`ﬁ`). A credential
 *   is ASCII, so only those can reveal one; other text (any script) is left as it is, which keeps
 *   the scan cheap.
 *
 * Homoglyphs from other scripts (Cyrillic `а` for Latin `a`) are not folded: no Unicode
 * normalisation maps them, and a token written with them is not the credential any more.
 */

/** The scanned form of a text and the way back to the original. */
export interface ScanText {
  /** the normalised text */
  text: string;
  /**
   * The range of the original text that `[start, end)` of {@link ScanText.text} came from
   * (UTF-16 offsets; removed characters inside the range are included in it).
   */
  toSource(start: number, end: number): [number, number];
}

/** Removed outright: Cf (format), combining marks, and letters that render as nothing. */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: each mark is listed to be removed on its own
const INVISIBLE = /[\p{Cf}\p{M}\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0]/u;
const SIMPLE_ESCAPES: Record<string, number> = { '"': 0x22, '\\': 0x5c, '/': 0x2f, b: 0x08, f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09 };

/**
 * Every character of the BMP from U+00A0 that this module changes: the invisible ones above and
 * those whose NFKC form holds ASCII (computed from Unicode; a test recomputes it and fails when a
 * Node.js update changes one). Listing them lets the regex engine find what may change in one
 * native scan, so text in any script that holds none costs nothing more.
 */
export const CHANGING_RANGES = String.raw`\u00a0\u00a8\u00aa\u00ad\u00af\u00b2-\u00b4\u00b8-\u00ba\u00bc-\u00be\u0132-\u0133\u013f-\u0140\u0149\u017f\u01c4-\u01cc\u01f1-\u01f3\u02b0\u02b2-\u02b3\u02b7-\u02b8\u02d8-\u02dd\u02e1-\u02e3\u0300-\u036f\u037a\u037e\u0384-\u0385\u0483-\u0489\u0591-\u05bd\u05bf\u05c1-\u05c2\u05c4-\u05c5\u05c7\u0600-\u0605\u0610-\u061a\u061c\u064b-\u065f\u0670\u06d6-\u06dd\u06df-\u06e4\u06e7-\u06e8\u06ea-\u06ed\u070f\u0711\u0730-\u074a\u07a6-\u07b0\u07eb-\u07f3\u07fd\u0816-\u0819\u081b-\u0823\u0825-\u0827\u0829-\u082d\u0859-\u085b\u0890-\u0891\u0897-\u089f\u08ca-\u0903\u093a-\u093c\u093e-\u094f\u0951-\u0957\u0962-\u0963\u0981-\u0983\u09bc\u09be-\u09c4\u09c7-\u09c8\u09cb-\u09cd\u09d7\u09e2-\u09e3\u09fe\u0a01-\u0a03\u0a3c\u0a3e-\u0a42\u0a47-\u0a48\u0a4b-\u0a4d\u0a51\u0a70-\u0a71\u0a75\u0a81-\u0a83\u0abc\u0abe-\u0ac5\u0ac7-\u0ac9\u0acb-\u0acd\u0ae2-\u0ae3\u0afa-\u0aff\u0b01-\u0b03\u0b3c\u0b3e-\u0b44\u0b47-\u0b48\u0b4b-\u0b4d\u0b55-\u0b57\u0b62-\u0b63\u0b82\u0bbe-\u0bc2\u0bc6-\u0bc8\u0bca-\u0bcd\u0bd7\u0c00-\u0c04\u0c3c\u0c3e-\u0c44\u0c46-\u0c48\u0c4a-\u0c4d\u0c55-\u0c56\u0c62-\u0c63\u0c81-\u0c83\u0cbc\u0cbe-\u0cc4\u0cc6-\u0cc8\u0cca-\u0ccd\u0cd5-\u0cd6\u0ce2-\u0ce3\u0cf3\u0d00-\u0d03\u0d3b-\u0d3c\u0d3e-\u0d44\u0d46-\u0d48\u0d4a-\u0d4d\u0d57\u0d62-\u0d63\u0d81-\u0d83\u0dca\u0dcf-\u0dd4\u0dd6\u0dd8-\u0ddf\u0df2-\u0df3\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc\u0ec8-\u0ece\u0f18-\u0f19\u0f35\u0f37\u0f39\u0f3e-\u0f3f\u0f71-\u0f84\u0f86-\u0f87\u0f8d-\u0f97\u0f99-\u0fbc\u0fc6\u102b-\u103e\u1056-\u1059\u105e-\u1060\u1062-\u1064\u1067-\u106d\u1071-\u1074\u1082-\u108d\u108f\u109a-\u109d\u115f-\u1160\u135d-\u135f\u1712-\u1715\u1732-\u1734\u1752-\u1753\u1772-\u1773\u17b4-\u17d3\u17dd\u180b-\u180f\u1885-\u1886\u18a9\u1920-\u192b\u1930-\u193b\u1a17-\u1a1b\u1a55-\u1a5e\u1a60-\u1a7c\u1a7f\u1ab0-\u1add\u1ae0-\u1aeb\u1b00-\u1b04\u1b34-\u1b44\u1b6b-\u1b73\u1b80-\u1b82\u1ba1-\u1bad\u1be6-\u1bf3\u1c24-\u1c37\u1cd0-\u1cd2\u1cd4-\u1ce8\u1ced\u1cf4\u1cf7-\u1cf9\u1d2c\u1d2e\u1d30-\u1d31\u1d33-\u1d3a\u1d3c\u1d3e-\u1d43\u1d47-\u1d49\u1d4d\u1d4f-\u1d50\u1d52\u1d56-\u1d58\u1d5b\u1d62-\u1d65\u1d9c\u1da0\u1dbb\u1dc0-\u1dff\u1e9a\u1fbd\u1fbf-\u1fc1\u1fcd-\u1fcf\u1fdd-\u1fdf\u1fed-\u1fef\u1ffd-\u1ffe\u2000-\u200f\u2017\u2024-\u2026\u202a-\u202f\u203c\u203e\u2047-\u2049\u205f-\u2064\u2066-\u2071\u2074-\u207a\u207c-\u208a\u208c-\u208e\u2090-\u2093\u2095-\u209c\u20a8\u20d0-\u20f0\u2100-\u2103\u2105-\u2106\u2109-\u210e\u2110-\u2113\u2115-\u2116\u2119-\u211d\u2120-\u2122\u2124\u2128\u212a\u212c-\u212d\u212f-\u2131\u2133-\u2134\u2139\u213b\u2145-\u2149\u2150-\u217f\u2189\u2460-\u24ea\u2a74-\u2a76\u2c7c-\u2c7d\u2cef-\u2cf1\u2d7f\u2de0-\u2dff\u3000\u302a-\u302f\u3099-\u309c\u3164\u3200-\u321e\u3220-\u3243\u3250-\u325f\u32b1-\u32cf\u3358-\u337a\u3380-\u33ff\ua66f-\ua672\ua674-\ua67d\ua69e-\ua69f\ua6f0-\ua6f1\ua7f1-\ua7f4\ua802\ua806\ua80b\ua823-\ua827\ua82c\ua880-\ua881\ua8b4-\ua8c5\ua8e0-\ua8f1\ua8ff\ua926-\ua92d\ua947-\ua953\ua980-\ua983\ua9b3-\ua9c0\ua9e5\uaa29-\uaa36\uaa43\uaa4c-\uaa4d\uaa7b-\uaa7d\uaab0\uaab2-\uaab4\uaab7-\uaab8\uaabe-\uaabf\uaac1\uaaeb-\uaaef\uaaf5-\uaaf6\uabe3-\uabea\uabec-\uabed\ufb00-\ufb06\ufb1e\ufb29\ufc5e-\ufc63\ufdfa-\ufdfb\ufe00-\ufe10\ufe13-\ufe16\ufe19\ufe20-\ufe30\ufe33-\ufe38\ufe47-\ufe50\ufe52\ufe54-\ufe57\ufe59-\ufe5c\ufe5f-\ufe66\ufe68-\ufe6b\ufe70\ufe72\ufe74\ufe76\ufe78\ufe7a\ufe7c\ufe7e\ufeff\uff01-\uff5e\uffa0\uffe3\ufff9-\ufffb`;
let candidates: RegExp | undefined;
/** Where the text may change: a control, a character of {@link CHANGING_RANGES}, any surrogate (checked one by one), a JSON escape. */
function candidateRegex(): RegExp {
  candidates ??= new RegExp(String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f${CHANGING_RANGES}\ud800-\udfff]|\\(?:u[0-9a-fA-F]{4}|["\\/bfnrt])`, 'g');
  return candidates;
}

const folded = new Map<number, string | undefined>();
/** What a non-ASCII code point becomes ('' when removed), or undefined when it is kept (cached). */
function foldOf(cp: number): string | undefined {
  if (folded.has(cp)) return folded.get(cp);
  let out: string | undefined;
  const ch = String.fromCodePoint(cp);
  // NFKC of the common ones without the normaliser (loading its data costs milliseconds): the
  // fullwidth forms of ASCII, and the spaces
  if (cp >= 0xff01 && cp <= 0xff5e) out = String.fromCharCode(cp - 0xfee0);
  else if (cp === 0xa0 || cp === 0x3000 || (cp >= 0x2000 && cp <= 0x200a) || cp === 0x202f || cp === 0x205f) out = ' ';
  else if (cp <= 0x9f || (cp >= 0xd800 && cp <= 0xdfff) || INVISIBLE.test(ch))
    out = ''; // C1 controls, lone surrogates, invisible
  else {
    const nfkc = ch.normalize('NFKC');
    // the compatibility form may itself hold characters that are removed (U+309B: space + mark)
    if (nfkc !== ch && /[\x00-\x7f]/.test(nfkc)) out = [...nfkc].filter((c) => !INVISIBLE.test(c)).join('');
  }
  if (folded.size < 4096) folded.set(cp, out);
  return out;
}

const HEX4 = /^[0-9a-fA-F]{4}$/;
/** Not printable ASCII, TAB or LF, or a backslash: a simple class, the fastest scan there is. */
const NOT_PLAIN = /[^\t\n\x20-\x5b\x5d-\x7e]/;
const isPlain = (c: number) => (c >= 0x20 && c < 0x7f && c !== 0x5c) || c === 0x09 || c === 0x0a;

/**
 * One changed character at `at`: its replacement and how many UTF-16 units of the original it
 * covers, or undefined when it stays.
 */
function changeAt(text: string, at: number): [string, number] | undefined {
  const c = text.charCodeAt(at);
  if (c === 0x5c) {
    // a JSON escape: decode it, then treat the character like any other
    const e = text[at + 1];
    let cp: number;
    let len: number;
    if (e === 'u' && HEX4.test(text.slice(at + 2, at + 6))) {
      cp = Number.parseInt(text.slice(at + 2, at + 6), 16);
      len = 6;
      if (cp >= 0xd800 && cp <= 0xdbff && text[at + 6] === '\\' && text[at + 7] === 'u' && HEX4.test(text.slice(at + 8, at + 12))) {
        const low = Number.parseInt(text.slice(at + 8, at + 12), 16);
        if (low >= 0xdc00 && low <= 0xdfff) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          len = 12;
        }
      }
    } else if (e !== undefined && SIMPLE_ESCAPES[e] !== undefined) {
      cp = SIMPLE_ESCAPES[e]!;
      len = 2;
    } else return undefined; // a backslash that escapes nothing stays
    if (isPlain(cp) || cp === 0x5c) return [String.fromCharCode(cp), len];
    if (cp < 0x80) return ['', len]; // an escaped control (\r, \b, \f, \u0000)
    return [foldOf(cp) ?? String.fromCodePoint(cp), len];
  }
  if (c < 0x80) return ['', 1]; // CR (CRLF becomes the LF that follows), other C0 controls, DEL
  const cp = text.codePointAt(at)!;
  const f = foldOf(cp);
  return f === undefined ? undefined : [f, cp > 0xffff ? 2 : 1];
}

/**
 * Normalises `text` for a secret scan (see the module comment for what is undone).
 *
 * @param text any text
 * @returns the scanned form and its map back, or undefined when the text needs no change
 */
export function normalizeForScan(text: string): ScanText | undefined {
  if (!NOT_PLAIN.test(text)) return undefined; // plain ASCII without a backslash: nothing to undo
  // Segments of the output: [outStart, srcStart, outLength, srcLength, copied]. A copied run maps
  // offset by offset; a changed character maps as a whole.
  const segs: number[] = [];
  const parts: string[] = [];
  let outLen = 0;
  let copyFrom = 0;
  const emit = (piece: string, srcStart: number, srcLen: number, copied: boolean) => {
    segs.push(outLen, srcStart, piece.length, srcLen, copied ? 1 : 0);
    if (piece) parts.push(piece);
    outLen += piece.length;
  };
  const flush = (to: number) => {
    if (to > copyFrom) emit(text.slice(copyFrom, to), copyFrom, to - copyFrom, true);
  };
  let changed = false;
  const re = candidateRegex();
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const at = m.index;
    const change = changeAt(text, at);
    const width = change ? change[1] : text.codePointAt(at)! > 0xffff ? 2 : 1;
    re.lastIndex = at + width;
    if (!change || change[0] === text.slice(at, at + width)) continue; // kept: part of the copied run
    changed = true;
    flush(at);
    emit(change[0], at, width, false);
    copyFrom = at + width;
  }
  if (!changed) return undefined;
  flush(text.length);
  const out = parts.join('');
  const segCount = segs.length / 5;
  /** Index of the segment that holds output offset `i` (the last one starting at or before it with length > 0). */
  const segmentAt = (i: number): number => {
    let lo = 0;
    let hi = segCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (segs[mid * 5]! <= i) lo = mid;
      else hi = mid - 1;
    }
    while (lo > 0 && segs[lo * 5 + 2] === 0) lo--; // an empty (removed) segment holds no offset
    return lo;
  };
  const point = (i: number, edge: 'start' | 'end'): number => {
    const k = segmentAt(i) * 5;
    const o = segs[k]!;
    const s = segs[k + 1]!;
    if (segs[k + 4] === 1) return s + (i - o) + (edge === 'end' ? 1 : 0); // a copied run
    return edge === 'start' ? s : s + segs[k + 3]!;
  };
  return {
    text: out,
    toSource: (start, end) => {
      if (end <= start) {
        const p = start >= out.length ? text.length : point(start, 'start');
        return [p, p];
      }
      return [point(start, 'start'), point(end - 1, 'end')];
    },
  };
}
