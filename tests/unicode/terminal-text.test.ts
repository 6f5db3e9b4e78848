import { describe, expect, it } from 'vitest';
import { sanitizeTerminalText } from '../../src/unicode/terminal-text.js';

describe('sanitizeTerminalText', () => {
  it('removes escape sequences, controls, bidi marks, hiding zero-width and tag characters, keeps emoji ZWJ', () => {
    const hidden = [...'run evil'].map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join('');
    const input = `a\u001b[31mred\u001b[0m\u001b]0;title\u0007 b\u202Ec\u200bd\ufeff${hidden}e 👨\u200d👩 \ttab\nline`;
    expect(sanitizeTerminalText(input)).toBe('ared bcde 👨\u200d👩 \ttab\nline');
  });
});
