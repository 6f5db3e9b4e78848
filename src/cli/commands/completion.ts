import type { Argv } from 'yargs';
import { runCommand, type CliContext, type GlobalArgs } from '../command-context.js';

interface CompletionArgs extends GlobalArgs {
  shell: string;
}

/** `vault completion bash|zsh|fish`: print a shell completion script built from the command registry. */
export const completionCommand = (ctx: CliContext) => ({
  command: 'completion <shell>',
  describe: 'print a shell completion script (bash, zsh or fish) for the commands, flags and their choices',
  builder: (y: Argv) =>
    y
      .positional('shell', { type: 'string', choices: ['bash', 'zsh', 'fish'], describe: 'which shell' })
      .example('$0 completion bash > ~/.local/share/bash-completion/completions/vault', 'bash, loaded on demand')
      .example("echo 'source <(vault completion zsh)' >> ~/.zshrc", 'zsh')
      .example('$0 completion fish > ~/.config/fish/completions/vault.fish', 'fish'),
  handler: (argv: CompletionArgs) =>
    runCommand(ctx, argv, async () => {
      const [{ completionScript, completionSpec, globalFlagsOf }, { buildParser }] = await Promise.all([import('../completion.js'), import('../main.js')]);
      const spec = completionSpec(ctx, globalFlagsOf(buildParser(ctx, [])));
      ctx.io.stdout(completionScript(argv.shell as 'bash' | 'zsh' | 'fish', spec));
    }),
});
