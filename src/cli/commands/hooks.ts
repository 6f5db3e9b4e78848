import type { Argv } from 'yargs';
import { VaultError } from '../../errors.js';
import { printJson, printText, runCommand, usageError, type CliContext, type GlobalArgs } from '../command-context.js';

interface HooksArgs extends GlobalArgs {
  action: string;
  harness: string;
  scope?: string;
  'dry-run'?: boolean;
  command?: string;
  instructions?: boolean;
}

const HARNESS_TITLES = { 'claude-code': 'Claude Code', codex: 'Codex', 'gemini-cli': 'Gemini CLI', cursor: 'Cursor' } as const;

/** The command that runs this installation of vault: node plus the absolute bin path, quoted. */
async function defaultPrefix(): Promise<string> {
  const { fileURLToPath } = await import('node:url');
  const bin = fileURLToPath(new URL('../../../bin/vault.js', import.meta.url));
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)}`;
}

/**
 * Asks on the terminal whether to install the recall protocol too: one y/N question, one key
 * (`y` yes; anything else, Enter and Ctrl-C included, no).
 */
async function askInstructions(ctx: CliContext, file: string, scope: 'project' | 'user', readKey: () => Promise<string>): Promise<boolean> {
  ctx.io.stdout(`Also install the recall protocol in ${file}${scope === 'project' ? ' (a file meant to be committed)' : ''}? [y/N] `);
  const yes = (await readKey()).toLowerCase() === 'y';
  ctx.io.stdout(`${yes ? 'y' : 'n'}\n`);
  return yes;
}

/** `vault hooks install|uninstall --harness H`: merge our hooks into a harness's settings. */
export const hooksCommand = (ctx: CliContext) => ({
  command: 'hooks <action>',
  describe: 'install or uninstall the session hooks for Claude Code, Codex, Gemini CLI or Cursor',
  builder: (y: Argv) =>
    y
      .positional('action', { type: 'string', choices: ['install', 'uninstall'], describe: 'install or uninstall' })
      .option('harness', {
        type: 'string',
        choices: ['claude-code', 'codex', 'gemini-cli', 'cursor'],
        demandOption: true,
        describe: 'which agent (aliases such as claude, gemini resolve)',
      })
      .option('scope', {
        type: 'string',
        choices: ['project', 'user'],
        describe:
          'project (default: .claude/settings.local.json, .codex/hooks.json, .gemini/settings.json or .cursor/hooks.json) or user (~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json or ~/.cursor/hooks.json)',
      })
      .option('dry-run', { type: 'boolean', describe: 'print the diff, change nothing' })
      .option('command', { type: 'string', describe: 'how the harness should run vault (default: this node and bin/vault.js, absolute)' })
      .option('instructions', {
        type: 'boolean',
        describe:
          'also install the recall protocol where the harness reads instructions: a skill (.claude/skills/vault-recall/SKILL.md) or a block in AGENTS.md (Codex, Cursor) or GEMINI.md (Gemini CLI); files meant to be committed. With --scope user: ~/.claude/skills/vault-recall/SKILL.md, $CODEX_HOME/AGENTS.md (default ~/.codex), ~/.gemini/GEMINI.md (not Cursor). On a terminal, install asks when neither --instructions nor --no-instructions is given; elsewhere the default is no. uninstall removes them',
      })
      .example('$0 hooks install --harness codex --instructions', 'hooks in .codex/hooks.json and the recall protocol in AGENTS.md')
      .example('$0 hooks install --harness claude-code --dry-run', 'show what would change in .claude/settings.local.json'),
  handler: (argv: HooksArgs) =>
    runCommand(ctx, argv, async () => {
      if (Array.isArray(argv.harness) || Array.isArray(argv.scope)) usageError('--harness and --scope may be given only once');
      const harness = argv.harness as keyof typeof HARNESS_TITLES;
      const scope = (argv.scope ?? 'project') as 'project' | 'user';
      const {
        settingsFileFor,
        planInstall,
        planUninstall,
        readSettingsFile,
        applySettingsPlan,
        diffLines,
        normalizedBefore,
        backupPathFor,
        gitignoreLinesFor,
      } = await import('../../operations/install-hooks.js');
      const [{ checkAbsoluteEnvPath, findWorktreeRoot }, { dirname, isAbsolute, join }] = await Promise.all([
        import('../../store/roots.js'),
        import('node:path'),
      ]);
      const rt = ctx.io.runtime;
      // a user-scope settings file under an empty or relative HOME would land in the working directory
      const home =
        scope === 'user' && !(harness === 'codex' && rt.env.CODEX_HOME !== undefined)
          ? checkAbsoluteEnvPath('HOME', rt.home, 'set HOME to your home folder (an absolute path such as /home/you)')
          : rt.home;
      const userRoots = isAbsolute(rt.home) ? [join(rt.home, '.ecc', 'memory')] : [];
      const file = settingsFileFor(harness, scope, { worktreeRoot: findWorktreeRoot(rt.cwd, userRoots), home, env: rt.env });
      const before = readSettingsFile(file);
      let plan;
      if (argv.action === 'install') {
        const prefix = argv.command?.trim() || (await defaultPrefix());
        if (/[\r\n]/.test(prefix)) throw new VaultError('invalid-input', '--command must be one line', { field: 'command' });
        plan = planInstall(file, before, harness, prefix);
      } else plan = planUninstall(file, before, harness);
      const dryRun = Boolean(argv['dry-run']);
      // the recall protocol: installed with --instructions, removed by every uninstall that finds it unchanged
      const instr = await import('../../operations/install-instructions.js');
      const codexHome = scope === 'user' && harness === 'codex' && rt.env.CODEX_HOME !== undefined ? dirname(file) : undefined;
      const target = instr.instructionsTargetFor(harness, scope, { worktreeRoot: findWorktreeRoot(rt.cwd), home, codexHome });
      if (!target && argv.instructions)
        throw new VaultError('invalid-input', `${HARNESS_TITLES[harness]} reads no user-level instructions file`, {
          field: 'instructions',
          hint: 'install the recall protocol per project (--scope project --instructions), or add it to your user rules in its settings',
        });
      let wantInstructions = argv.instructions;
      if (target && argv.action === 'install' && wantInstructions === undefined && !argv.json && ctx.io.readKey)
        wantInstructions = await askInstructions(ctx, target.file, scope, ctx.io.readKey);
      let instructions: ReturnType<typeof instr.planInstructions> | undefined;
      if (target && argv.action === 'install' && wantInstructions) instructions = instr.planInstructions(harness, target, 'install');
      else if (target && argv.action === 'uninstall') {
        try {
          instructions = instr.planInstructions(harness, target, 'uninstall');
        } catch (err) {
          if (argv.instructions) throw err;
          ctx.io.stderr(`warning: ${(err as Error).message}\n`);
        }
      }
      const backup = dryRun ? undefined : applySettingsPlan(plan, rt.randomHex);
      if (instructions && target && !dryRun) instr.applyInstructionsPlan(instructions, target, rt.randomHex);
      // a project-scope file holds this machine's paths: offer the .gitignore lines git still lacks,
      // the backup's too (a later change, an uninstall, writes one even where none was made now)
      let gitignoreLines: string[] = [];
      if (scope === 'project' && argv.action === 'install' && plan.changed) {
        const { runGit } = await import('../../io/git.js');
        gitignoreLines = gitignoreLinesFor(findWorktreeRoot(rt.cwd, userRoots), [file, backupPathFor(file)], runGit);
      }
      const shown = normalizedBefore(plan);
      // Installed at the other scope too? The harness would run every event twice.
      const otherScope = scope === 'project' ? 'user' : 'project';
      let alsoInstalledAt: string | undefined;
      if (argv.action === 'install') {
        try {
          const other = settingsFileFor(harness, otherScope, { worktreeRoot: findWorktreeRoot(rt.cwd, userRoots), home: rt.home, env: rt.env });
          if (other !== file && planUninstall(other, readSettingsFile(other), harness).changes.length) alsoInstalledAt = other;
        } catch {
          /* unreadable or not ours to judge: say nothing */
        }
      }
      if (argv.json) {
        printJson(ctx, {
          action: argv.action,
          harness,
          scope,
          file,
          changed: plan.changed,
          dryRun,
          changes: plan.changes,
          ...(backup ? { backup } : {}),
          ...(dryRun ? { diff: diffLines(shown.text, plan.after ?? ''), reformatted: shown.reformatted } : {}),
          ...(gitignoreLines.length ? { gitignoreLines } : {}),
          ...(alsoInstalledAt ? { alsoInstalledAt } : {}),
          ...(instructions
            ? {
                instructions: {
                  file: instructions.file,
                  changed: instructions.changed,
                  changes: instructions.changes,
                  ...(dryRun ? { diff: diffLines(instructions.before ?? '', instructions.after ?? '') } : {}),
                },
              }
            : {}),
        });
        return;
      }
      const reportInstructions = () => {
        if (!instructions) return;
        if (!instructions.changed) printText(ctx, `${instructions.file}: recall protocol already ${argv.action === 'install' ? 'installed' : 'absent'}`);
        else if (dryRun) {
          printText(ctx, `Dry run: would ${instructions.after === undefined ? 'delete' : 'change'} ${instructions.file}`);
          printText(ctx, diffLines(instructions.before ?? '', instructions.after ?? ''));
        } else {
          for (const c of instructions.changes) printText(ctx, `  ${c}`);
          if (argv.action === 'install' && scope === 'project')
            printText(ctx, '  this file holds no machine paths and is meant to be committed (unlike settings.local.json)');
        }
      };
      if (alsoInstalledAt)
        ctx.io.stderr(
          `warning: vault hooks for ${harness} are also installed at ${otherScope} scope (${alsoInstalledAt}); ${HARNESS_TITLES[harness]} runs both, so every event would run twice. Keep one: vault hooks uninstall --harness ${harness} --scope ${otherScope}\n`,
        );
      if (!plan.changed) {
        printText(ctx, `${file}: already ${argv.action === 'install' ? 'installed' : 'clean'}, nothing to change`);
        reportInstructions();
        return;
      }
      const offerIgnore = () => {
        if (!gitignoreLines.length) return;
        printText(
          ctx,
          `  git does not ignore ${gitignoreLines.length === 1 ? "this file (it holds this machine's paths)" : "these files (they hold this machine's paths)"}; add to .gitignore:`,
        );
        for (const line of gitignoreLines) printText(ctx, `    ${line}`);
      };
      if (dryRun) {
        printText(ctx, `Dry run: would ${plan.after === undefined ? 'delete' : 'change'} ${file}`);
        if (shown.reformatted) printText(ctx, '  (the file is rewritten as 2-space JSON; shown below in that form, so only real changes are marked)');
        printText(ctx, diffLines(shown.text, plan.after ?? ''));
        offerIgnore();
        reportInstructions();
        return;
      }
      printText(ctx, `${argv.action === 'install' ? 'Installed' : 'Removed'} ${plan.changes.length} hook entries in ${file}`);
      for (const c of plan.changes) printText(ctx, `  ${c}`);
      if (backup) printText(ctx, `  backup: ${backup} (the content before this change; replaced by the next one)`);
      offerIgnore();
      reportInstructions();
      if (harness === 'codex' && argv.action === 'install')
        printText(
          ctx,
          '  Codex: hooks are on by default; if switched off, set [features] hooks = true in config.toml (older versions: codex_hooks = true); project hooks must be trusted; see docs/hooks.md',
        );
      if (harness === 'gemini-cli' && argv.action === 'install')
        printText(
          ctx,
          '  Gemini CLI: session start and prompt recall only (no snapshots: its transcript is not a format vault reads); if the hooks system is off, turn on "Enable Hooks System" in /settings; see docs/hooks.md',
        );
      if (harness === 'cursor' && argv.action === 'install')
        printText(
          ctx,
          '  Cursor: session start only (its beforeSubmitPrompt hook cannot add context, so prompt recall goes through MCP: vault mcp); project hooks run in trusted workspaces; see docs/hooks.md',
        );
    }),
});
