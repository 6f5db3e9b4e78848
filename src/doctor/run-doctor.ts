/**
 * `vault doctor` as a library call: scan the whole vault (never writing anything), run every rule,
 * and return the problems as values. One rule per file under ./rules; each gets the same context.
 */
import { lstatSync, readdirSync } from 'node:fs';
import type { Scope } from '../document/contract.js';
import { VaultError } from '../errors.js';
import type { GitRunner } from '../io/git.js';
import { scanVault, type ScanEntry, type ScanLimits } from '../scanner/scan-vault.js';
import { scopeRoot, type VaultRoots } from '../store/roots.js';
import { idFromFileName, type DoctorContext, type Selection } from './rule-context.js';
import { sortDiagnostics, type Diagnostic, type DiagnosticCode } from '../diagnostics.js';
import type { DoctorReport } from './report.js';
import { checkBrokenLinks } from './rules/broken-link.js';
import { checkDuplicateIds } from './rules/duplicate-id.js';
import { checkFileNames } from './rules/filename-mismatch.js';
import { checkIndexFreshness } from './rules/index-stale.js';
import { checkInvalidDocuments } from './rules/invalid-document.js';
import { checkInvisibleCharacters } from './rules/invisible-characters.js';
import { checkLocations } from './rules/location-mismatch.js';
import { checkMergeConflicts } from './rules/merge-conflict.js';
import { checkCanonicalForm } from './rules/non-canonical.js';
import { checkObsidianTags } from './rules/obsidian-tag.js';
import { checkProjectGitignore } from './rules/gitignore-wrong.js';
import { checkScanBounds } from './rules/scan-incomplete.js';
import { checkSecondFrontmatter } from './rules/second-frontmatter.js';
import { checkSecrets } from './rules/suspected-secret.js';
import { checkSaveLeftovers } from './rules/save-leftover.js';
import { checkStrayFiles } from './rules/stray-file.js';
import { checkSuperseded } from './rules/probably-superseded.js';
import { checkDuplicateMemories } from './rules/duplicate-memory.js';
import { checkSymlinks } from './rules/symlink.js';
import { checkTeamLinksLocal } from './rules/team-links-local.js';
import { checkSyncConflicts, findConflictCopies } from './rules/sync-conflict.js';
import { checkTimestamps } from './rules/updated-before-created.js';
import { checkStaleHandoffs, HANDOFF_STALE_DAYS } from './rules/stale-handoff.js';

/** Options of {@link runDoctor}. */
export interface DoctorOptions {
  /** scopes to check (default project and team) */
  scopes?: readonly Scope[];
  /** warnings make the report not ok */
  strict?: boolean;
  /** limit per-file checks to files changed since the merge base of this git ref and HEAD */
  changed?: string;
  /** limit per-file checks to files staged in git */
  staged?: boolean;
  /** check the search index's freshness (default true; skipped with changed/staged) */
  checkIndex?: boolean;
  /** scan bounds (defaults: see DEFAULT_SCAN_LIMITS) */
  limits?: Partial<ScanLimits>;
  /** how git runs for `changed` / `staged` (default: the `git` on PATH, src/io/git.ts) */
  git?: GitRunner;
  /** the current time (the runtime port's clock) for the stale-handoff rule; without it that rule is skipped */
  now?: Date;
  /** days after which an active handoff is stale (default 30; adapters pass ECC_HANDOFF_STALE_DAYS) */
  handoffStaleDays?: number;
}

type Rule = (ctx: DoctorContext) => Diagnostic[] | Promise<Diagnostic[]>;

/** Every rule, in report order of concern (the report itself is sorted by file and line). */
export const DOCTOR_RULES: ReadonlyArray<Rule> = [
  checkScanBounds,
  checkInvalidDocuments,
  checkLocations,
  checkSecrets,
  checkDuplicateIds,
  checkSyncConflicts,
  checkBrokenLinks,
  checkTeamLinksLocal,
  checkSecondFrontmatter,
  checkMergeConflicts,
  checkProjectGitignore,
  checkSymlinks,
  checkCanonicalForm,
  checkFileNames,
  checkStrayFiles,
  checkSaveLeftovers,
  checkSuperseded,
  checkDuplicateMemories,
  checkTimestamps,
  checkStaleHandoffs,
  checkObsidianTags,
  checkInvisibleCharacters,
  checkIndexFreshness,
];

function assertScopeRootsReadable(roots: VaultRoots, scopes: readonly Scope[]): void {
  for (const scope of scopes) {
    try {
      if (lstatSync(scopeRoot(roots, scope)).isSymbolicLink()) continue; // reported as a problem, never followed
      readdirSync(scopeRoot(roots, scope));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      throw new VaultError('io-error', `the ${scope} scope folder cannot be read (${code ?? 'error'})`, {
        hint: code === 'ENOTDIR' ? `${scopeRoot(roots, scope)} must be a folder` : 'check the folder permissions',
        cause: err,
      });
    }
  }
}

/**
 * Warnings about the search index, a cache that any search rebuilds or refreshes: reported, but
 * `strict` never fails on them (a fresh clone has no index yet).
 */
export const CACHE_WARNING_CODES: readonly DiagnosticCode[] = ['index-missing', 'index-stale'];

/**
 * Checks the vault and reports every problem found. Reads only: never modifies, deletes or
 * rewrites a file, never follows a symbolic link.
 *
 * @param roots the vault's roots
 * With `strict`, warnings fail too, except the index's ({@link CACHE_WARNING_CODES}).
 *
 * @param options scopes, strictness, git selection (`changed` or `staged`), index check, bounds
 * @returns the report: `ok`, problems sorted by path and line, counts
 * @throws VaultError `usage` (both `changed` and `staged`, or a bad ref), `io-error` (a scope
 *   folder that cannot be listed at all, git missing, not a git repository)
 */
export async function runDoctor(roots: VaultRoots, options: DoctorOptions = {}): Promise<DoctorReport> {
  const scopes = options.scopes?.length ? [...new Set(options.scopes)] : (['project', 'team'] as Scope[]);
  if (options.changed !== undefined && options.staged) {
    throw new VaultError('usage', 'choose one of --changed <ref> and --staged', { hint: 'use --changed in CI, --staged in a pre-commit hook' });
  }
  assertScopeRootsReadable(roots, scopes);
  const scan = scanVault(roots, { scopes, keepText: true, ...(options.limits ? { limits: options.limits } : {}) });

  let selection: Selection | undefined;
  let selectionInfo: DoctorReport['selection'];
  let contents = new Map<string, Buffer>();
  if (options.changed !== undefined || options.staged) {
    const [{ gitChanges, readBlobs }, git] = await Promise.all([import('./git-changes.js'), options.git ?? import('../io/git.js').then((m) => m.runGit)]);
    const changes = gitChanges(git, roots, scopes, options.changed !== undefined ? { ref: options.changed } : { staged: true });
    if (changes.staged) {
      const { applyStagedFiles } = await import('./staged-overlay.js');
      contents = applyStagedFiles(
        scan,
        roots,
        changes.staged,
        readBlobs(
          git,
          roots.worktreeRoot,
          changes.staged.filter((f) => !f.deleted).map((f) => f.sha),
        ),
      );
    }
    const paths = new Set(changes.changed);
    const ids = new Set<string>();
    for (const p of [...changes.changed, ...changes.deleted]) if (p.endsWith('.md')) ids.add(idFromFileName(p));
    for (const e of scan.entries) if (paths.has(e.path)) ids.add(e.memory.id);
    for (const f of scan.invalid) if (paths.has(f.path) && f.id) ids.add(f.id);
    selection = { paths, ids };
    selectionInfo = {
      mode: options.changed !== undefined ? 'changed' : 'staged',
      ...(options.changed !== undefined ? { ref: options.changed } : {}),
      files: changes.changed,
    };
  }

  const byId = new Map<string, ScanEntry[]>();
  for (const e of scan.entries) {
    const list = byId.get(e.memory.id);
    if (list) list.push(e);
    else byId.set(e.memory.id, [e]);
  }

  const ctx: DoctorContext = {
    roots,
    scopes,
    scan,
    selection,
    checkIndex: options.checkIndex ?? true,
    byId,
    conflictCopies: findConflictCopies([...scan.entries.map((e) => e.path), ...scan.invalid.map((f) => f.path)]),
    contents,
    nowMs: options.now?.getTime(),
    handoffStaleDays: options.handoffStaleDays ?? HANDOFF_STALE_DAYS,
  };
  const found: Diagnostic[] = [];
  for (const rule of DOCTOR_RULES) found.push(...(await rule(ctx)));
  // A file with merge-conflict markers is reported once, as merge-conflict: the YAML or schema
  // errors the markers cause say nothing more (a suspected secret is still reported).
  const conflicted = new Set(found.filter((p) => p.code === 'merge-conflict').map((p) => p.path));
  const problems = conflicted.size ? found.filter((p) => !conflicted.has(p.path) || p.code === 'merge-conflict' || p.code === 'suspected-secret') : found;
  sortDiagnostics(problems);

  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.filter((p) => p.severity === 'warning').length;
  const failingWarnings = problems.filter((p) => p.severity === 'warning' && !CACHE_WARNING_CODES.includes(p.code)).length;
  const infos = problems.length - errors - warnings;
  const memoryFiles = [...scan.entries.map((e) => e.path), ...scan.invalid.map((f) => f.path)];
  const checked = selection ? memoryFiles.filter((p) => selection!.paths.has(p)).length : memoryFiles.length;
  return {
    ok: errors === 0 && !(options.strict && failingWarnings > 0),
    problems,
    counts: {
      errors,
      warnings,
      infos,
      memories: scan.entries.length,
      files: new Set(problems.map((p) => p.path)).size,
      checked,
      ignored: scan.hiddenSkipped + scan.editorFiles.length,
    },
    scopes,
    complete: scan.complete,
    ...(selectionInfo ? { selection: selectionInfo } : {}),
  };
}
