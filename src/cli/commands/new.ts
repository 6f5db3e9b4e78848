import { lstatSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Argv } from 'yargs';
import { KINDS, SCOPES, type Kind } from '../../document/contract.js';
import { VaultError } from '../../errors.js';
import { rootsFor, runCommand, usageError, type CliContext, type GlobalArgs } from '../command-context.js';
import { reportSaved, saveInputFrom, saveOptionsFrom } from './save.js';

export interface NewArgs extends GlobalArgs {
  kind?: string;
  title?: string;
  scope?: string;
  tag?: string[];
  link?: string[];
  'source-harness'?: string;
  'target-harness'?: string[];
  id?: string;
  draft?: string;
  'dry-run'?: boolean;
  'allow-local-link'?: boolean;
}

/**
 * Runs the editor on a file the way git does: the command in $VISUAL or $EDITOR may carry
 * arguments ("code --wait"), so it goes through the shell with the path as a separate argument.
 *
 * @returns the exit status (a signal counts as failure)
 */
export async function runEditor(
  editor: string,
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ status: number | null; signal: string | null; error?: string }> {
  const { spawnSync } = await import('node:child_process');
  const r =
    process.platform === 'win32'
      ? spawnSync(`${editor} "${file}"`, { shell: true, stdio: 'inherit', env: env as NodeJS.ProcessEnv })
      : spawnSync('/bin/sh', ['-c', `${editor} "$@"`, editor, file], { stdio: 'inherit', env: env as NodeJS.ProcessEnv });
  return { status: r.status, signal: r.signal, ...(r.error ? { error: r.error.message } : {}) };
}

/**
 * The hint for an editor that did not exit 0. The shell (`/bin/sh -c`) exits 127 when the
 * editor's command is not found and 126 when it cannot be run: then the fix is $EDITOR, not the
 * way the person quit.
 */
function editorHint(status: number | null, editor: string): string {
  if (process.platform !== 'win32' && (status === 127 || status === 126)) {
    const what = status === 127 ? 'was not found' : 'could not be run';
    return `the editor command ${JSON.stringify(editor)} ${what}: set $VISUAL or $EDITOR to an installed editor (e.g. EDITOR=nano), then run the \`vault new --draft\` line above`;
  }
  return 'save and quit normally to write the memory; quitting with an error aborts';
}

/** The private folder of one draft: `<temp>/vault-new-XXXXXX/<kind>.md` (mkdtemp, mode 0700). */
const DRAFT_FOLDER_PREFIX = 'vault-new-';

/**
 * True when `file` is a draft an earlier `vault new` wrote: `<kind>.md` in a `vault-new-*`
 * folder directly inside the temp folder, that folder a real directory (not a link) owned by
 * this user with mode 0700, and the draft a regular file. `vault new --draft` removes only such
 * a file after saving: a file of the user's own (`--draft notes.md`) is left where it is.
 *
 * @param file the absolute draft path
 * @param tmp the absolute temp folder drafts are made in (`$TMPDIR`, else the OS's)
 */
function madeByVaultNew(file: string, tmp: string): boolean {
  const folder = dirname(file);
  if (dirname(folder) !== tmp || !basename(folder).startsWith(DRAFT_FOLDER_PREFIX)) return false;
  if (!(KINDS as readonly string[]).some((k) => basename(file) === `${k}.md`)) return false;
  try {
    const dir = lstatSync(folder);
    const draft = lstatSync(file);
    const uid = process.getuid?.();
    return dir.isDirectory() && (dir.mode & 0o777) === 0o700 && (uid === undefined || dir.uid === uid) && draft.isFile();
  } catch {
    return false;
  }
}

/** `vault new --kind K --title T`: write a memory in $EDITOR from the kind's template, create-only. */
export const newCommand = (ctx: CliContext) => ({
  command: 'new',
  describe: "write a new memory in $VISUAL/$EDITOR, starting from the kind's template (create-only)",
  builder: (y: Argv) =>
    y
      .option('kind', { type: 'string', choices: [...KINDS], describe: 'kind of memory; picks templates/<kind>.md (default note)' })
      .option('title', { type: 'string', describe: 'title, 1..200 characters (can also be written in the draft)' })
      .option('scope', { type: 'string', choices: SCOPES, describe: 'project (local, default), team (committed) or user (~/.ecc)' })
      .option('tag', { type: 'string', array: true, describe: 'tag (repeatable; a leading # is dropped)' })
      .option('link', { type: 'string', array: true, describe: 'id of a related or superseded memory (repeatable)' })
      .option('allow-local-link', {
        type: 'boolean',
        describe: "keep a team memory's links to project-scope memories without the warning (they are broken in every other clone)",
      })
      .option('source-harness', { type: 'string', describe: 'who writes it (default $ECC_MEMORY_HARNESS, $VAULT_HARNESS, else "unknown")' })
      .option('target-harness', { type: 'string', array: true, describe: 'harness that should recall it (repeatable; default all)' })
      .option('id', { type: 'string', describe: 'explicit id (default mem_<YYYYMMDD>_<20 hex>)' })
      .option('draft', {
        type: 'string',
        describe: 'reopen a draft kept by an earlier `vault new` (its path was printed); removed after saving only if vault new made it',
      })
      .option('dry-run', {
        type: 'boolean',
        describe: 'check the memory, its links and folders, write nothing; the similar-memory check runs only on a real save (also ECC_DRY_RUN=1)',
      })
      .example('EDITOR=nano $0 new --kind decision --title "Use Redis sessions" --scope team', 'write an ADR-style decision in nano')
      .epilog(
        'The draft is a Markdown file in a private temp folder: a short frontmatter (title, kind, scope, tags, links, ' +
          'target_harnesses), then the template. Guidance comments and empty sections are removed on save. Nothing is ' +
          'written when the editor exits non-zero or the result is invalid; the draft is then kept and its path printed.',
      ),
  handler: (argv: NewArgs) => runCommand(ctx, argv, () => runNew(ctx, argv)),
});

/**
 * `vault new`: writes a draft from the kind's template, runs the editor on it, then saves what the
 * person wrote through the save operation; the draft is kept (and its path printed) when nothing
 * was saved.
 *
 * @throws VaultError `usage` (no editor, repeated flags), `not-found` (no such draft), `io-error`
 *   (the editor failed); whatever the save refuses
 */
export async function runNew(ctx: CliContext, argv: NewArgs): Promise<void> {
  for (const flag of ['kind', 'scope', 'title', 'id', 'source-harness', 'draft'] as const) {
    if (Array.isArray(argv[flag])) usageError(`--${flag} may be given only once`);
  }
  const rt = ctx.io.runtime;
  const editor = [rt.env.VISUAL, rt.env.EDITOR].find((e) => e !== undefined && e.trim() !== '');
  if (!editor)
    usageError(
      'no editor: set $EDITOR (or $VISUAL)',
      'e.g. EDITOR=nano vault new --kind decision --title "..."; agents should use `vault save --template` instead',
    );
  const { existsSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } = await import('node:fs');
  const { dirname, join, resolve } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const tmp = resolve(rt.env.TMPDIR || tmpdir());
  const { loadTemplate, loadAllTemplates, renderDraft, readDraft } = await import('../../templates/index.js');
  const roots = await rootsFor(ctx, argv);

  let draftPath: string;
  if (argv.draft !== undefined) {
    draftPath = resolve(rt.cwd, argv.draft);
    if (!existsSync(draftPath))
      throw new VaultError('not-found', `draft ${argv.draft} does not exist`, { field: 'draft', hint: 'give the path printed by the earlier `vault new`' });
  } else {
    const kind = (argv.kind ?? 'note') as Kind;
    const template = loadTemplate(kind);
    // A private folder (mode 0700) per draft: the draft may hold unsaved notes nobody else should read.
    const dir = mkdtempSync(join(tmp, DRAFT_FOLDER_PREFIX));
    draftPath = join(dir, `${kind}.md`);
    const text = renderDraft(template, {
      title: argv.title ?? '',
      kind,
      scope: argv.scope ?? 'project',
      tags: argv.tag ?? [],
      links: argv.link ?? [],
      targetHarnesses: argv['target-harness']?.length ? argv['target-harness'] : ['all'],
    });
    writeFileSync(draftPath, text, { mode: 0o600, flag: 'wx' });
  }
  const keep = (why: string) => ctx.io.stderr(`${why}; draft kept: ${draftPath}\n  edit it again: vault new --draft ${JSON.stringify(draftPath)}\n`);

  const run = await runEditor(editor, draftPath, rt.env);
  if (run.status !== 0) {
    const how = run.error ? `could not be started (${run.error})` : run.signal ? `was stopped by ${run.signal}` : `exited with status ${run.status}`;
    keep('nothing saved');
    throw new VaultError('io-error', `the editor (${editor}) ${how}; nothing was saved`, {
      field: 'editor',
      rule: 'editor exits 0',
      hint: editorHint(run.status, editor),
    });
  }
  try {
    const draft = readDraft(readFileSync(draftPath, 'utf8'), loadAllTemplates());
    if (draft.body === '') {
      throw new VaultError('invalid-body', 'body: the draft is empty (every section was left empty)', {
        field: 'body',
        rule: 'non-empty body',
        hint: 'write at least one section',
      });
    }
    const { save } = await import('../../operations/save.js');
    // the draft's values (title, kind, scope, tags, links, targets, body) win over the flags
    const result = await save(roots, await saveInputFrom(ctx, argv, draft), rt, saveOptionsFrom(ctx, argv));
    if (result.written) {
      if (argv.draft === undefined) rmSync(dirname(draftPath), { recursive: true, force: true });
      else if (madeByVaultNew(draftPath, tmp)) {
        // a kept draft reopened with --draft: remove it, and its private folder once empty
        rmSync(draftPath, { force: true });
        try {
          rmdirSync(dirname(draftPath));
        } catch {
          /* not empty */
        }
      } else ctx.io.stderr(`draft left in place: ${draftPath} (not made by vault new; only its own drafts are removed)\n`);
    }
    if (!result.written) keep('dry run: nothing saved');
    reportSaved(ctx, argv, result, roots);
  } catch (err) {
    keep('nothing saved');
    throw err;
  }
}
