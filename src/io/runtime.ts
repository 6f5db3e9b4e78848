/**
 * The ports through which core code sees the outside world: working directory, environment,
 * home directory, clock, randomness and the facts of the running process. Core code never calls
 * Date.now(), randomBytes, process.env or process.pid itself, so tests can pin them (the
 * architecture test holds it: only src/io/ and the adapters touch `process`).
 */
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';

/** Random ids and the facts of the running process: what a writer needs to name its temporary files. */
export interface ProcessIds {
  /** `bytes` random bytes as lowercase hex (2 × bytes characters) */
  randomHex(bytes: number): string;
  /** id of this process (in the names of work files, so a later run can tell a dead writer's leftovers) */
  pid: number;
  /** true when a process with this id exists (it may belong to another user) */
  isProcessAlive(pid: number): boolean;
}

export interface Runtime extends ProcessIds {
  /** absolute working directory */
  cwd: string;
  /** environment variables */
  env: Readonly<Record<string, string | undefined>>;
  /** absolute home directory (HOME, then USERPROFILE, then os.homedir()) */
  home: string;
  /** current time */
  now(): Date;
  /** user id of this process (-1 where there is none, Windows): the index server answers only its own user */
  uid: number;
}

function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * True when Linux's procfs shows `pid` exited and not yet reaped (state Z): it runs nothing and
 * holds no lock. A detached index server's parent is gone, and init may reap it only seconds
 * later (`vault watch --stop` waited for that). False wherever procfs cannot tell.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.charAt(stat.lastIndexOf(')') + 2) === 'Z';
  } catch {
    return false;
  }
}

/**
 * `n` random bytes read from the kernel's generator (`/dev/urandom`, the source node:crypto's
 * randomBytes draws from too), or undefined where it cannot be read as the character device it
 * is (not Linux or another Unix, a link or a FIFO in its place, a short read): the caller then
 * uses node:crypto. Loading node:crypto cost every `vault save` ~4-6 ms for its one id and two
 * temporary names (the lean bundle loads it only when it is used).
 *
 * @param n bytes wanted (≥ 0)
 */
/** Linux's device number of /dev/urandom (major 1, minor 9). */
const URANDOM_RDEV = (1 << 8) | 9;

export function kernelRandom(n: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    // never through a link, and never waiting on a FIFO put in its place
    fd = openSync('/dev/urandom', constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    // the device itself (Linux's 1:9), not another one mounted in its place (/dev/zero is 1:5)
    const st = fstatSync(fd);
    if (!st.isCharacterDevice() || (process.platform === 'linux' && st.rdev !== URANDOM_RDEV)) return undefined;
    const out = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const r = readSync(fd, out, got, n - got, null);
      if (r <= 0) return undefined;
      got += r;
    }
    return out;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The ids and process facts of this process. Needs no working directory or environment, so code
 * that only names temporary files (the search index) can default to it.
 */
export const processIds: ProcessIds = {
  randomHex: (n: number) => (kernelRandom(n) ?? randomBytes(n)).toString('hex'),
  pid: process.pid,
  isProcessAlive,
};

/** The system clock, for core code that is given no Runtime (the search index's full-check interval). */
export const systemClock = { nowMs: (): number => Date.now() };

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
    randomHex: overrides.randomHex ?? processIds.randomHex,
    pid: overrides.pid ?? processIds.pid,
    isProcessAlive: overrides.isProcessAlive ?? processIds.isProcessAlive,
    uid: overrides.uid ?? process.getuid?.() ?? -1,
  };
}
