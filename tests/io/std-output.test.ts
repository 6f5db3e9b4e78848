/**
 * The synchronous standard-output writer (src/io/std-output.ts): whole text written, a reader
 * that went away ends the output quietly, and a full non-blocking descriptor hands the rest, and
 * everything after it, to the stream in order. Through the real binary: tests/cli/bin-smoke.test.ts
 * (EPIPE, terminal colours).
 */
import { spawnSync } from 'node:child_process';
import { openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isTerminal, stdWriter } from '../../src/io/std-output.js';
import { BIN, cliEnv, gitRepo, tempDir } from '../helpers/cli.js';

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

/** A fake write that takes at most `chunk` bytes per call and fails with `fail` once `failAt` bytes were taken. */
function fakeWrite(sink: Buffer[], chunk: number, failAt = Infinity, fail = 'EAGAIN'): typeof writeSync {
  let taken = 0;
  return ((_fd: number, buf: Buffer, off: number, len: number) => {
    if (taken >= failAt) throw errno(fail);
    const n = Math.min(len, chunk, failAt - taken);
    sink.push(Buffer.from(buf.subarray(off, off + n)));
    taken += n;
    return n;
  }) as unknown as typeof writeSync;
}

/** A stream collecting into `sink`, and how many times the writer asked for it. */
function fakeStream(sink: Buffer[]): { factory: () => Writable; built: () => number } {
  let built = 0;
  const stream = new Writable({
    write(c: Buffer, _e, cb) {
      sink.push(Buffer.from(c));
      cb();
    },
  });
  return {
    factory: () => {
      built++;
      return stream;
    },
    built: () => built,
  };
}

describe('stdWriter', () => {
  it('writes the whole text in pieces as the descriptor takes them, never building the stream', () => {
    const sink: Buffer[] = [];
    const s = fakeStream([]);
    const w = stdWriter(1, s.factory, fakeWrite(sink, 3));
    w.write('héllo wörld\n');
    w.write('');
    w.write('again');
    expect(Buffer.concat(sink).toString('utf8')).toBe('héllo wörld\nagain');
    expect(s.built()).toBe(0);
  });

  it('a full non-blocking descriptor (EAGAIN): the rest and every later write go through the stream, in order', async () => {
    const direct: Buffer[] = [];
    const viaStream: Buffer[] = [];
    const s = fakeStream(viaStream);
    const w = stdWriter(1, s.factory, fakeWrite(direct, 4, 6));
    w.write('0123456789');
    w.write('abc');
    await w.flushed();
    expect(Buffer.concat(direct).toString()).toBe('012345');
    expect(Buffer.concat(viaStream).toString()).toBe('6789abc');
    expect(s.built()).toBe(1);
  });

  it('a reader that went away (EPIPE) or a closed descriptor ends the output quietly', async () => {
    for (const code of ['EPIPE', 'EBADF']) {
      const sink: Buffer[] = [];
      const s = fakeStream([]);
      const w = stdWriter(2, s.factory, fakeWrite(sink, 100, 2, code));
      expect(() => w.write('abcdef')).not.toThrow();
      expect(() => w.write('more')).not.toThrow();
      await w.flushed();
      expect(Buffer.concat(sink).toString(), code).toBe('ab');
      expect(s.built()).toBe(0);
    }
  });
});

describe('a failed write', () => {
  it('other than EPIPE is kept as the failure (EPIPE is none)', () => {
    for (const [code, want] of [
      ['ENOSPC', 'ENOSPC'],
      ['EIO', 'EIO'],
      ['EPIPE', undefined],
    ] as const) {
      const w = stdWriter(1, fakeStream([]).factory, fakeWrite([], 100, 0, code));
      w.write('x');
      expect(w.failure(), code).toBe(want);
    }
  });

  it('through the binary: a search or save whose output cannot be written (a full disk) exits 7 and says so', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    for (const args of [
      ['search', 'anything', '--json'],
      ['save', '--scope', 'team', '--title', 'Output lost', '--body', 'the id could not be printed', '--json'],
    ]) {
      const r = spawnSync(process.execPath, [BIN, ...args], { cwd: repo, env, stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'], encoding: 'utf8' });
      expect(r.status, `${args[0]}: ${r.stderr}`).toBe(7);
      expect(r.stderr).toContain('error: cannot write the output (ENOSPC)');
    }
  });
});

describe('isTerminal', () => {
  it('answers false for a descriptor that is not a character device (vitest runs with piped stdio) and for a closed one', () => {
    // fd 0 of a vitest worker is a pipe or /dev/null; neither is a terminal
    expect(isTerminal(0)).toBe(false);
  });

  it('through the binary: output to /dev/null (a character device) is no terminal, and node:tty is never loaded for it', async () => {
    const repo = gitRepo();
    const probe = join(tempDir('vault-probe-'), 'probe.cjs');
    writeFileSync(probe, "process.on('exit', () => process.stderr.write(String(process.moduleLoadList.includes('NativeModule tty'))));");
    const r = spawnSync(process.execPath, ['-r', probe, BIN, 'search', 'anything'], {
      cwd: repo,
      env: cliEnv(),
      stdio: ['ignore', openSync('/dev/null', 'w'), 'pipe'],
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stderr.endsWith('false'), r.stderr).toBe(true);
  });
});
