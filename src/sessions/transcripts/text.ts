/**
 * Text hygiene for everything that moves from a transcript into a session snapshot or into the
 * context injected at session start: terminal escapes and control characters removed, bidi
 * formatting removed, whitespace collapsed, length capped, credential shapes redacted.
 */

import { ANY_ESCAPE_SEQUENCE, CONTEXT_CONTROL_CHARS, HIDDEN_TEXT_CHARS } from '../../unicode/unsafe-characters.js';
import { redactSecrets } from '../../secrets/detect-secrets.js';

/** Start of the marker {@link redact} leaves in place of a secret. */
const REDACTION_OPEN = '[REDACTED ';

/**
 * Removes terminal escape sequences (ANSI CSI/OSC), control characters (keeps TAB and LF), bidi
 * controls and invisible characters (tag characters, zero-width characters, BOM).
 *
 * @param text any text
 */
export function stripControls(text: string): string {
  return text.replace(ANY_ESCAPE_SEQUENCE, '').replace(/\r\n?/g, '\n').replace(CONTEXT_CONTROL_CHARS, '').replace(HIDDEN_TEXT_CHARS, '');
}

/**
 * Cuts `text` to at most `max` characters (UTF-16 units, never splitting a surrogate pair),
 * adding `…` when something was cut. A cut never leaves part of a `[REDACTED …]` marker: a
 * marker that does not fit is dropped whole. Redact before calling this (a cut secret no longer
 * matches its pattern).
 */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  let kept = text.slice(0, end);
  const open = kept.lastIndexOf(REDACTION_OPEN);
  if (open !== -1 && !kept.includes(']', open)) kept = kept.slice(0, open).trimEnd();
  else {
    // A marker cut before its first letters ("[", "[RED") is dropped as well.
    const tail = /\[[A-Z]{0,8}$/.exec(kept);
    if (tail && REDACTION_OPEN.startsWith(tail[0]) && text.startsWith(REDACTION_OPEN, tail.index)) kept = kept.slice(0, tail.index).trimEnd();
  }
  return `${kept}…`;
}

/**
 * Cuts raw text to at most `max` characters before heavier processing, dropping the word the
 * cut falls in: the tail of a cut token no longer matches its secret pattern, so it must not
 * survive to the output (a cut private-key block still matches: its pattern runs to the end).
 *
 * @param text raw text
 * @param max characters (UTF-16 units)
 */
export function clipRaw(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, max).replace(/\S+$/, '');
}

/**
 * One clean line: controls removed, credential shapes redacted over the whole multi-line text
 * (so a private-key block is seen whole), then whitespace runs (newlines included) collapsed to
 * one space, trimmed, and only then capped at `max` characters.
 */
export function oneLine(text: string, max: number): string {
  return capText(redact(stripControls(text)).replace(/\s+/g, ' ').trim(), max);
}

/**
 * A clean paragraph: controls removed, credential shapes redacted over the whole text, then
 * trailing spaces and runs of blank lines collapsed, trimmed, and only then capped at `max`
 * characters.
 */
export function paragraph(text: string, max: number): string {
  const clean = redact(stripControls(text))
    .replace(/\t/g, '  ')
    .replace(/[ \u00a0]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return capText(clean, max);
}

/**
 * Replaces every suspected secret with `[REDACTED <label>]`: the detector that save and doctor
 * use (our shapes and secretlint's rules, on the text as given and normalised), synchronous and
 * cheap for text without a credential.
 */
export function redact(text: string): string {
  return redactSecrets(text).text;
}
