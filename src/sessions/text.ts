/**
 * Text hygiene for everything that moves from a transcript into a session snapshot or into the
 * context injected at session start: terminal escapes and control characters removed, bidi
 * formatting removed, whitespace collapsed, length capped, credential shapes redacted.
 */
import { redactSecretShapes } from '../secrets/scan-secrets.js';

// CSI / OSC / other ESC sequences, then C0 (except TAB, LF), DEL, C1, and bidi formatting marks.
const ESCAPES = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[P^_][^\u001b]*(?:\u001b\\)?|\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-Z\\-_]/g;
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Removes terminal escape sequences, control characters (keeps TAB and LF) and bidi marks.
 *
 * @param text any text
 */
export function stripControls(text: string): string {
  return text.replace(ESCAPES, '').replace(/\r\n?/g, '\n').replace(CONTROLS, '');
}

/**
 * Cuts `text` to at most `max` characters (UTF-16 units, never splitting a surrogate pair),
 * adding `…` when something was cut.
 */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * One clean line: controls removed, all whitespace runs (newlines included) collapsed to one
 * space, trimmed, capped at `max` characters.
 */
export function oneLine(text: string, max: number): string {
  return capText(stripControls(text).replace(/\s+/g, ' ').trim(), max);
}

/**
 * A clean paragraph: controls removed, trailing spaces and runs of blank lines collapsed,
 * trimmed, capped at `max` characters.
 */
export function paragraph(text: string, max: number): string {
  const clean = stripControls(text)
    .replace(/\t/g, '  ')
    .replace(/[ \u00a0]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return capText(clean, max);
}

/** Replaces every built-in credential shape with `[REDACTED <label>]` (sync, cheap). */
export function redact(text: string): string {
  return redactSecretShapes(text).text;
}
