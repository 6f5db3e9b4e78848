/**
 * The frontmatter gate: the ajv validator compiled from schemas/memory.schema.json (strict mode,
 * pre-generated as standalone code so start-up never compiles a schema) decides; the hand-written
 * rules in document/validate.ts explain a rejection with field, rule and fix.
 */
import { VaultError } from '../errors.js';
import type { Frontmatter } from './contract.js';
import { validateFrontmatter } from './validate.js';
import validateSchema from '../schema/memory-validator.generated.js';

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
}

/**
 * True when `data` satisfies schemas/memory.schema.json.
 *
 * @param data any value
 * @returns whether the schema accepts it, and ajv's first error when not
 */
export function schemaAccepts(data: unknown): { ok: boolean; error?: AjvError } {
  const validate = validateSchema as unknown as ((d: unknown) => boolean) & { errors?: AjvError[] | null };
  const ok = validate(data);
  return ok ? { ok } : { ok, error: validate.errors?.[0] ?? { instancePath: '', keyword: 'unknown' } };
}

/**
 * Validates a parsed frontmatter object against ecc.memory.v1.
 *
 * @param data the value parsed from the frontmatter block
 * @returns `data` typed as {@link Frontmatter}
 * @throws VaultError (`frontmatter-not-object`, `unknown-field`, `missing-field`, `invalid-field`)
 *   naming the field and the rule
 */
export function checkFrontmatter(data: unknown): Frontmatter {
  const verdict = schemaAccepts(data);
  if (verdict.ok) return data as Frontmatter;
  validateFrontmatter(data); // throws the precise, friendly error
  // The hand-written rules accepted what the schema rejected: report the schema's reason.
  const e = verdict.error!;
  const field = e.instancePath.split('/')[1] ?? '';
  throw new VaultError('invalid-field', `${field || 'frontmatter'}: ${e.message ?? 'is invalid'}`, {
    field: field || undefined,
    rule: e.keyword,
    hint: 'see schemas/memory.schema.json',
  });
}
