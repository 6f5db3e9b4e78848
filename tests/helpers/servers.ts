/**
 * Index servers a test started (`vault watch --detach`): registered by pid and killed after each
 * test, so a failed assertion never leaves one running.
 */
import { afterEach } from 'vitest';

/**
 * The pids to kill after each test of the calling file (push a started server's pid onto it).
 * Call once at the top of a test file.
 */
export function killServersAfterEach(): number[] {
  const started: number[] = [];
  afterEach(() => {
    while (started.length) {
      const pid = started.pop()!;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  });
  return started;
}
