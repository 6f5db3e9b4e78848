/**
 * `vault retire`: the one sanctioned edit of an existing memory, for people. It sets the `status`
 * of an active memory to `superseded` (a successor that links to it exists) or `rejected`, and its
 * `updated_at` to now, and changes nothing else: the file must be in canonical form, is checked in
 * full first (parse, schema, location, secrets: the fail-closed lookup of operations/read.ts), and
 * only its `status` and `updated_at` lines are replaced, so every other byte stays. The file is read
 * through folder handles (store/read-scope-file.ts) and rewritten by the one rewrite primitive
 * (`replaceFileInFolder`, store/atomic-write.ts) through a handle on its folder
 * (store/dir-handle.ts), only if the file did not change in the meantime.
 *
 * A reason is never written into the old body: it becomes a new memory (a `decision` for a
 * supersession, a `lesson` for a rejection) saved through the one save operation, linking to the
 * retired id. Not exposed through MCP or hooks: retiring is a person's act.
 */
import { LIMITS, linkedIds, type Memory, type Scope, type Status } from '../document/contract.js';
import { parseMemory } from '../document/parse.js';
import { isVaultError, VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import { findSecretShapes } from '../secrets/scan-secrets.js';
import { replaceFileInFolder } from '../store/atomic-write.js';
import { readScopeFile } from '../store/read-scope-file.js';
import type { VaultRoots } from '../store/roots.js';
import { modesFor, openScopeDir } from '../store/scope-folders.js';
import { readMemory, type ReadResult } from './read.js';
import { save, type SaveResult } from './save.js';

/** What to retire, and why. Exactly one of `supersededBy` and `rejected`. */
export interface RetireInput {
  /** the memory to retire (must be active and canonical) */
  id: string;
  /** id of the successor, which must exist and link to `id` (`links` or a `[[id]]` wikilink) */
  supersededBy?: string | undefined;
  /** retire it as rejected (no successor) */
  rejected?: boolean | undefined;
  /** recorded as a new linked memory (decision or lesson), never in the old body */
  reason?: string | undefined;
  /** who writes the reason memory (the CLI passes sourceHarnessFromEnv) */
  sourceHarness?: string | undefined;
}

/** Options of {@link retireMemory}. */
export interface RetireOptions {
  /** scopes to look the memories up in (default project and team) */
  scopes?: readonly Scope[] | undefined;
}

/** Result of {@link retireMemory}. */
export interface RetireResult {
  id: string;
  scope: Scope;
  /** vault-relative path of the retired file */
  path: string;
  absPath: string;
  status: Extract<Status, 'superseded' | 'rejected'>;
  /** the new `updated_at` (ISO 8601, UTC) */
  updatedAt: string;
  supersededBy?: string;
  /** the memory that records the reason, when `reason` was given */
  reason?: SaveResult;
}

function refuse(message: string, hint: string, rule = 'retire'): VaultError {
  return new VaultError('invalid-input', message, { rule, hint });
}

/**
 * The retired text: `text` (canonical) with its `status` and `updated_at` lines replaced.
 *
 * @throws VaultError `invalid-input` when the lines are not where the canonical form puts them
 */
export function retiredText(text: string, status: Status, updatedAt: string): string {
  const end = text.indexOf('\n---\n', 4);
  if (!text.startsWith('---\n') || end < 0) throw refuse('not a canonical memory file', 'run `vault fmt` on it first', 'canonical form');
  const head = text.slice(0, end + 1);
  const statusLine = /^status: "(?:active|rejected|superseded)"\n/m;
  const updatedLine = /^updated_at: "[^"\n]*"\n/m;
  if (!statusLine.test(head) || !updatedLine.test(head))
    throw refuse('the status or updated_at line is not in canonical form', 'run `vault fmt` on it first', 'canonical form');
  const next = head.replace(statusLine, `status: "${status}"\n`).replace(updatedLine, `updated_at: "${updatedAt}"\n`);
  return next + text.slice(end + 1);
}

function sameExcept(a: Memory, b: Memory): boolean {
  return JSON.stringify({ ...a, status: '', updatedAt: '' }) === JSON.stringify({ ...b, status: '', updatedAt: '' });
}

/** Looks up the successor; a missing one or one that does not link to `oldId` is refused with the `vault save --link` hint. */
function checkSuccessor(roots: VaultRoots, oldId: string, old: ReadResult, newId: string, scopes: readonly Scope[]): void {
  const saveHint = `save the successor so that it links to the old memory: vault save --scope ${old.scope} --kind ${old.memory.kind} --link ${oldId} --title "..." --body "..."`;
  if (newId === oldId) throw refuse(`--superseded-by ${newId} is the memory being retired`, saveHint, 'superseded-by');
  let successor: ReadResult;
  try {
    successor = readMemory(roots, newId, { scopes, fresh: true });
  } catch (err) {
    if (isVaultError(err) && err.code === 'not-found')
      throw new VaultError('not-found', `successor ${newId} was not found in scopes ${scopes.join(', ')}; nothing was changed`, {
        field: 'superseded-by',
        hint: saveHint,
      });
    throw err;
  }
  if (!linkedIds(successor.memory).includes(oldId)) {
    throw refuse(
      `successor ${newId} does not link to ${oldId} (neither in links nor as a [[${oldId}]] wikilink); nothing was changed`,
      `a successor says what it replaces: ${saveHint}`,
      'superseded-by links to the old memory',
    );
  }
}

/**
 * Retires an active memory (see the module comment).
 *
 * @param roots the vault
 * @param input the id, `supersededBy` or `rejected`, an optional reason
 * @param rt clock (the new `updated_at`), random names for the temporary file, the reason's save
 * @returns where the file is, its new status and `updated_at`, the reason memory
 * @throws VaultError `usage` (neither or both of supersededBy / rejected), `not-found`,
 *   `read-incomplete`, `ambiguous`, `invalid-input` (not canonical, already retired, successor
 *   not linking), `suspected-secret` (in the file or the reason), `symlink-refused`, `io-error`
 *   (also when the file changed while it was being retired); nothing is written on any of them
 */
export async function retireMemory(roots: VaultRoots, input: RetireInput, rt: Runtime, options: RetireOptions = {}): Promise<RetireResult> {
  if (Boolean(input.supersededBy) === Boolean(input.rejected))
    throw new VaultError('usage', 'choose exactly one of --superseded-by NEW_ID and --rejected', { hint: 'e.g. vault retire OLD_ID --superseded-by NEW_ID' });
  const scopes = options.scopes?.length ? options.scopes : (['project', 'team'] as Scope[]);
  const old = readMemory(roots, input.id, { scopes, fresh: true });
  if (!old.canonical)
    throw refuse(
      `${old.path} is not in canonical form; retire rewrites only canonical files`,
      `run \`vault fmt ${old.path}\` first, then retire it`,
      'canonical form',
    );
  if (old.memory.status !== 'active')
    throw refuse(
      `${input.id} is already retired (status: "${old.memory.status}"); nothing was changed`,
      'a memory is retired once; to record more, save a new memory that links to it',
      'retire once',
    );
  if (input.supersededBy) checkSuccessor(roots, input.id, old, input.supersededBy, scopes);

  const read = readScopeFile(roots, old.scope, old.path.slice(old.scope.length + 1), LIMITS.documentMaxBytes);
  if (!read.ok) throw new VaultError('io-error', `cannot read ${old.path} (${read.code}); nothing was changed`, { hint: 'run vault doctor' });
  const text = read.bytes.toString('utf8');
  const labels = findSecretShapes(text);
  if (labels.length > 0)
    throw new VaultError('suspected-secret', `${old.path} holds a suspected secret (${labels.join(', ')}); nothing was changed`, {
      rule: 'no secrets',
      hint: 'remove the secret first (see vault doctor)',
    });
  const status = input.rejected ? 'rejected' : 'superseded';
  const updatedAt = rt.now().toISOString();
  const next = retiredText(text, status, updatedAt);
  const before = parseMemory(read.bytes);
  const after = parseMemory(next);
  if (!before.canonical || !after.canonical || after.memory.status !== status || !sameExcept(before.memory, after.memory))
    throw new VaultError('io-error', `the retired form of ${old.path} would change more than status and updated_at; nothing was changed (please report this)`);

  // The reason is checked in full (values, secrets, links) before the old file changes, and saved after.
  const reasonInput = input.reason
    ? {
        title: input.rejected ? `Why ${input.id} was rejected` : `Why ${input.id} was superseded by ${input.supersededBy}`,
        body: input.reason,
        kind: input.rejected ? 'lesson' : 'decision',
        scope: old.scope,
        // only the retired id: a link to the (active) successor from a title that says "superseded" would read as replacing it
        links: [input.id],
        sourceHarness: input.sourceHarness,
      }
    : undefined;
  if (reasonInput) await save(roots, reasonInput, rt, { dryRun: true });

  writeOver(roots, old, read.bytes, next, rt);
  const result: RetireResult = { id: input.id, scope: old.scope, path: old.path, absPath: old.absPath, status, updatedAt };
  if (input.supersededBy) result.supersededBy = input.supersededBy;
  if (reasonInput) result.reason = await save(roots, reasonInput, rt);
  else {
    const { refreshIndexAfterWrite } = await import('./save.js');
    await refreshIndexAfterWrite(roots, [old.scope]);
  }
  return result;
}

/** Replaces the memory file with `next` through a handle on its folder (the one rewrite primitive), if it still holds `expected`. */
function writeOver(roots: VaultRoots, old: ReadResult, expected: Buffer, next: string, rt: Runtime): void {
  const segments = old.path.split('/').slice(1);
  const name = segments.pop()!;
  const dir = openScopeDir(roots, old.scope, segments);
  try {
    replaceFileInFolder(dir, name, next, expected, {
      tempPrefix: '.ecc-memory-retire-',
      randomHex: (n) => rt.randomHex(n),
      maxBytes: LIMITS.documentMaxBytes,
      defaultMode: modesFor(old.scope).file,
      wording: { shown: old.path, doing: 'retired', nothing: 'nothing was changed', again: 'vault retire' },
    });
  } finally {
    dir.close();
  }
}
