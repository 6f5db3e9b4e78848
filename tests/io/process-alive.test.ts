/**
 * io/runtime.ts `isProcessAlive`: a process that exited but was not reaped yet (a zombie, state Z
 * on Linux) counts as gone, so `vault watch --stop` does not wait for init to reap a detached
 * server, and a lock of a dead process is not kept.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processIds } from '../../src/io/runtime.js';

describe.skipIf(process.platform !== 'linux')('isProcessAlive', () => {
  it('is true for a running process and false for an exited one its parent has not reaped', async () => {
    // sh starts `sleep 0.1` in the background, prints its pid, then becomes `sleep 3`, which never reaps it
    const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 3'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (d: Buffer) => resolve(d.toString()))));
    try {
      expect(processIds.isProcessAlive(pid)).toBe(true);
      await new Promise((r) => setTimeout(r, 600));
      expect(processIds.isProcessAlive(parent.pid!)).toBe(true);
      expect(processIds.isProcessAlive(pid), 'an exited, unreaped child').toBe(false);
    } finally {
      parent.kill();
    }
  });
});
