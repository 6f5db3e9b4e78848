/**
 * The save operation: one function, `save`, behind `vault save`, `vault handoff`, `vault new` and
 * the MCP tool `memory_save`. It validates the values, refuses secrets, checks the id is free and
 * the scope folders safe, looks for similar memories (and with `unique` refuses a duplicate),
 * writes the file create-only, then refreshes the search index. It reads no environment: each
 * adapter maps its own arguments (and its defaults, see {@link sourceHarnessFromEnv}) to a
 * {@link SaveInput}. Nothing is written unless every check passed.
 */
import { lstatSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SCAN_LIMITS, scanVault, walkVault } from '../scanner/scan-vault.js';
import {
  FIELD_ORDER,
  kindFolder,
  KINDS,
  LIMITS,
  SCHEMA_VERSION,
  SCOPES,
  toFrontmatter,
  utf8Bytes,
  type Kind,
  type Memory,
  type Scope,
} from '../document/contract.js';
import { readFrontmatterValues, splitCanonical } from '../document/frontmatter-reader.js';
import { serializeMemory } from '../document/serialize.js';
import { checkTitle, quoteValue, validateBody } from '../document/validate.js';
import { VaultError } from '../errors.js';
import type { Runtime } from '../io/runtime.js';
import { checkFrontmatter } from '../document/check-frontmatter.js';
import { scanDocumentForSecrets } from '../secrets/scan-secrets.js';
import type { SimilarMemory } from '../search/query/similar-memories.js';
import { claimId, claimsIntact, releaseClaims } from '../store/id-claims.js';
import { assertMemoryId, generateMemoryId } from '../store/ids.js';
import { memoryFilePath, vaultRelativePath } from '../store/layout.js';
import { assertVault, guardedDirs, scopeRoot, type VaultRoots } from '../store/roots.js';
import { writeFileExclusive } from '../store/atomic-write.js';
import { CreateWitness, type CreateProof } from '../store/create-witness.js';
import { isLinkRefusal, type DirHandle } from '../store/dir-handle.js';
import {
  checkScope,
  kindSweepDue,
  LINKED_FOLDER_HINT,
  markKindSwept,
  modesFor,
  openScopeDir,
  removeStaleSeeds,
  openStaging,
  prepareScope,
  removeStaleSaveTemps,
} from '../store/scope-folders.js';
import { checkLinksAndTags, type SaveWarning } from './save-links.js';

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
  /** who writes it; default "unknown" (the CLI passes {@link sourceHarnessFromEnv}, MCP its fixed identity) */
  sourceHarness?: string | undefined;
  /** default ["all"] */
  targetHarnesses?: readonly string[] | undefined;
  /** explicit id; default `mem_<YYYYMMDD>_<20 hex>` */
  id?: string | undefined;
  /** keep a team memory's links to project-scope memories without the `team-links-local` warning */
  allowLocalLinks?: boolean | undefined;
}

/** How {@link save} runs. */
export interface SaveOptions {
  /** check everything (values, secrets, duplicate id, symlinks, the project .gitignore), write nothing */
  dryRun?: boolean | undefined;
  /** refuse the save (VaultError `duplicate-memory`) when the scope holds a similar memory */
  unique?: boolean | undefined;
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
  /**
   * memories already in the scope with the same title or a near-identical body (the save went
   * ahead; empty for a dry run, which never looks, as the lookup refreshes the index)
   */
  similar: SimilarMemory[];
  /** problems that did not stop the save: team → project links, tags Obsidian ignores (see operations/save-links.ts) */
  warnings: SaveWarning[];
}

/**
 * The default writer of a memory saved through the CLI: ECC_MEMORY_HARNESS, then VAULT_HARNESS
 * (an empty variable counts as unset: shells and CI templates often export VAR=), else
 * "unknown".
 *
 * @param env the environment the adapter runs in
 */
export function sourceHarnessFromEnv(env: Readonly<Record<string, string | undefined>>): string {
  return (env.ECC_MEMORY_HARNESS || undefined) ?? (env.VAULT_HARNESS || undefined) ?? 'unknown';
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
export function buildMemory(input: SaveInput, rt: Pick<Runtime, 'now' | 'randomHex'>): Memory {
  return buildDocument(input, rt).memory;
}

/**
 * {@link buildMemory}, and the memory's document text: serialized once, its frontmatter checked
 * once, its size checked, and read back (see {@link assertReadsBack}).
 */
function buildDocument(input: SaveInput, rt: Pick<Runtime, 'now' | 'randomHex'>): { memory: Memory; text: string } {
  const kind = checkChoice<Kind>('kind', input.kind ?? 'note', KINDS);
  const scope = checkChoice<Scope>('scope', input.scope ?? 'project', SCOPES);
  const now = rt.now().toISOString();
  const id = input.id !== undefined ? assertMemoryId(input.id) : generateMemoryId(rt.now(), rt.randomHex);
  const title = checkTitle(typeof input.title === 'string' ? input.title.trim() : input.title);
  const body = validateBody(input.body);
  const memory: Memory = {
    schema: SCHEMA_VERSION,
    id,
    title,
    kind,
    scope,
    trust: 'unreviewed',
    status: 'active',
    sourceHarness: String(input.sourceHarness ?? 'unknown').trim(),
    targetHarnesses: uniq((input.targetHarnesses?.length ? input.targetHarnesses : ['all']).map((s) => String(s).trim())),
    tags: uniq((input.tags ?? []).map(normalizeTag)),
    links: uniq((input.links ?? []).map((s) => String(s).trim())),
    createdAt: now,
    updatedAt: now,
    body,
  };
  checkFrontmatter(toFrontmatter(memory));
  const text = serializeMemory(memory);
  const size = utf8Bytes(text);
  if (size > LIMITS.documentMaxBytes) {
    throw new VaultError('document-too-large', `document is too large (${size} bytes, maximum ${LIMITS.documentMaxBytes})`, {
      rule: `maxBytes ${LIMITS.documentMaxBytes}`,
      hint: 'shorten the body or the lists',
    });
  }
  assertReadsBack(memory, text);
  return { memory, text };
}

/**
 * Belt and braces: what we write must read back to the same values. The frontmatter fast reader
 * (the one the scanner and session start use) reads the text the serializer wrote, and every
 * value and the body must equal the memory's. A difference is our bug, not the user's input.
 *
 * @throws Error (an internal error, exit 70) when the text does not read back
 */
function assertReadsBack(memory: Memory, text: string): void {
  const parts = splitCanonical(text);
  const values = parts && readFrontmatterValues(parts.head);
  if (!parts || !values || JSON.stringify(values) !== JSON.stringify(toFrontmatter(memory)) || parts.body !== memory.body) {
    throw new Error('memory does not round-trip through the document format');
  }
}

/**
 * Refuses a memory whose serialized text contains a suspected secret.
 *
 * @throws VaultError `suspected-secret` naming the kinds and fields, never the value
 */
export async function assertNoSecrets(text: string): Promise<void> {
  const findings = await scanDocumentForSecrets(text, FIELD_ORDER);
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
    // Never probe through a link: an answer would tell what exists behind it. A linked scope is
    // refused for writes (checkScope) and is never read, so it holds no id of this vault.
    if (guardedDirs(roots, scope).some(isSymlink)) continue;
    for (const kind of KINDS) {
      if (isSymlink(join(scopeRoot(roots, scope), kindFolder(kind)))) continue;
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

function isSymlink(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
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
 * Refuses an explicit id already claimed inside any memory file of any scope, whatever the file's
 * name (`notes/other.md` holding `id: <id>`), valid or not (an invalid file that names the id
 * counts: reads of it are incomplete, never a second memory).
 *
 * @throws VaultError `already-exists`
 */
export function assertIdNotInsideAnyFile(roots: VaultRoots, id: string): void {
  const scan = scanVault(roots, { scopes: SCOPES, secretCheck: false });
  const found = scan.entries.find((e) => e.memory.id === id)?.path ?? scan.invalid.find((f) => f.id === id)?.path;
  if (found) {
    throw new VaultError('already-exists', `memory ${id} already exists (${found}); writes are create-only`, {
      field: 'id',
      rule: 'create-only',
      hint: 'choose another id, or supersede the memory with a new one that links to it (--link)',
    });
  }
}

/**
 * Saves a new memory, create-only: the one save operation.
 *
 * In order: builds and validates the values ({@link buildMemory}), refuses a project or team
 * save where there is no vault, refuses a suspected secret, refuses an id already used, refuses
 * links to memories that do not exist (and warns about team → project links and tags Obsidian
 * ignores; see operations/save-links.ts), checks the scope's folders (no symbolic link, the project
 * .gitignore exact); a dry run stops here. Then looks for similar memories in the scope (with
 * `unique`, a similar memory refuses the save), writes the file create-only and atomically, and
 * puts it into the scope's search index overlay (search/index/index-overlay.ts), or refreshes
 * the index when it has none usable (a failure never fails the save: the next search repairs it).
 *
 * @param roots the vault's roots
 * @param input the memory's values
 * @param rt clock and random ids (no environment is read)
 * @param options `dryRun`, `unique`
 * @returns the memory, where it is (or would be) written, and the similar memories found
 * @throws VaultError from {@link buildMemory}, `no-vault` (no vault here; exit 7), `suspected-secret`,
 *   `already-exists`, `invalid-field` / `read-incomplete` (a link),
 *   `duplicate-memory` (with `unique`), `symlink-refused`, `gitignore-mismatch`, `io-error`
 */
export async function save(roots: VaultRoots, input: SaveInput, rt: Runtime, options: SaveOptions = {}): Promise<SaveResult> {
  const { memory, text } = buildDocument(input, rt);
  if (memory.scope !== 'user') assertVault(roots, `save a ${memory.scope} memory`);
  await assertNoSecrets(text);
  const absPath = memoryFilePath(roots, memory.scope, memory.kind, memory.id);
  const path = vaultRelativePath(memory.scope, memory.kind, memory.id);
  // symlinks and the project .gitignore first, for a dry run too: a refusal must not depend on
  // what exists behind a link
  checkScope(roots, memory.scope, [memory.kind]);
  assertIdFree(roots, memory.id);
  if (input.id !== undefined) {
    assertIdUnusedAnywhere(roots, memory.id);
    assertIdNotInsideAnyFile(roots, memory.id);
  }
  const warnings = checkLinksAndTags(roots, memory, { allowLocalLinks: input.allowLocalLinks });
  if (options.dryRun) return { memory, path, absPath, written: false, similar: [], warnings };
  // Every check has passed: only now look for similar memories (the lookup refreshes the index,
  // which a refused save or a dry run must never write).
  // the vault's index server (`vault watch`) answers when one runs, else the files do
  const { similarServedOrOnDisk } = await import('../search/resident/resident-client.js');
  const similar = await similarServedOrOnDisk(roots, memory, rt);
  if (options.unique && similar.length) {
    throw new VaultError('duplicate-memory', `a similar memory already exists: ${similar.map((x) => `${x.id} (${x.reason})`).join(', ')}`, {
      rule: 'unique',
      hint: `read it with \`vault read ${similar[0]!.id}\`, or save without --unique to keep both`,
    });
  }
  // An explicit id is claimed across the scopes a read considers together, then checked again
  // (also inside every file, whatever its name), then written: two saves of one id never both write.
  const claims = input.id !== undefined ? await claimId(roots, memory.scope, memory.id, rt, () => rt.now().getTime()) : [];
  let written: ReturnType<typeof writeMemoryFileIn>;
  try {
    if (input.id !== undefined) {
      assertIdFree(roots, memory.id);
      assertIdUnusedAnywhere(roots, memory.id);
      assertIdNotInsideAnyFile(roots, memory.id);
    }
    prepareScope(roots, memory.scope, [memory.kind]);
    written = writeMemoryFileIn(roots, memory, text, rt, true);
    if (!claimsIntact(claims)) {
      written.close();
      // a stale-claim takeover raced this save: undo, so that one save of the id wins
      try {
        unlinkSync(absPath);
      } catch {
        /* gone */
      }
      throw new VaultError('already-exists', `memory ${memory.id} is being saved by another process; writes are create-only`, {
        field: 'id',
        rule: 'create-only',
        hint: 'choose another id, or read the memory once that save has finished',
      });
    }
  } finally {
    releaseClaims(claims);
  }
  let proof: CreateProof | undefined;
  try {
    proof = await written.witness?.prove(`${memory.id}.md`, () => `${rt.pid}-${rt.randomHex(8)}.tmp`);
  } finally {
    written.close();
  }
  // the one new file straight into the index overlay: no second walk of the folder (and, with the
  // proof, its folder recorded as it now is: no listing of it at the next search either); without
  // a usable index (the scope's first memory), the refresh builds it, so doctor finds it current
  const { addWrittenFile } = await import('../search/index/index-overlay.js');
  if (!addWrittenFile(roots, memory.scope, path.slice(memory.scope.length + 1), undefined, proof)) await refreshIndexAfterWrite(roots, [memory.scope]);
  return { memory, path, absPath, written: true, similar, warnings };
}

/**
 * Writes a memory's file create-only through folder handles (a folder swapped for a link after
 * the checks is refused, never followed), its temporary file in the scope's staging folder; first
 * removes what killed saves left there and, when due (store/scope-folders.ts: kindSweepDue), in
 * the kind folder (older than the grace period).
 *
 * @throws VaultError `already-exists`, `symlink-refused`, `io-error`
 */
export function writeMemoryFile(roots: VaultRoots, memory: Memory, text: string, rt: Pick<Runtime, 'now' | 'randomHex'>): void {
  writeMemoryFileIn(roots, memory, text, rt, false).close();
}

/**
 * The write of {@link writeMemoryFile}; its folders stay open until `close`. With `watched`, the
 * kind folder and the staging folder are watched from before the folder's first stat until
 * `witness.prove` (store/create-witness.ts): the proof that the create was the folder's only change.
 */
function writeMemoryFileIn(
  roots: VaultRoots,
  memory: Memory,
  text: string,
  rt: Pick<Runtime, 'now' | 'randomHex'>,
  watched: boolean,
): { witness: CreateWitness | undefined; close(): void } {
  const mode = modesFor(memory.scope);
  // the repository's git dir, where the staging folder's .gitignore is written whole first (the
  // user scope lies outside the repository)
  const seedDir = memory.scope === 'user' ? undefined : roots.gitDir;
  const scopeDir = openScopeDir(roots, memory.scope, []);
  let kindDir: DirHandle | undefined;
  let staging: DirHandle | undefined;
  let witness: CreateWitness | undefined;
  const close = () => {
    witness?.close();
    staging?.close();
    kindDir?.close();
    scopeDir.close();
  };
  try {
    kindDir = scopeDir.openDir(kindFolder(memory.kind));
    staging = openStaging(scopeDir, mode.dir, seedDir);
    const now = rt.now().getTime();
    if (staging) removeStaleSaveTemps(staging, now);
    // the kind folder (every memory of the kind) only when due: without a staging folder (this
    // save's temporary file goes there), else at most once every STAGING_GRACE_MS
    const kindName = kindFolder(memory.kind);
    if (!staging || kindSweepDue(staging, kindName, now)) {
      removeStaleSaveTemps(kindDir, now);
      if (seedDir) removeStaleSeeds(seedDir, now);
      if (staging) markKindSwept(staging, kindName, now);
    }
    const into = staging;
    // only with a staging folder, where the witness's probe goes
    if (watched && into) witness = CreateWitness.start(kindDir, into);
    writeFileExclusive(kindDir.child(`${memory.id}.md`), text, mode.file, () => rt.randomHex(8), into && ((name) => into.child(name)), kindDir);
    return { witness, close };
  } catch (err) {
    close();
    if (err instanceof VaultError) throw err;
    const where = vaultRelativePath(memory.scope, memory.kind, memory.id);
    if (!isLinkRefusal(err)) throw new VaultError('io-error', `cannot write ${where} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
    throw new VaultError('symlink-refused', `refusing to write through a symbolic link: ${where}`, {
      rule: 'no symlinks in the vault',
      hint: LINKED_FOLDER_HINT,
      cause: err,
    });
  }
}

/**
 * After an operation wrote memories: brings the search index of those scopes up to date, so a
 * search or `vault doctor --strict` right after sees a current index. An index problem never
 * fails the operation (the next search repairs it).
 */
export async function refreshIndexAfterWrite(roots: VaultRoots, scopes: readonly Scope[]): Promise<void> {
  try {
    const { refreshIndex } = await import('../search/index/index-status.js');
    refreshIndex(roots, { scopes: [...new Set(scopes)], check: 'folders' });
  } catch {
    /* the next search rebuilds or refreshes it */
  }
}
