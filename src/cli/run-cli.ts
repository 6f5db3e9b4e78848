/**
 * Process entry of the full (yargs) CLI: real streams, real environment (see process-io.ts).
 */
import { exitAfterOutput, ignoreClosedPipes, nodeCliIo } from './process-io.js';

export { nodeCliIo };

/** Runs the CLI for this process and returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  ignoreClosedPipes();
  const { main } = await import('./main.js');
  return exitAfterOutput(await main(argv, nodeCliIo()));
}
