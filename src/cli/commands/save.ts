import type { Argv } from 'yargs';
import { EXIT, VaultError } from '../../errors.js';
import { printJson, rootsFor, runCommand, usageError, type CliContext, type GlobalArgs, refreshSearchIndex, printSaved } from '../command-context.js';
import type { VaultRoots } from '../../store/roots.js';

export interface SaveArgs extends GlobalArgs {
  title: string;
  body?: string;
  'body-file'?: string;
  stdin?: boolean;
  kind?: string;
  scope?: string;
  tag?: string[];
  link?: string[];
  'source-harness'?: string;
  'target-harness'?: string[];
  id?: string;
  'dry-run'?: boolean;
  template?: boolean;
  section?: string[];
  wikilinks?: boolean;
  unique?: boolean;
}

/** Body bytes read from a file or stdin before validation: enough to report "too large" exactly. */
const BODY_READ_CAP = 128 * 1024;

/** Reads the body from exactly one of --body, --body-file, --stdin. */
export async function readBodyInput(ctx: CliContext, argv: SaveArgs): Promise<string> {
  const sources = [argv.body !== undefined, argv['body-file'] !== undefined, Boolean(argv.stdin)].filter(Boolean).length;
  if (sources !== 1)
    usageError('choose exactly one body source: --body TEXT, --body-file FILE or --stdin', 'e.g. vault save --title "..." --body "what to remember"');
  if (argv.body !== undefined) return argv.body;
  const decode = (buf: Buffer, what: string) => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(buf);
    } catch {
      throw new VaultError('invalid-utf8', `${what} must contain valid UTF-8 text`, { field: 'body', rule: 'utf-8', hint: 're-save it as UTF-8' });
    }
  };
  const tooLarge = (what: string) =>
    new VaultError('body-too-large', `body: ${what} is too large (maximum 65536 bytes of UTF-8)`, {
      field: 'body',
      rule: 'maxBytes 65536',
      hint: 'split the memory into smaller ones',
    });
  if (argv.stdin) {
    const buf = await ctx.io.readStdin(BODY_READ_CAP);
    if (buf.length >= BODY_READ_CAP) throw tooLarge('standard input');
    return decode(buf, 'standard input');
  }
  const { readFileSafe } = await import('../../scanner/scan-vault.js');
  const { resolve } = await import('node:path');
  const file = resolve(ctx.io.runtime.cwd, argv['body-file']!);
  const read = readFileSafe(file, BODY_READ_CAP);
  if (!read.ok) {
    if (read.code === 'too-large') throw tooLarge('--body-file');
    const why =
      read.code === 'ELOOP'
        ? 'is a symbolic link (refused)'
        : read.code === 'ENOENT'
          ? 'does not exist'
          : read.code === 'not-a-regular-file'
            ? 'is not a regular file'
            : `cannot be read (${read.code})`;
    throw new VaultError('invalid-input', `--body-file ${argv['body-file']} ${why}`, {
      field: 'body-file',
      hint: 'give the path of a regular UTF-8 text file',
    });
  }
  return decode(read.bytes, '--body-file');
}

/** `vault save`: write a new memory, create-only. */
export const saveCommand = (ctx: CliContext) => ({
  command: 'save',
  describe: 'save a new memory (create-only; trust is always "unreviewed")',
  builder: (y: Argv) =>
    y
      .option('title', { type: 'string', requiresArg: true, demandOption: true, describe: 'title, 1..200 characters' })
      .option('body', { type: 'string', requiresArg: true, describe: 'body text (Markdown)' })
      .option('body-file', { type: 'string', requiresArg: true, describe: 'read the body from a UTF-8 file' })
      .option('stdin', { type: 'boolean', describe: 'read the body from standard input' })
      .option('kind', {
        type: 'string',
        requiresArg: true,
        choices: ['context', 'decision', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook'],
        describe: 'kind of memory (default note)',
      })
      .option('scope', {
        type: 'string',
        requiresArg: true,
        choices: ['project', 'team', 'user'],
        describe: 'project (local, default), team (committed) or user (~/.ecc)',
      })
      .option('tag', { type: 'string', requiresArg: true, array: true, describe: 'tag (repeatable; a leading # is dropped)' })
      .option('link', { type: 'string', requiresArg: true, array: true, describe: 'id of a related or superseded memory (repeatable)' })
      .option('source-harness', { type: 'string', requiresArg: true, describe: 'who writes it (default $ECC_MEMORY_HARNESS, $VAULT_HARNESS, else "unknown")' })
      .option('target-harness', { type: 'string', requiresArg: true, array: true, describe: 'harness that should recall it (repeatable; default all)' })
      .option('id', { type: 'string', requiresArg: true, describe: 'explicit id (default mem_<YYYYMMDD>_<20 hex>)' })
      .option('dry-run', { type: 'boolean', describe: 'check everything, write nothing (also ECC_DRY_RUN=1)' })
      .option('template', { type: 'boolean', describe: "fill the body from the kind's template (templates/<kind>.md) with the --section values" })
      .option('section', {
        type: 'string',
        requiresArg: true,
        array: true,
        describe: 'with --template: "Name=text" for one section, e.g. "Context=..." (repeatable; repeating a name adds a line)',
      })
      .option('unique', { type: 'boolean', describe: 'refuse to save when the scope already holds a memory with the same title or a near-identical body' })
      .option('wikilinks', { type: 'boolean', describe: 'also append "Related: [[id]], ..." for the --link ids to the body (for Obsidian\'s graph)' })
      .example(
        '$0 save --kind runbook --template --section "When to use=Disk full" --section "Steps=1. df -h" --title "Free disk"',
        'a body from templates/runbook.md',
      )
      .example('$0 save --scope team --kind decision --title "Use Redis sessions" --body "..." --tag auth', 'record a team decision'),
  handler: (argv: SaveArgs) =>
    runCommand(ctx, argv, async () => {
      for (const flag of ['kind', 'scope', 'title', 'id', 'source-harness', 'body', 'body-file'] as const) {
        if (Array.isArray(argv[flag])) usageError(`--${flag} may be given only once`);
      }
      let body: string;
      if (argv.template) {
        if (argv.body !== undefined || argv['body-file'] !== undefined || argv.stdin)
          usageError('--template fills the body itself: leave out --body, --body-file and --stdin');
        const { loadTemplate, fillTemplate, parseSectionValues } = await import('../../templates/index.js');
        body = fillTemplate(loadTemplate(argv.kind ?? 'note'), parseSectionValues(argv.section ?? []));
      } else {
        if (argv.section?.length) usageError('--section needs --template', 'e.g. vault save --kind decision --template --section "Decision=We will ..."');
        body = await readBodyInput(ctx, argv);
      }
      if (argv.wikilinks) {
        if (!argv.link?.length) usageError('--wikilinks needs at least one --link ID');
        const { appendRelatedLine } = await import('../../templates/related-links.js');
        const { assertMemoryId } = await import('../../store/ids.js');
        body = appendRelatedLine(
          body,
          argv.link.map((id) => assertMemoryId(String(id).trim(), 'links')),
        );
      }
      const { saveMemory } = await import('../../operations/save.js');
      const roots = await rootsFor(ctx, argv);
      const dryRun = Boolean(argv['dry-run']) || ctx.io.runtime.env.ECC_DRY_RUN === '1';
      const check = similarCheck(roots, Boolean(argv.unique));
      const result = await saveMemory(
        roots,
        {
          title: argv.title,
          body,
          kind: argv.kind,
          scope: argv.scope,
          tags: argv.tag,
          links: argv.link,
          sourceHarness: argv['source-harness'],
          targetHarnesses: argv['target-harness'],
          id: argv.id,
        },
        ctx.io.runtime,
        { dryRun, beforeWrite: check.beforeWrite },
      );
      const m = result.memory;
      if (result.written) await refreshSearchIndex(roots, [m.scope]);
      if (argv.json) {
        printJson(ctx, { id: m.id, path: result.path, scope: m.scope, kind: m.kind, written: result.written, similar: check.similar });
      } else {
        warnSimilar(ctx, check.similar);
        printSaved(ctx, result, roots);
      }
      return EXIT.ok;
    }),
});

/** A memory already in the scope that a new one resembles. */
export interface SimilarMemory {
  id: string;
  path: string;
  reason: string;
}

/**
 * The duplicate check of a save (save, handoff): `beforeWrite` for saveMemory looks up memories
 * of the same scope with the same normalised title or a near-identical body, and with `unique`
 * refuses the save (VaultError `duplicate-memory`). It runs only once every other check passed:
 * the lookup refreshes the search index, which a refused save or a dry run must never write.
 * `similar` holds what it found.
 */
export function similarCheck(
  roots: VaultRoots,
  unique: boolean,
): { beforeWrite: (memory: { title: string; body: string; scope: string; id: string }) => Promise<void>; similar: SimilarMemory[] } {
  const similar: SimilarMemory[] = [];
  return {
    similar,
    beforeWrite: async (memory) => {
      const { findSimilarMemories } = await import('../../search/query/similar-memories.js');
      for (const x of await findSimilarMemories(roots, { title: memory.title, body: memory.body, scope: memory.scope as 'project', id: memory.id }))
        similar.push({ id: x.id, path: x.path, reason: x.reason });
      if (unique && similar.length) {
        throw new VaultError('duplicate-memory', `a similar memory already exists: ${similar.map((x) => `${x.id} (${x.reason})`).join(', ')}`, {
          rule: 'unique',
          hint: `read it with \`vault read ${similar[0]!.id}\`, or save without --unique to keep both`,
        });
      }
    },
  };
}

/** Warns on stderr that similar memories exist (the save went ahead). */
export function warnSimilar(ctx: CliContext, similar: readonly SimilarMemory[]): void {
  if (similar.length) ctx.io.stderr(`warning: similar memories already exist: ${similar.map((x) => `${x.id} (${x.reason})`).join(', ')}\n`);
}
