import type { Argv } from 'yargs';
import { KINDS } from '../../document/contract.js';
import { printJson, printText, runCommand, type CliContext, type GlobalArgs } from '../command-context.js';

interface TemplatesArgs extends GlobalArgs {
  kind?: string;
}

/**
 * `vault templates [KIND]`: without a kind, one line per kind (its sections and what it is for);
 * with one, the template itself as `vault new` starts from it and `save --template` fills it.
 */
export const templatesCommand = (ctx: CliContext) => ({
  command: 'templates [kind]',
  describe: 'list the body templates of the kinds, or print one (templates/<kind>.md)',
  builder: (y: Argv) =>
    y
      .positional('kind', { type: 'string', choices: [...KINDS], describe: 'kind whose template to print' })
      .example('$0 templates', 'each kind with its sections')
      .example('$0 templates decision', 'the decision template, guidance comments included'),
  handler: (argv: TemplatesArgs) => runCommand(ctx, argv, () => runTemplates(ctx, argv)),
});

/**
 * Lists or prints the kind templates.
 *
 * @throws VaultError `usage` (a kind given twice); `invalid-input`, `io-error` from `loadTemplate`
 */
export async function runTemplates(ctx: CliContext, argv: TemplatesArgs): Promise<void> {
  const { loadTemplate, loadAllTemplates, defaultTemplatesDir } = await import('../../templates/index.js');
  const { join } = await import('node:path');
  if (argv.kind !== undefined) {
    const t = loadTemplate(String(argv.kind));
    if (argv.json) printJson(ctx, { kind: t.kind, file: join(defaultTemplatesDir(), `${t.kind}.md`), sections: t.sections.map((s) => s.name), text: t.text });
    else ctx.io.stdout(t.text.endsWith('\n') ? t.text : `${t.text}\n`);
    return;
  }
  const all = loadAllTemplates();
  if (argv.json) {
    printJson(
      ctx,
      all.map((t) => ({
        kind: t.kind,
        file: join(defaultTemplatesDir(), `${t.kind}.md`),
        sections: t.sections.map((s) => s.name),
        purpose: purposeOf(t.preamble),
      })),
    );
    return;
  }
  const width = Math.max(...all.map((t) => t.kind.length));
  for (const t of all) printText(ctx, `${t.kind.padEnd(width)}  ${t.sections.map((s) => s.name).join(' · ')}`);
  printText(ctx, '');
  printText(ctx, `templates: ${defaultTemplatesDir()}`);
  printText(
    ctx,
    'print one with `vault templates <kind>`; fill one with `vault save --kind <kind> --template --section "Name=text"` or `vault new --kind <kind>`',
  );
}

/** The template's first guidance sentence after `<kind>:` (what the kind is for). */
function purposeOf(preamble: readonly string[]): string {
  const first = preamble[0] ?? '';
  return first.replace(/^[a-z]+:\s*/, '');
}
