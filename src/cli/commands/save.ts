import type { Argv } from 'yargs';
import { KINDS, LIMITS, SCOPES } from '../../document/contract.js';
import { EXIT, VaultError } from '../../errors.js';
import { printJson, rootsFor, runCommand, usageError, type CliContext, type GlobalArgs, printSaved } from '../command-context.js';
import type { SaveInput, SaveOptions, SaveResult } from '../../operations/save.js';
import type { VaultRoots } from '../../store/roots.js';
import { sanitizeTerminalText } from '../../unicode/terminal-text.js';
import { boundInput } from '../../document/echo-input.js';

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
  'allow-local-link'?: boolean;
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
  const { readFileSafe } = await import('../../store/read-file-safe.js');
  const { resolve } = await import('node:path');
  const file = resolve(ctx.io.runtime.cwd, argv['body-file']!);
  if (STDIN_PATHS.includes(file)) {
    // this process's standard input under a file name: read as --stdin reads it, to its end, bounded
    const buf = await ctx.io.readStdin(BODY_MAX_BYTES + 1);
    if (buf.length > BODY_MAX_BYTES) throw tooLarge('--body-file');
    return decode(buf, '--body-file');
  }
  const { lstatSync } = await import('node:fs');
  // A named pipe is opened once, by the pipe reader: a first open and close by the file reader
  // would let a waiting writer write into a pipe that then loses its bytes.
  const read: { ok: true; bytes: Buffer } | { ok: false; code: string } = lstatSync(file, { throwIfNoEntry: false })?.isFIFO()
    ? await readFifo(file)
    : readFileSafe(file, BODY_READ_CAP);
  if (!read.ok) {
    if (read.code === 'too-large') throw tooLarge('--body-file');
    const why =
      read.code === 'ELOOP'
        ? 'is a symbolic link (refused)'
        : read.code === 'ENOENT'
          ? 'does not exist'
          : read.code === 'not-a-regular-file'
            ? 'is not a regular file or a named pipe'
            : read.code === 'no-writer'
              ? `is a named pipe that got no writer, or no more bytes and no end, within ${FIFO_WAIT_MS / 1000} s`
              : `cannot be read (${read.code})`;
    throw new VaultError('invalid-input', `--body-file ${boundInput(String(argv['body-file']), 300)} ${why}`, {
      field: 'body-file',
      hint:
        read.code === 'ELOOP' || read.code === 'not-a-regular-file'
          ? 'give the path of a regular UTF-8 text file or a named pipe; to read standard input, use --stdin (read to its end, at most 64 KiB)'
          : read.code === 'no-writer'
            ? 'start the writer first, or pipe the body into --stdin'
            : 'give the path of a regular UTF-8 text file',
    });
  }
  return decode(read.bytes, '--body-file');
}

/** The body limit (document/contract.ts LIMITS.bodyMaxBytes): a pipe is read to at most one byte more. */
const BODY_MAX_BYTES = LIMITS.bodyMaxBytes;
/** Names of this process's standard input. */
const STDIN_PATHS = ['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0'];
/** How long a named pipe may stay without a writer, or without its end, before the read gives up. */
const FIFO_WAIT_MS = 5000;

/**
 * Reads a named pipe (FIFO) to its end, at most {@link BODY_MAX_BYTES} + 1 bytes, never blocking
 * the process: it is opened with O_NONBLOCK (so the open returns at once even without a writer)
 * and read without waiting, with short pauses while the writer has nothing to say. A pipe that has
 * no writer, or whose writer neither writes nor closes, is given up after {@link FIFO_WAIT_MS}.
 *
 * @returns the bytes, or `too-large`, `not-a-regular-file` (not a FIFO: a device, a socket, a
 *   folder), `no-writer`, or the file system's code
 */
async function readFifo(file: string): Promise<{ ok: true; bytes: Buffer } | { ok: false; code: string }> {
  const { closeSync, constants, fstatSync, openSync, readSync } = await import('node:fs');
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFIFO()) return { ok: false, code: 'not-a-regular-file' };
    const buf = Buffer.alloc(BODY_MAX_BYTES + 1);
    let off = 0;
    let writerSeen = false;
    let deadline = Date.now() + FIFO_WAIT_MS;
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, off, buf.length - off, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
        n = -1; // a writer is there, with nothing to read yet
      }
      if (n > 0) {
        writerSeen = true;
        deadline = Date.now() + FIFO_WAIT_MS;
        off += n;
        if (off > BODY_MAX_BYTES) return { ok: false, code: 'too-large' };
        continue;
      }
      if (n === 0 && writerSeen) break; // end of file: the writer closed
      if (n < 0) writerSeen = true;
      // n === 0 before any writer: none has opened the pipe yet
      if (Date.now() > deadline) return { ok: false, code: 'no-writer' };
      await new Promise((r) => setTimeout(r, 10));
    }
    return { ok: true, bytes: buf.subarray(0, off) };
  } catch (err) {
    return { ok: false, code: (err as NodeJS.ErrnoException).code ?? 'read-error' };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `vault save`: write a new memory, create-only. */
export const saveCommand = (ctx: CliContext) => ({
  command: 'save',
  describe: 'save a new memory (create-only; trust is always "unreviewed")',
  builder: (y: Argv) =>
    y
      .option('title', { type: 'string', requiresArg: true, demandOption: true, describe: 'title, 1..200 characters' })
      .option('body', { type: 'string', requiresArg: true, describe: 'body text (Markdown)' })
      .option('body-file', { type: 'string', requiresArg: true, describe: 'read the body from a UTF-8 file or a named pipe (/dev/stdin too), to its end' })
      .option('stdin', { type: 'boolean', describe: 'read the body from standard input' })
      .option('kind', {
        type: 'string',
        requiresArg: true,
        choices: KINDS,
        describe: 'kind of memory (default note)',
      })
      .option('scope', {
        type: 'string',
        requiresArg: true,
        choices: SCOPES,
        describe: 'project (local, default), team (committed) or user (~/.ecc)',
      })
      .option('tag', { type: 'string', requiresArg: true, array: true, describe: 'tag (repeatable; a leading # is dropped)' })
      .option('link', { type: 'string', requiresArg: true, array: true, describe: 'id of a related or superseded memory (repeatable)' })
      .option('source-harness', { type: 'string', requiresArg: true, describe: 'who writes it (default $ECC_MEMORY_HARNESS, $VAULT_HARNESS, else "unknown")' })
      .option('target-harness', { type: 'string', requiresArg: true, array: true, describe: 'harness that should recall it (repeatable; default all)' })
      .option('id', { type: 'string', requiresArg: true, describe: 'explicit id (default mem_<YYYYMMDD>_<20 hex>)' })
      .option('dry-run', {
        type: 'boolean',
        describe:
          'check the memory, its links and folders, write nothing; the similar-memory check (and --unique) runs only on a real save (also ECC_DRY_RUN=1)',
      })
      .option('template', { type: 'boolean', describe: "fill the body from the kind's template (templates/<kind>.md) with the --section values" })
      .option('section', {
        type: 'string',
        requiresArg: true,
        array: true,
        describe: 'with --template: "Name=text" for one section, e.g. "Context=..." (repeatable; repeating a name adds a line)',
      })
      .option('allow-local-link', {
        type: 'boolean',
        describe: "keep a team memory's links to project-scope memories without the warning (they are broken in every other clone)",
      })
      .option('unique', { type: 'boolean', describe: 'refuse to save when the scope already holds a memory with the same title or a near-identical body' })
      .option('wikilinks', { type: 'boolean', describe: 'also append "Related: [[id]], ..." for the --link ids to the body (for Obsidian\'s graph)' })
      .example(
        '$0 save --kind runbook --template --section "When to use=Disk full" --section "Steps=1. df -h" --title "Free disk"',
        'a body from templates/runbook.md',
      )
      .example('$0 save --scope team --kind decision --title "Use Redis sessions" --body "..." --tag auth', 'record a team decision'),
  handler: (argv: SaveArgs) => runCommand(ctx, argv, () => runSave(ctx, argv)),
});

/**
 * `vault save`: reads the body (flag, file, stdin or template), then saves through the save
 * operation and reports what it did.
 *
 * @throws VaultError `usage` for conflicting or repeated flags; whatever the save refuses
 */
export async function runSave(ctx: CliContext, argv: SaveArgs): Promise<number> {
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
  const { save } = await import('../../operations/save.js');
  const roots = await rootsFor(ctx, argv);
  const result = await save(roots, await saveInputFrom(ctx, argv, { body }), ctx.io.runtime, saveOptionsFrom(ctx, argv));
  reportSaved(ctx, argv, result, roots);
  return EXIT.ok;
}

/** The flags of `vault save` that `vault handoff` and `vault new` share. */
export type SaveFlags = Partial<
  Pick<SaveArgs, 'title' | 'kind' | 'scope' | 'tag' | 'link' | 'source-harness' | 'target-harness' | 'id' | 'dry-run' | 'unique' | 'allow-local-link'>
>;

/**
 * The CLI's one mapping from its flags to the save operation's input (save, handoff, new):
 * kebab-case flags to {@link SaveInput}, the writer defaulting to ECC_MEMORY_HARNESS /
 * VAULT_HARNESS (see sourceHarnessFromEnv). `values` are what the command decided itself (the
 * body; handoff's kind and harnesses; the draft of `vault new`), and win over the flags.
 */
export async function saveInputFrom(ctx: CliContext, argv: SaveFlags, values: Partial<SaveInput> & { body: string }): Promise<SaveInput> {
  const { sourceHarnessFromEnv } = await import('../../operations/save.js');
  const input: SaveInput = {
    title: argv.title ?? '',
    kind: argv.kind,
    scope: argv.scope,
    tags: argv.tag,
    links: argv.link,
    sourceHarness: argv['source-harness'],
    targetHarnesses: argv['target-harness'],
    id: argv.id,
    ...(argv['allow-local-link'] ? { allowLocalLinks: true } : {}),
    ...values,
  };
  input.sourceHarness ??= sourceHarnessFromEnv(ctx.io.runtime.env);
  return input;
}

/** `--dry-run` (or ECC_DRY_RUN=1) and `--unique`, as the save operation takes them. */
export function saveOptionsFrom(ctx: CliContext, argv: SaveFlags): SaveOptions {
  return { dryRun: Boolean(argv['dry-run']) || ctx.io.runtime.env.ECC_DRY_RUN === '1', unique: Boolean(argv.unique) };
}

/**
 * Reports a save (save, handoff, new): with `--json` the id, path, scope, kind, whether it was
 * written, the similar memories (plus `extra`) and the warnings (`{code, message}`: team →
 * project links, tags Obsidian ignores); otherwise those warnings and one about similar memories
 * on stderr, and {@link printSaved}.
 */
export function reportSaved(ctx: CliContext, argv: GlobalArgs, result: SaveResult, roots: VaultRoots, extra: Record<string, unknown> = {}): void {
  const m = result.memory;
  const similar = result.similar.map((x) => ({ id: x.id, path: x.path, reason: x.reason }));
  if (argv.json) {
    printJson(ctx, { id: m.id, path: result.path, scope: m.scope, kind: m.kind, written: result.written, ...extra, similar, warnings: result.warnings });
    return;
  }
  for (const w of result.warnings) ctx.io.stderr(`warning: ${sanitizeTerminalText(w.message)}\n`);
  if (similar.length) ctx.io.stderr(`warning: similar memories already exist: ${similar.map((x) => `${x.id} (${x.reason})`).join(', ')}\n`);
  printSaved(ctx, result, roots);
}
