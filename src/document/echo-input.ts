/**
 * The one way a message quotes what a user or a client typed (a query, an id, a flag's value, a
 * frontmatter key): suspected credentials redacted, then cut to a few dozen characters with an
 * ellipsis, and every control, bidi, zero-width or tag character written as an escape (`\n`,
 * `\u001b`, `\u202e`), so that an echo is one bounded, visible line whatever was typed. A 100 KB
 * query is not printed back; a pasted token is not repeated on the terminal or into logs.
 */
import { redactSecretShapes } from '../secrets/scan-secrets.js';
import { LONE_SURROGATE, TAG_CHARS, TERMINAL_CONTROL_CHARS, UNSAFE_CHARS } from '../unicode/unsafe-characters.js';

/** How many characters of an input a message shows by default. */
export const ECHO_MAX_CHARS = 80;

/** What is written as an escape: controls (TAB and LF too), DEL, C1, bidi marks and formatting, zero-width and tag characters, lone surrogates. */
const SHOWN_ESCAPED = new RegExp([UNSAFE_CHARS, TERMINAL_CONTROL_CHARS, TAG_CHARS, LONE_SURROGATE].map((r) => r.source).join('|'), 'gu');
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function shown(text: string, max: number, quoted: boolean): string {
  // redact a window a little wider than what is shown: a credential that starts in the shown part ends within it
  const window = text.length > max + 1024 ? text.slice(0, max + 1024) : text;
  const chars = [...redactSecretShapes(window).text];
  const more = chars.length > max || window.length < text.length;
  const escaped = chars
    .slice(0, max)
    .join('')
    .replace(quoted ? /[\\"]/g : /(?!)/g, (c) => `\\${c}`)
    .replace(SHOWN_ESCAPED, (c) => {
      const cp = c.codePointAt(0)!;
      return SHORT[c] ?? (cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`);
    });
  return escaped + (more ? '…' : '');
}

/**
 * An input as a message shows it, without quotes: credentials redacted (before the cut: a cut
 * credential would no longer look like one), at most `max` characters (code points, never half
 * a surrogate pair) and then `…`, hidden characters escaped.
 *
 * @param text what was typed, any length
 * @param max characters shown before the ellipsis (default {@link ECHO_MAX_CHARS})
 */
export function boundInput(text: string, max = ECHO_MAX_CHARS): string {
  return shown(text, max, false);
}

/**
 * {@link boundInput} in double quotes, with `"` and `\` escaped as in JSON: `"abc…"`.
 *
 * @param text what was typed, any length
 * @param max characters shown before the ellipsis (default {@link ECHO_MAX_CHARS})
 */
export function quoteInput(text: string, max = ECHO_MAX_CHARS): string {
  return `"${shown(text, max, true)}"`;
}
