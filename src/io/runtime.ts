/**
 * The ports through which core code sees the outside world: working directory, environment,
 * home directory, clock and randomness. Core code never calls Date.now(), randomBytes or
 * process.env itself, so tests can pin them.
 */
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';

export interface Runtime {
  /** absolute working directory */
  cwd: string;
  /** environment variables */
  env: Readonly<Record<string, string | undefined>>;
  /** absolute home directory (HOME, then USERPROFILE, then os.homedir()) */
  home: string;
  /** current time */
  now(): Date;
  /** `bytes` random bytes as lowercase hex (2 × bytes characters) */
  randomHex(bytes: number): string;
}

/**
 * The runtime of the current Node.js process, with optional overrides.
 *
 * @param overrides fields to replace (tests pass cwd, env, a fixed clock)
 */
export function nodeRuntime(overrides: Partial<Runtime> = {}): Runtime {
  const env = overrides.env ?? process.env;
  return {
    cwd: overrides.cwd ?? process.cwd(),
    env,
    home: overrides.home ?? env.HOME ?? env.USERPROFILE ?? homedir(),
    now: overrides.now ?? (() => new Date()),
    randomHex: overrides.randomHex ?? ((n: number) => randomBytes(n).toString('hex')),
  };
}
