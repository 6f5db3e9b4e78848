/**
 * The command registry. Each entry builds one yargs command module; command modules are thin
 * (flags + one call into the library) and load heavy code lazily inside their handler.
 * Add a command: one line here, one file beside this one.
 */

import type { CliContext } from '../command-context.js';
import { doctorCommand } from './doctor.js';
import { fmtCommand } from './fmt.js';
import { shareCommand } from './share.js';
import { initCommand } from './init.js';
import { mcpCommand } from './mcp.js';
import { newCommand } from './new.js';
import { readCommand } from './read.js';
import { saveCommand } from './save.js';
import { hookCommand } from './hook.js';
import { hooksCommand } from './hooks.js';
import { sessionsCommand } from './sessions.js';
import { handoffCommand } from './handoff.js';
import { searchCommand } from './search.js';
import { indexCommand } from './index-cmd.js';
import { watchCommand } from './watch.js';
import { templatesCommand } from './templates.js';
import { completionCommand } from './completion.js';
import { reviewCommand } from './review.js';
import { retireCommand } from './retire.js';

// biome-ignore lint/suspicious/noExplicitAny: each command module types its own yargs builder and argv; the registry only lists them
export type CommandFactory = (ctx: CliContext) => { command: string; describe: string; builder: (y: any) => any; handler: (argv: any) => Promise<void> };

export const commandModules: CommandFactory[] = [
  initCommand,
  saveCommand,
  newCommand,
  readCommand,
  doctorCommand,
  fmtCommand,
  retireCommand,
  shareCommand,
  mcpCommand,
  hookCommand,
  hooksCommand,
  sessionsCommand,
  reviewCommand,
  handoffCommand,
  searchCommand,
  indexCommand,
  watchCommand,
  templatesCommand,
  completionCommand,
];
