import { describe, expect, it } from 'vitest';
import { findSecretShapes, redactSecretShapes } from '../../src/secrets/scan-secrets.js';

const KEY_BODY = 'MIICXAIBAAKBgQC7vbqajDw4o6gJy8UtmIbkcpnkO3Kwc4qsEnSZp/TR+fQi62F7\nRbFxRRsN6tqFw4Zr2p8x0Gk1ZrqGr1KXZc7IKg==';

describe('secret redaction covers the whole credential', () => {
  it('redacts every line of a PEM private key block, not only the BEGIN line', () => {
    const text = `before\n-----BEGIN RSA PRIVATE KEY-----\n${KEY_BODY}\n-----END RSA PRIVATE KEY-----\nafter`;
    const out = redactSecretShapes(text);
    expect(out.text).toBe('before\n[REDACTED private key]\nafter');
    expect(out.text).not.toContain('MIIC');
  });

  it('treats everything after BEGIN as key material when END is missing (a cut paste)', () => {
    const out = redactSecretShapes(`key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_BODY}`);
    expect(out.text).toBe('key:\n[REDACTED private key]');
  });

  it('finds tokens glued to punctuation or underscores, but not inside ordinary words', () => {
    expect(findSecretShapes('x=_sk-proj-abcdefghijklmnopqrstu')).toEqual(['provider API key']);
    expect(findSecretShapes('"AKIAZ7QRSTUVWXYZ2345X"')).toEqual(['AWS access key']);
    expect(findSecretShapes('(ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8)')).toEqual(['GitHub token']);
    expect(findSecretShapes('task-aaaaaaaaaaaaaaaaaaaaaaaaaaaa')).toEqual([]);
  });
});
