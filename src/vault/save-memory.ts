/**
 * Saving a memory: build the values from user input, validate everything, refuse secrets, then
 * write create-only. Nothing is written unless every check passed.
 */
import { lstatSync } from 'node:fs';
import { DEFAULT_SCAN_LIMITS, walkVault } from '../scanner/scan-vault.js';
import { KINDS, LIMITS, SCHEMA_VERSION, SCOPES, utf8Bytes, type Kind, type Memory, type Scope } from '../document/contract.js';
import { parseMemory } from '../document/parse.js';
import { serializeMemory } from '../document/serialize.js';
import { checkTitle, quoteValue, validateBody } from '../document/validate.js';
import { VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import { checkFrontmatter } from '../schema/check-frontmatter.js';
import { scanDocumentForSecrets } from '../secrets/scan-secrets.js';
import { assertMemoryId, generateMemoryId } from '../store/ids.js';
import { memoryFilePath, vaultRelativePath } from '../store/layout.js';
import type { VaultRoots } from '../store/roots.js';
import { checkScope, modesFor, prepareScope, writeFileExclusive } from '../store/write-exclusive.js';
import { toFrontmatter } from '../document/contract.js';

/** What a caller may choose when saving. trust and status are never inputs. */
export interface SaveInput {
  title: string;
  body: string;
  /** default "note" */
  kind?: string | undefined;
  /** default "project" (local, never committed) */
  scope?: string | undefined;
  tags?: readonly string[] | undefined;
  links?: readonly string[] | undefined;
  /** default: ECC_MEMORY_HARNESS, then VAULT_HARNESS (empty counts as unset), then "unknown" */
  sourceHarness?: string | undefined;
  /** default ["all"] */
  targetHarnesses?: readonly string[] | undefined;
  /** explicit id; default `mem_<YYYYMMDD>_<20 hex>` */
  id?: string | undefined;
}

/** Result of a save (or of a dry run, which writes nothing). */
export interface SaveResult {
  memory: Memory;
  /** vault-relative path, `<scope>/<kind>s/<id>.md` */
  path: string;
  /** absolute path of the file */
  absPath: string;
  /** false for a dry run */
  written: boolean;
}

function uniq(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function checkChoice<T extends string>(field: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new VaultError('invalid-input', `${field}: must be one of: ${allowed.join(', ')} (got ${quoteValue(String(value), 40)})`, {
      field,
      rule: `enum ${allowed.join('|')}`,
      hint: `use one of: ${allowed.join(', ')}`,
    });
  }
  return value as T;
}

/** Normalizes a tag as typed by a person: a leading `#` is a habit, not part of the tag. */
export function normalizeTag(tag: string): string {
  const t = String(tag).trim();
  return t.startsWith('#') ? t.slice(1) : t;
}

/**
 * Builds and validates a memory from user input, without touching the disk.
 *
 * Title and body are trimmed; tags lose a leading `#`; repeated tags, links and targets are
 * collapsed. trust is always "unreviewed" and status always "active".
 *
 * @throws VaultError `invalid-input` (bad kind/scope/id), `invalid-field` (a frontmatter rule),
 *   `invalid-body` / `body-too-large` (body rules, 64 KiB), `document-too-large` (128 KiB)
 */
export function buildMemory(input: SaveInput, rt: Runtime): Memory {
  const kind = checkChoice<Kind>('kind', input.kind ?? 'note', KINDS);
  const scope = checkChoice<Scope>('scope', input.scope ?? 'project', SCOPES);
  const now = rt.now().toISOString();
  const id = input.id !== undefined ? assertMemoryId(input.id) : generateMemoryId(rt.now(), rt.randomHex);
  const title = checkTitle(typeof input.title === 'string' ? input.title.trim() : input.title);
  const body = validateBody(input.body);
  // An empty variable counts as unset (shells and CI templates often export VAR=).
  const sourceHarness = input.sourceHarness ?? (rt.env.ECC_MEMORY_HARNESS || undefined) ?? (rt.env.VAULT_HARNESS || undefined) ?? 'unknown';
  const memory: Memory = {
    schema: SCHEMA_VERSION,
    id,
    title,
    kind,
    scope,
    trust: 'unreviewed',
    status: 'active',
    sourceHarness: sourceHarness.trim(),
    targetHarnesses: uniq((input.targetHarnesses?.length ? input.targetHarnesses : ['all']).map((s) => String(s).trim())),
    tags: uniq((input.tags ?? []).map(normalizeTag)),
    links: uniq((input.links ?? []).map((s) => String(s).trim())),
    createdAt: now,
    updatedAt: now,
    body,
  };
  checkFrontmatter(toFrontmatter(memory));
  const size = utf8Bytes(serializeMemory(memory));
  if (size > LIMITS.documentMaxBytes) {
    throw new VaultError('document-too-large', `document is too large (${size} bytes, maximum ${LIMITS.documentMaxBytes})`, {
      rule: `maxBytes ${LIMITS.documentMaxBytes}`,
      hint: 'shorten the body or the lists',
    });
  }
  return memory;
}

/**
 * Refuses a memory whose serialized text contains a suspected secret.
 *
 * @throws VaultError `suspected-secret` naming the kinds and fields, never the value
 */
export async function assertNoSecrets(text: string): Promise<void> {
  const findings = await scanDocumentForSecrets(text);
  if (findings.length === 0) return;
  const what = findings.map((f) => `${f.label} in ${f.field}`).join('; ');
  throw new VaultError('suspected-secret', `refusing to save a memory containing a suspected secret (${what})`, {
    field: findings[0]!.field,
    rule: 'no credentials in memories',
    hint: 'remove the credential (describe where it is kept instead, e.g. "the key is in 1Password: Deploy/API")',
  });
}

/**
 * Refuses an id that already names a memory file in any scope or kind folder (an explicit
 * `--id` reused under another kind would otherwise create a duplicate id).
 *
 * @throws VaultError `already-exists`
 */
export function assertIdFree(roots: VaultRoots, id: string): void {
  for (const scope of SCOPES) {
    for (const kind of KINDS) {
      const file = memoryFilePath(roots, scope, kind, id);
      try {
        lstatSync(file);
      } catch {
        continue;
      }
      throw new VaultError('already-exists', `memory ${id} already exists (${vaultRelativePath(scope, kind, id)}); writes are create-only`, {
        field: 'id',
        rule: 'create-only',
        hint: 'choose another id, or supersede the memory with a new one that links to it (--link)',
      });
    }
  }
}

/**
 * Refuses an explicit id when a file named `<id>.md` exists anywhere in any scope (also in
 * subfolders such as `notes/archive/`), since two files claiming one id make reads ambiguous.
 * Lists folders only; reads no file.
 *
 * @throws VaultError `already-exists`
 */
export function assertIdUnusedAnywhere(roots: VaultRoots, id: string): void {
  const name = `${id}.md`;
  let found: string | undefined;
  walkVault(roots, SCOPES, DEFAULT_SCAN_LIMITS, (f) => {
    if (f.segments[f.segments.length - 1] === name) {
      found = f.path;
      return false;
    }
    return undefined;
  });
  if (found) {
    throw new VaultError('already-exists', `memory ${id} already exists (${found}); writes are create-only`, {
      field: 'id',
      rule: 'create-only',
      hint: 'choose another id, or supersede the memory with a new one that links to it (--link)',
    });
  }
}

/**
 * Validates and writes a new memory, create-only.
 *
 * @param roots the vault's roots
 * @param input the memory's values
 * @param rt clock, ids, environment
 * @param options `beforeWrite`: called once every check passed, right before the write (not
 *   on a dry run); it may throw to stop the save. `dryRun`: check everything (values, secrets, duplicate id, symlinks, the project
 *   .gitignore), write nothing
 * @returns the memory and where it is (or would be) written
 * @throws VaultError from {@link buildMemory}, `suspected-secret`, `already-exists`,
 *   `symlink-refused`, `gitignore-mismatch`, `io-error`
 */
export async function saveMemory(
  roots: VaultRoots,
  input: SaveInput,
  rt: Runtime,
  options: { dryRun?: boolean; beforeWrite?: (memory: Memory) => Promise<void> } = {},
): Promise<SaveResult> {
  const memory = buildMemory(input, rt);
  const text = serializeMemory(memory);
  // Belt and braces: what we write must read back to the same values, canonically.
  const back = parseMemory(text);
  if (!back.canonical || serializeMemory(back.memory) !== text) {
    throw new VaultError('invalid-input', 'memory does not round-trip through the document format', { hint: 'please report this as a bug' });
  }
  await assertNoSecrets(text);
  const absPath = memoryFilePath(roots, memory.scope, memory.kind, memory.id);
  const path = vaultRelativePath(memory.scope, memory.kind, memory.id);
  assertIdFree(roots, memory.id);
  if (input.id !== undefined) assertIdUnusedAnywhere(roots, memory.id);
  if (options.dryRun) {
    checkScope(roots, memory.scope, [memory.kind]); // symlinks and the project .gitignore, as a real save would
    return { memory, path, absPath, written: false };
  }
  checkScope(roots, memory.scope, [memory.kind]);
  // Every check has passed: now the caller may look around (e.g. for similar memories) before
  // anything is created.
  if (options.beforeWrite) await options.beforeWrite(memory);
  prepareScope(roots, memory.scope, [memory.kind]);
  writeFileExclusive(absPath, text, modesFor(memory.scope).file, () => rt.randomHex(8));
  return { memory, path, absPath, written: true };
}
