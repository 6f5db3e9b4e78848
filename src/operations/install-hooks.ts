/**
 * Installing the lifecycle hooks into a harness's configuration, and removing them again.
 *
 * Every harness uses the same shape: `{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type":
 * "command", "command", "timeout"}]}]}}`, timeouts in seconds (Gemini CLI: milliseconds, and a
 * `name` per entry, which its `/hooks disable <name>` uses).
 * - Claude Code: `<worktree>/.claude/settings.local.json` (project scope, not committed) or
 *   `~/.claude/settings.json` (user scope).
 * - Codex: `<worktree>/.codex/hooks.json` or `$CODEX_HOME/hooks.json` (default `~/.codex`).
 * - Gemini CLI: `<worktree>/.gemini/settings.json` or `~/.gemini/settings.json`
 *   (geminicli.com/docs/hooks: SessionStart and BeforeAgent, no matcher: lifecycle matchers are
 *   exact strings, and session-start itself ignores `resume`).
 *
 * The merge touches nothing but our own entries, recognised by their command
 * (`… hook <event> --harness <harness>`): installing twice equals installing once, and
 * uninstalling removes exactly those entries (and the groups, event lists and `hooks` object
 * that held only them). Every written file is replaced atomically (store/atomic-write.ts) after
 * its one backup (`<file>.vault-backup`, the content before the latest change) is saved.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { VaultError } from '../errors.js';
import type { GitRunner } from '../io/git.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { checkAbsoluteEnvPath } from '../store/roots.js';
import {
  ALL_HARNESS_EVENT_NAMES,
  EVENTS_BY_HARNESS,
  harnessEventName,
  type HookHarness,
  INSTALLED_TIMEOUT_S,
  normalizeEvent,
  type HookEvent,
} from '../sessions/hook-events.js';

/** Where hooks are installed. */
export type InstallScope = 'project' | 'user';

/**
 * The configuration file for a harness and scope.
 *
 * @param where `worktreeRoot` (project scope), `home` and `env` (user scope; CODEX_HOME)
 * @throws VaultError `invalid-input` for Codex at user scope when CODEX_HOME is set but empty or relative
 */
export function settingsFileFor(
  harness: HookHarness,
  scope: InstallScope,
  where: { worktreeRoot: string; home: string; env: Readonly<Record<string, string | undefined>> },
): string {
  if (harness === 'claude-code')
    return scope === 'project' ? join(where.worktreeRoot, '.claude', 'settings.local.json') : join(where.home, '.claude', 'settings.json');
  if (harness === 'gemini-cli') return join(scope === 'project' ? where.worktreeRoot : where.home, '.gemini', 'settings.json');
  if (harness === 'cursor') return join(scope === 'project' ? where.worktreeRoot : where.home, '.cursor', 'hooks.json');
  if (scope === 'project') return join(where.worktreeRoot, '.codex', 'hooks.json');
  const codexHome = where.env.CODEX_HOME;
  if (codexHome === undefined) return join(where.home, '.codex', 'hooks.json');
  // an empty or relative CODEX_HOME would resolve against the working directory: a repository
  return join(
    checkAbsoluteEnvPath('CODEX_HOME', codexHome, "set CODEX_HOME to Codex's home folder as an absolute path (default ~/.codex), or unset it"),
    'hooks.json',
  );
}

/** The command line of one installed hook. */
export function hookCommand(prefix: string, harness: HookHarness, event: HookEvent): string {
  return `${prefix} hook ${event} --harness ${harness}`;
}

const OURS = /(?:^|[\s"'/\\])(?:vault|memory-vault|vault\.js)["']?\s+hook\s+([A-Za-z:_-]+)\s+--harness\s+([a-z-]+)\s*$/;

/** The event and harness of a command we installed, or undefined for anybody else's. */
export function ourHook(command: unknown): { event: HookEvent; harness: string } | undefined {
  if (typeof command !== 'string') return undefined;
  const m = OURS.exec(command);
  const event = m ? normalizeEvent(m[1]!) : undefined;
  return m && event ? { event, harness: m[2]! } : undefined;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Event names of every harness: their entries must be lists; other keys under `hooks` (Gemini CLI's `enabled`, `disabled`) are left as they are. */
const EVENT_NAMES = new Set(ALL_HARNESS_EVENT_NAMES);

function parseSettings(text: string | undefined, file: string): Json {
  if (text === undefined || !text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text.startsWith('\ufeff') ? text.slice(1) : text); // an editor's byte order mark
  } catch {
    throw new VaultError('invalid-input', `${file} is not valid JSON; not touching it`, {
      field: 'settings',
      rule: 'JSON object',
      hint: 'fix or remove the file, then run the command again',
    });
  }
  if (!isObject(value))
    throw new VaultError('invalid-input', `${file} does not hold a JSON object; not touching it`, {
      field: 'settings',
      rule: 'JSON object',
      hint: 'fix the file, then run the command again',
    });
  if (value.hooks !== undefined && !isObject(value.hooks))
    throw new VaultError('invalid-input', `${file}: "hooks" is not an object; not touching it`, {
      field: 'hooks',
      rule: 'object',
      hint: 'fix the file, then run the command again',
    });
  // an event's entries are a list of groups; anything else is someone's mistake, never overwritten
  for (const [name, groups] of Object.entries(value.hooks ?? {})) {
    if (!Array.isArray(groups) && EVENT_NAMES.has(name))
      throw new VaultError('invalid-input', `${file}: "hooks.${name}" is not a list; not touching it`, {
        field: `hooks.${name}`,
        rule: 'array of hook groups',
        hint: 'fix the file, then run the command again',
      });
  }
  return value;
}

function render(value: Json): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A planned change of one configuration file. */
export interface SettingsPlan {
  file: string;
  /** current content, undefined when the file does not exist */
  before: string | undefined;
  /** new content, undefined when the file is to be deleted (it held only our hooks) */
  after: string | undefined;
  changed: boolean;
  /** `<Event>: <command>` lines added, updated or removed */
  changes: string[];
}

/**
 * Plans installing our hooks into a configuration file's text.
 *
 * @param prefix the command that runs vault (e.g. `"/usr/bin/node" "/opt/vault/bin/vault.js"` or `vault`)
 */
/**
 * SessionStart sources that get context (session start injects on startup, clear and compact,
 * never on resume): Claude Code's matcher values are startup, resume, clear, compact; Codex's are
 * startup, resume, clear.
 */
const START_MATCHER: Record<HookHarness, string | undefined> = {
  'claude-code': 'startup|clear|compact',
  codex: 'startup|clear',
  'gemini-cli': undefined,
  cursor: undefined,
};

/** The timeout as the harness's configuration spells it: seconds, or milliseconds for Gemini CLI. */
function installedTimeout(harness: HookHarness, event: HookEvent): number {
  return harness === 'gemini-cli' ? INSTALLED_TIMEOUT_S[event] * 1000 : INSTALLED_TIMEOUT_S[event];
}

export function planInstall(file: string, before: string | undefined, harness: HookHarness, prefix: string): SettingsPlan {
  const settings = parseSettings(before, file);
  const hooks: Json = isObject(settings.hooks) ? settings.hooks : {};
  const changes: string[] = [];
  for (const event of EVENTS_BY_HARNESS[harness]) {
    const name = harnessEventName(harness, event);
    const command = hookCommand(prefix, harness, event);
    const timeout = installedTimeout(harness, event);
    const unit = harness === 'gemini-cli' ? 'ms' : 's';
    const entryName = harness === 'gemini-cli' ? `vault-${event}` : undefined;
    const groups = Array.isArray(hooks[name]) ? (hooks[name] as unknown[]) : [];
    let found = false;
    if (harness === 'cursor') {
      // Cursor lists hook definitions directly under the event: `{ "command": …, "timeout": … }`, no groups
      for (const entry of groups) {
        if (!isObject(entry)) continue;
        const ours = ourHook(entry.command);
        if (!ours || ours.event !== event || ours.harness !== harness) continue;
        found = true;
        if (entry.command !== command || entry.timeout !== timeout) {
          entry.command = command;
          entry.timeout = timeout;
          changes.push(`~ ${name}: ${command} (timeout ${timeout} ${unit})`);
        }
      }
      if (!found) {
        groups.push({ command, timeout });
        changes.push(`+ ${name}: ${command} (timeout ${timeout} ${unit})`);
      }
      hooks[name] = groups;
      continue;
    }
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks)) continue;
      for (const entry of group.hooks) {
        if (!isObject(entry)) continue;
        const ours = ourHook(entry.command);
        if (!ours || ours.event !== event || ours.harness !== harness) continue;
        found = true;
        if (entry.command !== command || entry.timeout !== timeout || entry.type !== 'command' || (entryName && entry.name !== entryName)) {
          entry.type = 'command';
          entry.command = command;
          entry.timeout = timeout;
          if (entryName) entry.name = entryName;
          changes.push(`~ ${name}: ${command} (timeout ${timeout} ${unit})`);
        }
      }
    }
    if (!found) {
      const matcher = event === 'session-start' ? START_MATCHER[harness] : undefined;
      const group: Json = matcher ? { matcher, hooks: [] } : { hooks: [] };
      (group.hooks as unknown[]).push(entryName ? { name: entryName, type: 'command', command, timeout } : { type: 'command', command, timeout });
      groups.push(group);
      changes.push(`+ ${name}: ${command} (timeout ${timeout} ${unit})`);
    }
    hooks[name] = groups;
  }
  if (!changes.length) return { file, before, after: before, changed: false, changes };
  // a new Cursor hooks file starts with its schema version (documented default 1), as Cursor's examples do
  const fresh = harness === 'cursor' && Object.keys(settings).length === 0;
  const after = render(fresh ? { version: 1, hooks } : { ...settings, hooks });
  return { file, before, after, changed: after !== before, changes };
}

/** Plans removing our hooks (of one harness) from a configuration file's text. */
export function planUninstall(file: string, before: string | undefined, harness: HookHarness): SettingsPlan {
  if (before === undefined) return { file, before, after: undefined, changed: false, changes: [] };
  const settings = parseSettings(before, file);
  if (!isObject(settings.hooks)) return { file, before, after: before, changed: false, changes: [] };
  const hooks = settings.hooks;
  const changes: string[] = [];
  for (const name of Object.keys(hooks)) {
    const groups = hooks[name];
    if (!Array.isArray(groups)) continue;
    const keptGroups: unknown[] = [];
    for (const group of groups) {
      if (harness === 'cursor' && isObject(group) && !Array.isArray(group.hooks)) {
        // a Cursor hook definition sits directly in the event's list
        if (ourHook(group.command)?.harness === harness) changes.push(`- ${name}: ${String(group.command)}`);
        else keptGroups.push(group);
        continue;
      }
      if (!isObject(group) || !Array.isArray(group.hooks)) {
        keptGroups.push(group);
        continue;
      }
      const kept = group.hooks.filter((entry) => {
        const ours = isObject(entry) ? ourHook(entry.command) : undefined;
        if (ours && ours.harness === harness) {
          changes.push(`- ${name}: ${String((entry as Json).command)}`);
          return false;
        }
        return true;
      });
      if (kept.length === group.hooks.length) keptGroups.push(group);
      else if (kept.length) keptGroups.push({ ...group, hooks: kept });
    }
    if (keptGroups.length) hooks[name] = keptGroups;
    else if (groups.length) delete hooks[name];
  }
  if (!changes.length) return { file, before, after: before, changed: false, changes };
  const next: Json = { ...settings };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  // a Cursor file left with nothing but the `version` install wrote held only our hooks
  const onlyVersion = harness === 'cursor' && Object.keys(next).length === 1 && next.version === 1;
  const after = Object.keys(next).length === 0 || onlyVersion ? undefined : render(next);
  return { file, before, after, changed: true, changes };
}

/** Reads a configuration file (never through a symlink). */
export function readSettingsFile(file: string): string | undefined {
  let st;
  try {
    st = lstatSync(file);
  } catch {
    return undefined;
  }
  if (st.isSymbolicLink())
    throw new VaultError('symlink-refused', `${file} is a symbolic link; not touching it`, {
      rule: 'no symlinks',
      hint: 'edit the file it points to by hand, or replace the link with a file',
    });
  if (!st.isFile()) throw new VaultError('io-error', `${file} is not a regular file`);
  if (st.size > 4 * 1024 * 1024) throw new VaultError('invalid-input', `${file} is larger than 4 MiB; not touching it`, { field: 'settings' });
  return readFileSync(file, 'utf8');
}

/** The one backup of a settings file: the content before the latest change vault made. */
export function backupPathFor(file: string): string {
  return `${file}.vault-backup`;
}

/** Backups of earlier versions, one per run (`<file>.vault-backup-<stamp>[-<hex>]`), removed by the next change. */
const STAMPED_BACKUP = /^\.vault-backup-\d{8}T\d{6}\.\d{3}Z(?:-[0-9a-f]{6})?$/;

/**
 * Applies a plan: saves the current content as the file's one backup (`<file>.vault-backup`,
 * replaced atomically, mode 0600: settings may hold tokens), then writes the new content
 * atomically (or deletes the file when the plan says so). Per-run backups that earlier
 * versions left beside the file (`<file>.vault-backup-<stamp>`) are removed, so at most one
 * backup per settings file remains.
 *
 * @returns the backup path, when one was made
 */
export function applySettingsPlan(plan: SettingsPlan, randomHex: (n: number) => string): string | undefined {
  if (!plan.changed) return undefined;
  const dir = dirname(plan.file);
  const name = plan.file.split(/[\\/]/).pop()!;
  let backup: string | undefined;
  if (plan.before !== undefined) {
    backup = backupPathFor(plan.file);
    writeFileAtomic(backup, plan.before, { tempPath: join(dir, `.${name}.${randomHex(6)}.tmp`), commit: 'replace', mode: 0o600 });
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      names = [];
    }
    for (const other of names) {
      if (!other.startsWith(name) || !STAMPED_BACKUP.test(other.slice(name.length))) continue;
      try {
        if (lstatSync(join(dir, other)).isFile()) unlinkSync(join(dir, other));
      } catch {
        /* gone already, or not ours to remove */
      }
    }
  }
  if (plan.after === undefined) {
    unlinkSync(plan.file);
    return backup;
  }
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(plan.file, plan.after, { tempPath: join(dir, `.${name}.${randomHex(6)}.tmp`), commit: 'replace', mode: 0o644 });
  return backup;
}

/**
 * The text a dry run compares with the plan's new content: the current file as vault would
 * write it (parsed and rendered as 2-space JSON), so groups that stay are shown unchanged even
 * when the file was written compactly or with other indentation. `reformatted` says whether
 * that differs from the file's own text (the write will reformat the whole file).
 */
export function normalizedBefore(plan: SettingsPlan): { text: string; reformatted: boolean } {
  if (plan.before === undefined || !plan.before.trim()) return { text: '', reformatted: false };
  const text = render(parseSettings(plan.before, plan.file));
  return { text, reformatted: text !== plan.before };
}

/**
 * The `.gitignore` lines a project-scope install should offer: the settings file and its backup
 * hold this machine's absolute paths to node and vault, so they belong to no commit. Only paths
 * inside the work tree that git does not ignore yet are returned (`git check-ignore`, which also
 * honours the user's global excludes), as anchored lines (`/.claude/settings.local.json`).
 *
 * @param worktreeRoot the work tree's top folder
 * @param files absolute paths (the settings file, its backup)
 * @param git the git port
 * @returns lines to add, possibly none; none when git cannot answer (not a repository)
 */
export function gitignoreLinesFor(worktreeRoot: string, files: readonly string[], git: GitRunner): string[] {
  const rel = files.filter((f) => f.startsWith(`${worktreeRoot}/`)).map((f) => f.slice(worktreeRoot.length + 1));
  if (!rel.length) return [];
  const r = git(worktreeRoot, ['check-ignore', '--', ...rel]);
  if (r.status !== 0 && r.status !== 1) return [];
  const ignored = new Set(r.stdout.toString('utf8').split('\n').filter(Boolean));
  return rel.filter((p) => !ignored.has(p)).map((p) => `/${p}`);
}

/**
 * A line diff of two texts (`-` removed, `+` added, ` ` kept), for --dry-run. Two lines that
 * differ only by a trailing comma count as kept (shown as the new line): appending a group after
 * an existing one adds a comma to its closing brace, which is no change of that group.
 */
export function diffLines(before: string, after: string): string {
  const same = (x: string, y: string) => x === y || x.replace(/,$/, '') === y.replace(/,$/, '');
  const a = before ? before.replace(/\n$/, '').split('\n') : [];
  const b = after ? after.replace(/\n$/, '').split('\n') : [];
  const n = a.length;
  const m = b.length;
  // LCS table; settings files are small (the reader caps them at 4 MiB, real ones are a few KB).
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = same(a[i]!, b[j]!) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && same(a[i]!, b[j]!)) {
      out.push(`  ${b[j]}`);
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) out.push(`+ ${b[j++]}`);
    else out.push(`- ${a[i++]}`);
  }
  return out.join('\n');
}
