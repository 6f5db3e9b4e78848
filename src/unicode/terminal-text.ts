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
  return (
    text
      .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g, '') // OSC
      .replace(/\u001b[P^_][^\u001b]*(?:\u001b\\)?/g, '') // DCS, PM, APC
      .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '') // CSI
      .replace(/\u001b[@-Z\\-_]/g, '') // other 2-byte escapes
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g, '')
      // Unicode tag characters render as nothing but can carry hidden text (e.g. prompt injection).
      .replace(/[\u{e0000}-\u{e007f}]/gu, '')
  );
}
