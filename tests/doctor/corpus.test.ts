import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, REPO, runCli } from '../helpers/cli.js';
import { corpusRepo, GENERATED_EXPECTED, MARKER, SECRET } from '../helpers/corpus-vault.js';

/** Every committed corpus file → the exact diagnostics (code, line) doctor must report for it. */
const COMMITTED_EXPECTED: Record<string, Array<[string, number | undefined]>> = {
  'team/decisions/mem_base_decision.md': [],
  'team/notes/mem_valid_note.md': [],
  'team/notes/mem_truncated.md': [['unclosed-frontmatter', 1]],
  'team/notes/mem_empty.md': [['missing-frontmatter', 1]],
  'team/notes/mem_fm_only.md': [['invalid-body', 16]],
  'team/notes/mem_no_fm.md': [['missing-frontmatter', 1]],
  'team/notes/mem_js_engine.md': [['frontmatter-language', 1]],
  'team/notes/mem_tab_indent.md': [['invalid-frontmatter', 12]],
  'team/notes/mem_fm_list.md': [['frontmatter-not-object', 2]],
  'team/notes/mem_fm_string.md': [['frontmatter-not-object', 2]],
  'team/notes/mem_second_fm.md': [['second-frontmatter', 17]],
  'team/notes/mem_unknown_field.md': [['unknown-field', 11]],
  'team/notes/mem_missing_field.md': [['missing-field', 14]],
  'team/notes/mem_dup_key.md': [['duplicate-field', 6]],
  'team/notes/mem_bad_kind.md': [['invalid-field', 5]],
  'team/notes/mem_bad_schema.md': [['invalid-field', 2]],
  'team/notes/mem_bad_id.md': [['invalid-field', 3]],
  'team/notes/mem_bad_trust.md': [['invalid-field', 7]],
  'team/notes/mem_bad_timestamp.md': [['invalid-field', 13]],
  'team/notes/mem_feb30.md': [['invalid-field', 13]],
  'team/notes/mem_yaml_alias.md': [['yaml-alias', 10]],
  'team/notes/mem_yaml_tag.md': [['yaml-tag', 4]],
  'team/notes/mem_bidi.md': [['invalid-field', 4]],
  'team/notes/mem_control_body.md': [['invalid-body', 18]],
  'team/notes/mem_bad_yaml.md': [['invalid-frontmatter', 4]],
  'team/notes/mem_delim_variant.md': [['invalid-frontmatter', 11]],
  'team/notes/mem_merge_conflict.md': [['merge-conflict', 18]],
  'team/notes/mem_secret.md': [['suspected-secret', 17]],
  'team/notes/mem_secret_lint.md': [['suspected-secret', 17]],
  'team/notes/mem_broken_link.md': [['broken-link', 12]],
  'team/notes/mem_broken_wikilink.md': [['broken-link', 18]],
  'team/notes/mem_dup_one.md': [['duplicate-id', 3]],
  'project/notes/mem_dup_one.md': [['duplicate-id', 3]],
  'team/notes/mem_name_differs.md': [['filename-mismatch', 3]],
  'team/decisions/mem_kind_mismatch.md': [['location-mismatch', 5]],
  'project/notes/mem_scope_mismatch.md': [['location-mismatch', 6]],
  'team/mem_at_scope_root.md': [['location-mismatch', 5]],
  'team/handoffs/mem_obsidian_rewritten.md': [
    ['non-canonical', 2],
    ['stale-handoff', 16],
  ],
  'team/notes/mem_body_spacing.md': [['non-canonical', 16]],
  'team/decisions/mem_old_decision.md': [['probably-superseded', 8]],
  'team/decisions/mem_new_decision.md': [],
  'team/notes/mem_updated_before.md': [['updated-before-created', 14]],
  'team/notes/mem_numeric_tag.md': [['obsidian-tag', 11]],
  'team/notes/mem_valid_note (conflict 2026-11-30 101010).md': [['sync-conflict', 3]],
  'team/notes/mem_valid_note.sync-conflict-20261130-101010-ABCDEF1.md': [['sync-conflict', 3]],
  'team/notes/readme.txt': [['stray-file', undefined]],
  // never memories, never problems
  'team/notes/board.canvas': [],
  'team/notes/Drawing 2026-11-30.excalidraw.md': [],
  'team/.obsidian/app.json': [],
  'team/.trash/mem_deleted.md': [],
  'team/notes/.DS_Store': [],
};

const EXPECTED = { ...COMMITTED_EXPECTED, ...GENERATED_EXPECTED };

function committedFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const rel = prefix ? `${prefix}/${name}` : name;
    return statSync(join(dir, name)).isDirectory() ? committedFiles(join(dir, name), rel) : [rel];
  });
}

interface JsonProblem {
  severity: string;
  code: string;
  path: string;
  line?: number;
  message: string;
  hint: string;
}

describe('doctor over the hostile corpus (tests/fixtures/broken)', () => {
  it('the corpus has at least 40 files, and every committed file has an expectation', () => {
    const files = committedFiles(join(REPO, 'tests', 'fixtures', 'broken', 'vault'));
    expect(files.length + Object.keys(GENERATED_EXPECTED).length).toBeGreaterThanOrEqual(40);
    expect(files.sort()).toEqual(Object.keys(COMMITTED_EXPECTED).sort());
  });

  it('gives every file exactly the expected diagnostic, and never prints raw content', async () => {
    const repo = corpusRepo();
    const env = cliEnv();
    const r = await runCli(['doctor', '--json', '--no-index-check'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as { ok: boolean; problems: JsonProblem[]; counts: Record<string, number> };
    expect(report.ok).toBe(false);
    const got = new Map<string, Array<[string, number | undefined]>>();
    for (const p of report.problems) {
      expect(['error', 'warning', 'info']).toContain(p.severity);
      expect(p.message.length).toBeGreaterThan(0);
      expect(p.hint.length).toBeGreaterThan(0);
      got.set(p.path, [...(got.get(p.path) ?? []), [p.code, p.line]]);
    }
    for (const [path, want] of Object.entries(EXPECTED)) {
      expect({ path, problems: got.get(path) ?? [] }).toEqual({ path, problems: want });
    }
    // nothing reported about a file the table does not know
    expect([...got.keys()].filter((p) => !(p in EXPECTED))).toEqual([]);
    // severities: warnings for formatting, naming, stray, superseded, stale handoffs, timestamps, tags, hidden text, local links
    const warningCodes = new Set(report.problems.filter((p) => p.severity === 'warning').map((p) => p.code));
    expect([...warningCodes].sort()).toEqual([
      'filename-mismatch',
      'invisible-characters',
      'non-canonical',
      'obsidian-tag',
      'probably-superseded',
      'stale-handoff',
      'stray-file',
      'team-links-local',
      'updated-before-created',
    ]);
    expect(report.counts.errors + report.counts.warnings).toBe(report.problems.length);

    for (const out of [
      r.stdout,
      (await runCli(['doctor', '--no-index-check'], { cwd: repo, env })).stdout,
      (await runCli(['doctor', '--format', 'github', '--no-index-check'], { cwd: repo, env })).stdout,
    ]) {
      expect(out).not.toContain(MARKER);
      expect(out).not.toContain(SECRET);
      expect(out).not.toMatch(/CANARY/);
    }
  });

  it('the library scan of the corpus never throws and its diagnostics never hold file content', async () => {
    const repo = corpusRepo();
    const { scanVault } = await import('../../src/scanner/scan-vault.js');
    const { resolveRoots } = await import('../../src/store/roots.js');
    const { nodeRuntime } = await import('../../src/io/runtime.js');
    const roots = resolveRoots(nodeRuntime({ cwd: repo, env: {}, home: repo }));
    const scan = scanVault(roots, { scopes: ['project', 'team', 'user'] });
    const diagnostics = JSON.stringify({ invalid: scan.invalid, symlinks: scan.symlinks, strays: scan.strays, reasons: scan.incompleteReasons });
    expect(diagnostics).not.toMatch(/CANARY/);
    expect(scan.invalid.length).toBeGreaterThan(25);
    // hostile, but within every bound: only the linked folder, which may hold memories, is unseen
    expect(scan.complete).toBe(false);
    // (home is the repo here, so the user scope sees team/ once more)
    for (const reason of scan.incompleteReasons)
      expect(reason).toMatch(/^a symbolic link that may be a folder was not followed: (user\/)?team\/linked-folder$/);
    for (const f of scan.invalid) expect(f.message.length).toBeLessThan(300);
  });

  it('fmt --check over the corpus refuses the invalid files, writes nothing and never prints content', async () => {
    const repo = corpusRepo();
    const file = join(repo, '.ecc/memory/team/handoffs/mem_obsidian_rewritten.md');
    const before = readFileSync(file);
    const r = await runCli(['fmt', '--check', '--json'], { cwd: repo, env: cliEnv() });
    expect(r.code).toBe(3);
    expect(r.stdout + r.stderr).not.toMatch(/CANARY/);
    const out = JSON.parse(r.stdout) as { files: Array<{ path: string; status: string; code?: string }> };
    const status = Object.fromEntries(out.files.map((f) => [f.path, f.status]));
    expect(status['team/handoffs/mem_obsidian_rewritten.md']).toBe('would-format');
    expect(status['team/notes/mem_crlf.md']).toBe('would-format');
    expect(status['team/notes/mem_truncated.md']).toBe('refused');
    expect(status['team/notes/mem_secret.md']).toBe('unchanged'); // canonical: fmt has nothing to rewrite
    expect(status['team/notes/mem_valid_note.md']).toBe('unchanged');
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});
