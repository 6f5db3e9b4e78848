/**
 * Every set of characters the tool refuses, strips or flags, defined once. The sets are built
 * from the blocks below, so one rule reads as the blocks it names:
 *
 * - ecc.memory.v1 refuses C0/C1 controls and the bidirectional formatting characters in every
 *   string value (a body keeps TAB, LF and CR): {@link UNSAFE_CHARS}, {@link UNSAFE_BODY_CHARS}.
 * - Text printed on a terminal or injected into an agent's context loses escape sequences,
 *   controls, bidi marks and characters that hide text: {@link TERMINAL_CONTROL_CHARS},
 *   {@link CONTEXT_CONTROL_CHARS}, {@link HIDDEN_TEXT_CHARS}, {@link TAG_CHARS}.
 * - Doctor warns about invisible characters a reviewer cannot see: {@link INVISIBLE_CHARS}.
 *
 * Sources: ecc.memory.v1 (docs/format.md); Unicode Technical Standard #39 §3 and the "ASCII
 * smuggling" reports on tag characters (invisible text); ECMA-48 (escape sequences).
 */

/** C0 controls, U+0000–U+001F. */
const C0 = '\\u0000-\\u001f';
/** C0 controls but TAB, LF and CR (what a body may hold). */
const C0_BUT_TAB_LF_CR = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f';
/** C0 controls but TAB and LF (what printed text may hold). */
const C0_BUT_TAB_LF = '\\u0000-\\u0008\\u000b-\\u001f';
/** C0 controls but TAB (a single line). */
const C0_BUT_TAB = '\\u0000-\\u0008\\u000a-\\u001f';
/** DEL and the C1 controls, U+007F–U+009F. */
const DEL_C1 = '\\u007f-\\u009f';
/** The bidirectional formatting characters ecc.memory.v1 refuses: U+202A–U+202E, U+2066–U+2069. */
const BIDI_FORMATTING = '\\u202a-\\u202e\\u2066-\\u2069';
/** Bidi marks (U+061C, U+200E, U+200F): allowed in values, as in the reference; stripped from printed text. */
const BIDI_MARKS = '\\u061c\\u200e\\u200f';
/** Zero-width characters that hide text (U+200B, U+2060, U+FEFF; not U+200D, which emoji use). */
const ZERO_WIDTH = '\\u200b\\u2060\\ufeff';
/** Unicode tag characters, U+E0000–U+E007F: render as nothing, can carry hidden text. */
const TAGS = '\\u{e0000}-\\u{e007f}';
/** UTF-16 surrogates; with the `u` flag a class matches only unpaired ones. */
const SURROGATES = '\\ud800-\\udfff';

/** Characters refused in every string value of a memory (ecc.memory.v1). */
export const UNSAFE_CHARS = new RegExp(`[${C0}${DEL_C1}${BIDI_FORMATTING}]`, 'u');
/** Characters refused in a body: like {@link UNSAFE_CHARS}, but TAB, LF and CR are allowed (ecc.memory.v1). */
export const UNSAFE_BODY_CHARS = new RegExp(`[${C0_BUT_TAB_LF_CR}${DEL_C1}${BIDI_FORMATTING}]`, 'u');
/** {@link UNSAFE_BODY_CHARS} and unpaired surrogates: where a refused body breaks a rule (to name its line). */
export const UNSAFE_BODY_OR_SURROGATE = new RegExp(`[${C0_BUT_TAB_LF_CR}${DEL_C1}${BIDI_FORMATTING}${SURROGATES}]`, 'u');
/** Characters refused in a frontmatter line's value, where TAB is white space. */
export const UNSAFE_LINE_CHARS = new RegExp(`[${C0_BUT_TAB}${DEL_C1}${BIDI_FORMATTING}]`, 'u');
/** An unpaired UTF-16 surrogate (not a Unicode character; cannot be written as UTF-8). */
export const LONE_SURROGATE = new RegExp(`[${SURROGATES}]`, 'u');

/** Characters a reviewer cannot see in a title, tag or body (doctor warns). */
export const INVISIBLE_CHARS = new RegExp(`[${ZERO_WIDTH}${TAGS}]`, 'u');

/** Terminal escape sequences, each kind on its own (ECMA-48): OSC, DCS/PM/APC, CSI, other 2-byte escapes. */
export const ESCAPE_SEQUENCES = {
  osc: /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g,
  dcs: /\u001b[P^_][^\u001b]*(?:\u001b\\)?/g,
  csi: /\u001b\[[0-?]*[ -/]*[@-~]/g,
  other: /\u001b[@-Z\\-_]/g,
} as const;
/** Any terminal escape sequence (the {@link ESCAPE_SEQUENCES} as one alternation). */
export const ANY_ESCAPE_SEQUENCE = new RegExp(
  [ESCAPE_SEQUENCES.osc, ESCAPE_SEQUENCES.dcs, ESCAPE_SEQUENCES.csi, ESCAPE_SEQUENCES.other].map((r) => r.source).join('|'),
  'g',
);

/** Controls, bidi formatting and marks, and zero-width characters: removed from text printed on a terminal. */
export const TERMINAL_CONTROL_CHARS = new RegExp(`[${C0_BUT_TAB_LF}${DEL_C1}${BIDI_MARKS}${BIDI_FORMATTING}${ZERO_WIDTH}]`, 'g');
/** Unicode tag characters, global (removed from printed text). */
export const TAG_CHARS = new RegExp(`[${TAGS}]`, 'gu');
/** Controls and bidi formatting and marks: removed from what enters a session snapshot or injected context. */
export const CONTEXT_CONTROL_CHARS = new RegExp(`[${C0_BUT_TAB_LF}${DEL_C1}${BIDI_MARKS}${BIDI_FORMATTING}]`, 'g');
/**
 * Characters a reader cannot see but a model reads, removed from injected context: tag
 * characters, zero-width and invisible format characters (U+00AD, U+034F, U+115F/U+1160,
 * U+17B4/U+17B5, U+180B–U+180F, U+200B–U+200D, U+2060–U+2064, U+206A–U+206F, U+3164, U+FEFF,
 * U+FFA0), variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF) and the interlinear annotation
 * controls (U+FFF9–U+FFFB).
 */
export const HIDDEN_TEXT_CHARS =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each combining mark and variation selector is listed on purpose, to be removed on its own
  /[\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]/gu;

/**
 * Characters that make a file name print as something else or as nothing: controls, soft hyphen,
 * bidi and zero-width format characters, line and paragraph separators, interlinear annotation
 * controls, tag characters, unpaired surrogates. A name holding one is shown JSON-quoted.
 */
export const UNSAFE_IN_NAMES = new RegExp(
  `[${C0}${DEL_C1}\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ufeff\\ufff9-\\ufffb${TAGS}${SURROGATES}]`,
  'u',
);
