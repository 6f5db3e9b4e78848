/**
 * File names in text output. A name is printed as is when every character is visible and
 * harmless; otherwise (control characters, line breaks, escape sequences, bidirectional marks,
 * zero-width or tag characters, or a leading `"`) it is printed JSON-quoted with the escapes
 * visible, e.g. `"fi\u001b[1mfo.md"`, so two different names never print the same and a name
 * can neither move the cursor nor forge a report line.
 */
import { UNSAFE_IN_NAMES } from '../unicode/unsafe-characters.js';

const UNSAFE_GLOBAL = new RegExp(UNSAFE_IN_NAMES.source, 'gu');

/** True when a name needs quoting to be shown faithfully on one line. */
export function needsQuoting(name: string): boolean {
  return name.startsWith('"') || UNSAFE_IN_NAMES.test(name);
}

/**
 * A file name for text output: unchanged when it is safe, else JSON-quoted with every unsafe
 * character as a `\uXXXX` escape (UTF-16 code units, as in JSON).
 *
 * @param name a vault path or file name (untrusted)
 * @returns one line of printable text that tells different names apart
 */
export function displayName(name: string): string {
  if (!needsQuoting(name)) return name;
  return JSON.stringify(name).replace(UNSAFE_GLOBAL, (ch) =>
    Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}
