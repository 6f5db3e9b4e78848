// Timing helpers shared by the benchmarks: wall time of a child process, the `node -e 0` floor
// (F) sampled between measurements, a child's peak resident memory, a process's RSS from /proc.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

export const median = (xs) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.min(s.length - 1, Math.ceil((s.length * p) / 100) - 1))];
};
export const fmt = (ms) =>
  Number.isNaN(ms) ? 'n/a' : ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
export const mb = (b) => (Number.isNaN(b) ? 'n/a' : `${b < 10e6 ? (b / 1e6).toFixed(1) : Math.round(b / 1e6)} MB`);
export const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');

/**
 * Runs `cmd args` to its end; `{ ms, stdout, stderr, status }`. Throws (naming the command and
 * its stderr) when the exit status is not in `ok` (default [0]) or it runs longer than
 * `opts.timeout` (default 15 min, so a hung command stops the bench instead of stalling it).
 */
export function timeRun(cmd, args, opts = {}, ok = [0]) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 15 * 60_000, killSignal: 'SIGKILL', ...opts });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.error) throw new Error(`${cmd} ${args.join(' ').slice(0, 200)}: ${r.error.message}`);
  if (!ok.includes(r.status)) throw new Error(`${cmd} ${args.join(' ').slice(0, 200)} exited ${r.status}: ${String(r.stderr).slice(0, 2000)}`);
  return { ms, stdout: r.stdout, stderr: r.stderr, status: r.status };
}

/** The Node.js start-up floor: `sample()` times one `node -e 0` and keeps it; `median()` of all. */
export function nodeFloor(opts = {}) {
  const xs = [];
  return {
    sample: () => xs.push(timeRun(process.execPath, ['-e', '0'], opts).ms),
    median: () => median(xs),
    samples: xs,
  };
}

/** `/proc/<pid>/status` → `{ rss, hwm }` in bytes (NaN where /proc is missing or the process is gone). */
export function procMemory(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? Number.NaN) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: Number.NaN, hwm: Number.NaN };
  }
}

const GNU_TIME = '/usr/bin/time';
let gnuTime;
function hasGnuTime() {
  if (gnuTime === undefined) gnuTime = existsSync(GNU_TIME) && spawnSync(GNU_TIME, ['-v', '-o', '/dev/null', 'true']).status === 0;
  return gnuTime;
}

/**
 * Runs `cmd args` and measures its wall time and peak resident set size: with GNU time
 * (`/usr/bin/time -v -o <file>`, its report in a file of its own) when installed, else by polling
 * `/proc/<pid>/status` VmHWM every 20 ms (also with `poll: true`). `{ ms, peak (bytes), how,
 * stdout }`; throws when the command fails.
 */
export async function peakMemory(cmd, args, opts = {}, { poll = false } = {}) {
  if (!poll && hasGnuTime()) {
    const dir = mkdtempSync(join(tmpdir(), 'vault-bench-time-'));
    try {
      const report = join(dir, 'time.txt');
      const r = timeRun(GNU_TIME, ['-v', '-o', report, cmd, ...args], opts);
      const kb = /Maximum resident set size \(kbytes\):\s*(\d+)/.exec(readFileSync(report, 'utf8'))?.[1];
      if (kb) return { ms: r.ms, peak: Number(kb) * 1024, how: 'GNU time -v', stdout: r.stdout };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return await new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let peak = Number.NaN;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const poll = setInterval(() => {
      const { hwm } = procMemory(child.pid);
      if (!Number.isNaN(hwm)) peak = Number.isNaN(peak) ? hwm : Math.max(peak, hwm);
    }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (code !== 0) reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr.slice(0, 2000)}`));
      else resolve({ ms, peak, how: '/proc VmHWM polled every 20 ms', stdout });
    });
  });
}

/** Whether `rg` (ripgrep) is installed. */
export const hasRipgrep = () => spawnSync('rg', ['--version']).status === 0;
