/**
 * Shell commands as the extractor sees them: a command's family (so a re-run with other flags
 * still counts as the same command), whether it only looks at things (never a step of a
 * runbook, and its failure teaches nothing: `grep` exits 1 when nothing matches), whether its
 * output says it failed although it exited 0, and the most telling lines of an error output.
 */

/** Programs whose first argument is a subcommand worth keeping (`npm test`, `git push`). */
const SUBCOMMAND_PROGRAMS = new Set(
  (
    'npm pnpm yarn bun deno git docker docker-compose podman kubectl helm cargo go make mvn gradle ./gradlew dotnet terraform pip pip3 poetry uv brew apt ' +
    'apt-get gh rails rake mix composer swift flutter dart nx turbo bazel just task colima fnm nvm volta rustup cmake ctest conda vercel firebase aws ' +
    'gcloud az supabase prisma drizzle-kit knex alembic django-admin manage.py systemctl launchctl minikube kind'
  ).split(' '),
);
/** Subcommands that take a further name (`npm run build`, `docker compose up`). */
const RUN_SUBCOMMANDS = new Set(['run', 'run-script', 'exec', 'compose', 'workspace', 'x', 'dlx']);
/** Interpreters whose script argument is part of the family (`node scripts/a.js` ≠ `node scripts/b.js`). */
const INTERPRETERS = new Set(['node', 'python', 'python3', 'ruby', 'bash', 'sh', 'zsh', 'perl', 'php', 'deno', 'bun', 'tsx', 'ts-node']);
/** Wrappers stripped before the program (`sudo`, `npx`, `uv run`, `python -m`). */
const WRAPPERS = new Set(['sudo', 'time', 'env', 'npx', 'bunx', 'nice', 'nohup', 'command', 'exec', 'timeout', 'xvfb-run', 'dotenv']);
const TWO_WORD_WRAPPERS = [
  'pnpm exec',
  'pnpm dlx',
  'yarn dlx',
  'yarn exec',
  'uv run',
  'poetry run',
  'pipenv run',
  'bundle exec',
  'python -m',
  'python3 -m',
  'npm exec',
  'rye run',
  'pdm run',
  'hatch run',
];

/** Commands that only read or look (their successes are not steps, their failures not errors). */
const LOOK_PROGRAMS = new Set(
  (
    'ls cat head tail less more grep egrep rg ag find fd pwd echo printf which type whereis wc tree file stat du df env printenv date whoami id uname ps ' +
    'top lsof sed awk jq yq diff cd true sleep nl sort uniq cut column realpath readlink basename dirname hostname history man curl wget open pbcopy xxd od ' +
    'hexdump md5sum sha256sum test [ exit clear tldr pgrep netstat ss ping dig nslookup host apply_patch'
  ).split(' '),
);
const LOOK_SUBCOMMANDS: Record<string, Set<string>> = {
  git: new Set([
    'status',
    'log',
    'diff',
    'show',
    'branch',
    'remote',
    'rev-parse',
    'blame',
    'ls-files',
    'grep',
    'config',
    'describe',
    'shortlog',
    'reflog',
    'stash list',
    'tag',
  ]),
  docker: new Set(['ps', 'images', 'logs', 'info', 'version', 'inspect', 'compose ps', 'compose logs', 'compose config']),
  'docker-compose': new Set(['ps', 'logs', 'config']),
  kubectl: new Set(['get', 'describe', 'logs', 'explain', 'version', 'config']),
  npm: new Set(['ls', 'list', 'view', 'info', 'outdated', 'config get', 'whoami', 'root', 'bin', 'prefix', 'search', 'help']),
  pnpm: new Set(['ls', 'list', 'why', 'outdated', 'view', 'info']),
  yarn: new Set(['list', 'why', 'info', 'outdated']),
  cargo: new Set(['tree', 'metadata', 'search']),
  go: new Set(['env', 'version', 'list', 'doc']),
  pip: new Set(['list', 'show', 'freeze']),
  gh: new Set(['pr view', 'pr list', 'issue view', 'issue list', 'run view', 'run list', 'auth status']),
  brew: new Set(['list', 'info', 'search']),
  systemctl: new Set(['status']),
  colima: new Set(['status', 'list']),
};

/** Splits a command line into words, honouring simple quotes (no expansion). Bounded: 64 words. */
function words(segment: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const m of segment.matchAll(re)) {
    out.push(m[1] ?? m[2] ?? m[3] ?? '');
    if (out.length >= 64) break;
  }
  return out;
}

/** The first line of a script, without a heredoc body. */
export function firstLine(command: string): string {
  const nl = command.indexOf('\n');
  return (nl === -1 ? command : command.slice(0, nl)).trim();
}

/** Segments of `cmd1 && cmd2 ; cmd3 || cmd4`, each with its pipeline reduced to the first program. */
function segments(command: string): string[] {
  return firstLine(command)
    .split(/\s*(?:&&|\|\||;)\s*/)
    .map((s) => s.split(/\s\|\s?|\|\s/)[0]!.trim())
    .filter((s) => s.length > 0);
}

interface Parsed {
  program: string;
  args: string[];
}

function parseSegment(segment: string): Parsed | undefined {
  let w = words(segment).filter((x) => !/^\d?[<>]/.test(x)); // drop redirections like 2>&1, >out
  while (w.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0]!)) w = w.slice(1); // FOO=bar cmd
  for (let guard = 0; guard < 4 && w.length; guard++) {
    const two = `${w[0]} ${w[1] ?? ''}`;
    if (TWO_WORD_WRAPPERS.includes(two)) w = w.slice(2);
    else if (WRAPPERS.has(w[0]!)) {
      w = w.slice(1);
      while (w.length && (w[0]!.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0]!) || /^\d+[smh]?$/.test(w[0]!))) w = w.slice(1);
    } else break;
  }
  if (!w.length) return undefined;
  const program = w[0]!.replace(/^.*\/(?=[^/]+$)/, (m) => (m === './' ? m : '')); // /usr/bin/git → git, keep ./gradlew
  return { program, args: w.slice(1) };
}

/** The first `n` non-flag arguments, skipping the values of `--flag value` pairs we know. */
function positional(args: string[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length && out.length < n; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (
        /^--(?:filter|workspace|prefix|dir|cwd|project|file|config|manifest-path|package|target|profile|namespace|context|chdir)$/.test(a) ||
        /^-[Cwpfn]$/.test(a)
      )
        i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** The main segment of a command: the last one that is not a `cd`, an `export` or a look-only command, else the last. */
function mainSegment(command: string): Parsed | undefined {
  const parsed = segments(command)
    .map(parseSegment)
    .filter((p): p is Parsed => p !== undefined);
  const acting = parsed.filter((p) => p.program !== 'cd' && p.program !== 'export' && p.program !== 'source' && p.program !== '.' && !isLookParsed(p));
  return acting[acting.length - 1] ?? parsed[parsed.length - 1];
}

function isLookParsed(p: Parsed): boolean {
  if (LOOK_PROGRAMS.has(p.program)) {
    // `sed -i` and `curl -X POST` change things; most uses of these programs only look.
    if (p.program === 'sed' && p.args.some((a) => /^-i|^--in-place/.test(a))) return false;
    if ((p.program === 'curl' || p.program === 'wget') && p.args.some((a) => /^-X$|^--request$|^-d$|^--data|^-o$|^-O$/.test(a))) return false;
    return true;
  }
  const subs = LOOK_SUBCOMMANDS[p.program];
  if (!subs) return false;
  const pos = positional(p.args, 2);
  return subs.has(pos[0] ?? '') || subs.has(pos.slice(0, 2).join(' '));
}

/**
 * The family of a command: program and subcommand of its main segment, lower-cased
 * (`cd api && npm test -- --watch=false` → `npm test`, `python -m pytest -x` → `pytest`,
 * `npm run db:migrate` → `npm run db:migrate`, `node scripts/seed.js` → `node scripts/seed.js`).
 */
export function commandFamily(command: string): string {
  const hit = familyCache.get(command);
  if (hit !== undefined) return hit;
  const family = familyOf(command);
  if (familyCache.size >= 512) familyCache.clear();
  familyCache.set(command, family);
  return family;
}

// Commands repeat (`npm test` a hundred times in a session): their analysis is kept, bounded.
const familyCache = new Map<string, string>();
const lookCache = new Map<string, boolean>();

function familyOf(command: string): string {
  const p = mainSegment(command);
  if (!p) return '';
  const program = p.program.toLowerCase();
  if (INTERPRETERS.has(program)) {
    const script = positional(p.args, 1)[0];
    return script && !script.startsWith('-') ? `${program} ${script}` : program;
  }
  if (!SUBCOMMAND_PROGRAMS.has(program)) return program;
  const pos = positional(p.args, 3);
  if (!pos.length) return program;
  if (RUN_SUBCOMMANDS.has(pos[0]!) && pos[1]) return `${program} ${pos[0]} ${pos[1]}`;
  return `${program} ${pos[0]}`;
}

/** True when every segment of the command only looks (ls, cat, grep, git status, docker ps, …). */
export function isLookOnly(command: string): boolean {
  const hit = lookCache.get(command);
  if (hit !== undefined) return hit;
  const look = lookOnly(command);
  if (lookCache.size >= 512) lookCache.clear();
  lookCache.set(command, look);
  return look;
}

function lookOnly(command: string): boolean {
  // Every program of every pipeline counts here (`lsof -ti :3000 | xargs kill` kills), and
  // `xargs cmd` is `cmd`.
  const parsed = firstLine(command)
    .split(/\s*(?:&&|\|\||;|\|)\s*/)
    .map((seg) => parseSegment(seg.trim()))
    .filter((p): p is Parsed => p !== undefined)
    .map((p) => (p.program === 'xargs' ? (parseSegment(p.args.filter((a) => !a.startsWith('-')).join(' ')) ?? p) : p));
  return parsed.length > 0 && parsed.every((p) => p.program === 'cd' || isLookParsed(p));
}

/** Files a shell command writes in place (`sed -i … f`, `> f`, `tee f`, an apply_patch heredoc), best effort. */
export function shellEditedFiles(command: string): string[] {
  const files: string[] = [];
  if (command.includes('*** Begin Patch')) {
    for (const m of command.slice(0, 1024 * 1024).matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm)) {
      const f = (m[1] ?? m[2] ?? '').trim();
      if (f) files.push(f);
    }
    return files;
  }
  for (const seg of segments(command)) {
    const p = parseSegment(seg);
    if (p?.program === 'sed' && p.args.some((a) => /^-i/.test(a))) {
      const last = p.args[p.args.length - 1];
      if (last && !last.startsWith('-')) files.push(last);
    }
  }
  for (const m of firstLine(command).matchAll(/(?:^|\s)(?:\d?>>?|tee(?:\s+-a)?)\s*([^\s|&;<>]+)/g)) {
    const f = m[1]!;
    if (!f.startsWith('&') && !f.startsWith('/dev/') && !f.startsWith('$')) files.push(f);
  }
  return files.slice(0, 20);
}

/** Output markers of a failure from a command that exited 0 (a piped test run, a build that printed errors). */
const FAILED_OUTPUT =
  /^(?:FAIL|FAILED)\b|^\s*Tests?:.*\b[1-9]\d* failed\b|\b[1-9]\d* (?:failed|failing)\b(?!\s*(?:to|when))|^npm ERR!|^Traceback \(most recent call last\)|^error(?:\[E\d+\])?:|\berror TS\d{4}\b|^Build failed|^ERR_PNPM_|^\s*✗|^FATAL\b/m;
const FAILED_OUTPUT_NOT = /\b0 failed\b/;

/** True when a command's output says it failed although the tool reported success. */
export function outputSaysFailed(output: string): boolean {
  const head = output.length > 65536 ? `${output.slice(0, 32768)}\n${output.slice(-32768)}` : output;
  return FAILED_OUTPUT.test(head) && !(FAILED_OUTPUT_NOT.test(head) && !/^(?:FAIL|FAILED)\b/m.test(head));
}

// Lines ranked by how much they say about an error.
const SPECIFIC =
  /\b[A-Za-z_][\w.]*(?:Error|Exception|Invalid\w*|Interrupt)\b\s*[:[(]|\berror\[E\d+\]|\berror TS\d{4}\b|\bERR_[A-Z_]{3,}\b|\bERR!\s+code\b|\bE(?!RRORS?\b)[A-Z]{4,}\b(?=[:\s])|Module not found|Cannot find module|Can't resolve|No module named|command not found|No such file or directory|undefined: |is not defined|[Pp]ermission denied|not assignable|cannot borrow|SIGSEGV|segmentation fault|panicked at|\bpanic:|Unsupported|\bconflict\b/;
const GENERAL =
  /\b(?:error|failed|failure|fatal|cannot|can't|couldn't|unable|not found|refused|denied|rejected|undefined|invalid|missing|unexpected|timed? ?out|abort(?:ed)?)\b/i;
const NOISE =
  /^(?:exit code:? -?\d+|process exited with code -?\d+|wall time:.*|chunk id:.*|original token count:.*|output:|make: \*\*\*.*error \d+|npm err! a complete log.*|npm err! errno.*|hint:.*|\s*at .+\(.+:\d+:\d+\)|\s*at .+:\d+:\d+)$/i;

/** The most telling line of an error output and up to 6 error lines around it (trimmed, each ≤ 240 characters). */
export function errorLines(output: string): { headline: string; excerpt: string[] } {
  const text = output.length > 65536 ? `${output.slice(0, 32768)}\n${output.slice(-32768)}` : output;
  const lines = text
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .filter((l) => l.trim() && !NOISE.test(l.trim()))
    .slice(0, 400);
  const traceback = /Traceback \(most recent call last\)/.test(text);
  let best = -1;
  let bestRank = 0;
  lines.forEach((l, i) => {
    const rank = SPECIFIC.test(l) ? 2 : GENERAL.test(l) ? 1 : 0;
    // Python puts the exception last; most other tools put the first error first.
    if (rank > bestRank || (traceback && rank === 2 && rank === bestRank)) {
      best = i;
      bestRank = rank;
    }
  });
  const clean = (l: string) =>
    l
      .trim()
      .replace(/^(?:E\s{2,}|>\s+|npm ERR!\s*|error:\s*(?=error))/, '')
      .slice(0, 240);
  if (best === -1) {
    const first = lines[0];
    return { headline: first ? clean(first) : '', excerpt: lines.slice(0, 3).map(clean) };
  }
  const excerpt = lines.filter((l, i) => i === best || SPECIFIC.test(l) || (GENERAL.test(l) && Math.abs(i - best) <= 3)).slice(0, 6);
  return { headline: clean(lines[best]!), excerpt: excerpt.map(clean) };
}
