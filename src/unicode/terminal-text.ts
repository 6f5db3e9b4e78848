import { ESCAPE_SEQUENCES, TAG_CHARS, TERMINAL_CONTROL_CHARS } from './unsafe-characters.js';

/**
 * Makes untrusted text safe to print on a terminal: removes escape sequences (CSI, OSC, DCS,
 * other ESC sequences), C0 controls except TAB and LF, DEL, C1 controls, and bidirectional
 * formatting marks (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), zero-width characters
 * that hide text (U+200B, U+2060, U+FEFF; not U+200D, which emoji use) and Unicode tag characters
 * (U+E0000–U+E007F). JSON output is never
 * passed through this: it must hold the exact values.
 *
 * @param text any text
 * @returns the text without terminal control sequences
 */
export function sanitizeTerminalText(text: string): string {
  return text
    .replace(ESCAPE_SEQUENCES.osc, '')
    .replace(ESCAPE_SEQUENCES.dcs, '')
    .replace(ESCAPE_SEQUENCES.csi, '')
    .replace(ESCAPE_SEQUENCES.other, '')
    .replace(TERMINAL_CONTROL_CHARS, '')
    .replace(TAG_CHARS, ''); // tag characters render as nothing but can carry hidden text (e.g. prompt injection)
}
