import { ID_PATTERN } from '../document/contract.js';
import { VaultError } from '../errors.js';
import { quoteValue } from '../document/validate.js';

/**
 * Generates a memory id the way the reference tool does: `mem_<YYYYMMDD UTC>_<20 lowercase hex>`
 * (80 random bits per day, so ids never collide in practice).
 *
 * @param now the creation time
 * @param randomHex source of random hex (see Runtime)
 */
export function generateMemoryId(now: Date, randomHex: (bytes: number) => string): string {
  const day = now.toISOString().slice(0, 10).replace(/-/g, '');
  return `mem_${day}_${randomHex(10).slice(0, 20)}`;
}

/**
 * Checks an id given by a user (flag, tool argument) before it is used to build a path.
 *
 * @throws VaultError `invalid-input` when it does not match ID_PATTERN (grammar from ecc.memory.v1)
 */
export function assertMemoryId(id: string, field = 'id'): string {
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
    throw new VaultError('invalid-input', `${field}: memory id must match mem_<lowercase-id> (got ${quoteValue(String(id), 140)})`, {
      field,
      rule: `pattern ${ID_PATTERN.source}`,
      hint: 'use an id like mem_20260726_0123456789abcdef0123 (lowercase letters, digits, "_" or "-")',
    });
  }
  return id;
}
