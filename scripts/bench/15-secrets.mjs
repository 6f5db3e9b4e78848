// What secret detection costs where it runs: the stop hook (snapshot redaction) on a real Claude
// Code transcript without a secret, with a GitHub token, with a password in a URL, and with a
// placeholder URL that only secretlint's rules can rule out (the one case that loads them in a
// hook); `vault save` of a clean memory and of one refused for a secret; and the detector's
// throughput in-process.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repoDir, 'bin', 'vault.js');
const CLAUDE_REAL = join(repoDir, '..', 'shared', 'fixtures', 'transcripts', 'claude/projects/-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.9))];
};

function timeOnce(args, { cwd, env, input, expect }) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, env, input, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (!expect(r)) throw new Error(`${args.join(' ')}: unexpected result ${r.status} ${r.stdout.slice(0, 200)} ${r.stderr.slice(0, 200)}`);
  return ms;
}

export async function run({ quick }) {
  const runs = quick ? 7 : 21;
  const work = mkdtempSync(join(tmpdir(), 'vault-bench-secrets-'));
  try {
    const repo = join(work, 'repo');
    mkdirSync(repo);
    spawnSync('git', ['init', '-q', '-b', 'main', repo]);
    const home = join(work, 'home');
    mkdirSync(home);
    const env = { ...process.env, HOME: home, ECC_MEMORY_USER_ROOT: join(home, '.ecc', 'memory'), NO_COLOR: '1' };
    for (const k of Object.keys(env)) if ((k.startsWith('ECC_') && k !== 'ECC_MEMORY_USER_ROOT') || k.startsWith('CLAUDE')) delete env[k];

    // Fake credentials, built from parts.
    const known = ['ghp', 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2'].join('_');
    const secretlintOnly = ['https://deploy', 'Zq7Wx2Ev9Rt4@db.internal.example.net/prod'].join(':');
    const placeholder = 'postgres://user:password@localhost:5432/app';
    const lines = readFileSync(CLAUDE_REAL, 'utf8').trimEnd().split('\n');
    const last = JSON.parse(lines[lines.length - 1]);
    const userLine = (text) =>
      JSON.stringify({ ...last, type: 'user', uuid: `u-${text.length}`, parentUuid: last.uuid, message: { role: 'user', content: text } });
    const transcripts = {
      none: lines.join('\n'),
      known: [...lines, userLine(`deploy with ${known} please`)].join('\n'),
      secretlintOnly: [...lines, userLine(`the database is ${secretlintOnly} now`)].join('\n'),
      placeholder: [...lines, userLine(`the docs show ${placeholder}`)].join('\n'),
    };
    const rows = [];
    const add = (what, ms) => rows.push(`| ${what} | ${median(ms).toFixed(0)} | ${p90(ms).toFixed(0)} |`);
    const node = [];
    const hooks = { none: [], known: [], secretlintOnly: [], placeholder: [] };
    for (const [name, text] of Object.entries(transcripts)) writeFileSync(join(work, `${name}-5c0375b4.jsonl`), `${text}\n`);
    for (let i = 0; i < runs; i++) {
      node.push(timeOnce(['-e', '0'], { cwd: repo, env, expect: (r) => r.status === 0 }));
      for (const name of Object.keys(hooks)) {
        const input = JSON.stringify({
          session_id: `bench-${name}`,
          transcript_path: join(work, `${name}-5c0375b4.jsonl`),
          cwd: repo,
          hook_event_name: 'Stop',
        });
        hooks[name].push(timeOnce([bin, 'hook', 'stop'], { cwd: repo, env, input, expect: (r) => r.status === 0 }));
      }
    }
    const snapshots = join(home, '.ecc', 'sessions');
    const written = spawnSync('sh', ['-c', `cat "${snapshots}"/*-session.tmp`], { encoding: 'utf8' }).stdout;
    if (written.includes(known) || written.includes('Zq7Wx2Ev9Rt4')) throw new Error('a secret reached a snapshot');
    add('`node -e 0` (Node.js start-up alone, interleaved)', node);
    add('`vault hook stop`, 125 KB Claude Code transcript, no secret', hooks.none);
    add('the same plus one message with a GitHub token (a built-in shape)', hooks.known);
    add('the same plus one message with a password in a URL', hooks.secretlintOnly);
    add('the same plus one message with a placeholder URL (`user:password@`: secretlint is loaded to rule it out)', hooks.placeholder);

    const saves = { clean: [], refused: [] };
    for (let i = 0; i < runs; i++) {
      saves.clean.push(
        timeOnce([bin, 'save', '--title', 'Bench', '--body', 'A body to remember.', '--dry-run'], { cwd: repo, env, expect: (r) => r.status === 0 }),
      );
      saves.refused.push(
        timeOnce([bin, 'save', '--title', 'Bench', '--body', `token ${known}`, '--dry-run'], {
          cwd: repo,
          env,
          expect: (r) => r.status !== 0 && /secret/.test(r.stderr) && !r.stderr.includes(known),
        }),
      );
    }
    add('`vault save --dry-run`, clean', saves.clean);
    add('`vault save --dry-run` refused for a GitHub token', saves.refused);

    // In-process throughput of the detector a snapshot and a save use.
    const text = readFileSync(CLAUDE_REAL, 'utf8');
    const dist = (p) => import(pathToFileURL(join(repoDir, 'dist', p)).href);
    const { redact } = await dist('sessions/transcripts/text.js');
    const reps = quick ? 20 : 100;
    redact(text);
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) redact(text);
    const redactMBs = (Buffer.byteLength(text) * reps) / 1024 / 1024 / (Number(process.hrtime.bigint() - t0) / 1e9);
    const { scanDocumentForSecrets } = await dist('secrets/scan-secrets.js');
    const doc = text.slice(0, 128 * 1024);
    await scanDocumentForSecrets(doc);
    t0 = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) await scanDocumentForSecrets(doc);
    const scanMs = Number(process.hrtime.bigint() - t0) / 1e6 / reps;

    const markdown = [
      `Wall time of one process, ${runs} runs each (ms), the hooks interleaved with \`node -e 0\`. The stop hook writes a session snapshot of a real Claude Code transcript (53 records), with one extra user message where a row says so; every snapshot is checked to hold no secret.`,
      '',
      '| command | median | p90 |',
      '|---|---:|---:|',
      ...rows,
      '',
      '| detector (in-process) | figure |',
      '|---|---:|',
      `| snapshot redaction (\`redact\`) over the transcript's raw text, MB/s | ${redactMBs.toFixed(0)} |`,
      `| save/doctor scan (\`scanDocumentForSecrets\`) of 128 KiB of it, ms per scan | ${scanMs.toFixed(1)} |`,
    ].join('\n');
    return {
      title: 'Secret detection',
      markdown,
      readme: `stop hook ${median(hooks.none).toFixed(0)} ms without a secret, ${median(hooks.known).toFixed(0)} / ${median(hooks.secretlintOnly).toFixed(0)} ms with one (node alone ${median(node).toFixed(0)} ms)`,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
