/**
 * Builds the hostile corpus vault for doctor tests: the committed files of
 * tests/fixtures/broken/vault plus the cases that must not be committed (symlinks, a FIFO, a 10 MB
 * file, binary and invalid UTF-8 bytes, BOM, CRLF, an oversized body, a wrong project .gitignore,
 * an invisible character, a team link to a project-only memory).
 */
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { gitRepo, REPO, tempDir } from './cli.js';

/** The marker planted in broken files: it must never appear in any output. */
export const MARKER = 'CANARY_d0c70r';
/** The fake credential in mem_secret.md: must never be echoed either. */
export const SECRET = 'ghp_QQQQCANARYd0c70rAbCdEfGh1234567890';

const FIELDS = ['schema', 'id', 'title', 'kind', 'scope', 'trust', 'status', 'source_harness', 'target_harnesses', 'tags', 'links', 'created_at', 'updated_at'];

/** A canonical memory document (lists spelled `["a", "b"]`). */
export function memoryText(o: Record<string, unknown> & { id: string }, body = `Body text. ${MARKER}`): string {
  const d: Record<string, unknown> = {
    schema: 'ecc.memory.v1',
    // distinct titles: the corpus means one finding per file, and copies would also be duplicate-memory
    title: `A corpus memory: ${o.id}`,
    kind: 'note',
    scope: 'team',
    trust: 'unreviewed',
    status: 'active',
    source_harness: 'claude',
    target_harnesses: ['all'],
    tags: [],
    links: [],
    created_at: '2026-07-26T20:00:00.000Z',
    updated_at: '2026-07-26T20:00:00.000Z',
    ...o,
  };
  const js = (v: unknown) => (Array.isArray(v) ? `[${v.map((x) => JSON.stringify(x)).join(', ')}]` : JSON.stringify(v));
  return `---\n${FIELDS.map((k) => `${k}: ${js(d[k])}`).join('\n')}\n---\n\n${body.trim()}\n`;
}

/** path → [code, line] expected for every generated file (committed ones are listed in the test). */
export const GENERATED_EXPECTED: Record<string, Array<[string, number | undefined]>> = {
  'project/.gitignore': [['gitignore-wrong', 1]],
  'team/notes/mem_invalid_utf8.md': [['invalid-utf8', 17]],
  'team/notes/mem_binary.md': [['invalid-utf8', 1]],
  'team/notes/mem_huge.md': [['document-too-large', undefined]],
  'team/notes/mem_big_body.md': [['body-too-large', 17]],
  'team/notes/mem_bom.md': [['non-canonical', 1]],
  'team/notes/mem_crlf.md': [['non-canonical', 1]],
  'team/notes/mem_link_outside.md': [['symlink', undefined]],
  'team/linked-folder': [
    ['scan-incomplete', undefined],
    ['symlink', undefined],
  ],
  'team/notes/a-fifo': [['stray-file', undefined]],
  'team/notes/mem_invisible.md': [['invisible-characters', 4]],
  'team/notes/mem_links_local.md': [['team-links-local', 12]],
  'project/notes/mem_local_only.md': [],
};

/**
 * Makes a git repository whose `.ecc/memory` is the whole corpus.
 *
 * @returns the repository folder
 */
export function corpusRepo(): string {
  const repo = gitRepo();
  const vault = join(repo, '.ecc', 'memory');
  cpSync(join(REPO, 'tests', 'fixtures', 'broken', 'vault'), vault, { recursive: true });
  const notes = join(vault, 'team', 'notes');
  writeFileSync(join(vault, 'project', '.gitignore'), `*.md\n# ${MARKER}\n`);
  const utf8 = Buffer.from(memoryText({ id: 'mem_invalid_utf8' }, `Broken bytes follow ${MARKER}`), 'utf8');
  const at = utf8.indexOf('Broken');
  writeFileSync(join(notes, 'mem_invalid_utf8.md'), Buffer.concat([utf8.subarray(0, at), Buffer.from([0xff, 0xfe, 0xc3]), utf8.subarray(at)]));
  const png = Buffer.alloc(4096);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]).copy(png);
  Buffer.from(MARKER).copy(png, 100);
  writeFileSync(join(notes, 'mem_binary.md'), png);
  writeFileSync(join(notes, 'mem_huge.md'), memoryText({ id: 'mem_huge' }, `${MARKER} ${'x'.repeat(10 * 1024 * 1024)}`));
  writeFileSync(join(notes, 'mem_big_body.md'), memoryText({ id: 'mem_big_body' }, `${MARKER} ${'y'.repeat(70 * 1024)}`));
  writeFileSync(join(notes, 'mem_bom.md'), `\uFEFF${memoryText({ id: 'mem_bom' })}`);
  writeFileSync(join(notes, 'mem_crlf.md'), memoryText({ id: 'mem_crlf' }).replace(/\n/g, '\r\n'));
  const outside = tempDir('vault-outside-');
  writeFileSync(join(outside, 'secret.md'), memoryText({ id: 'mem_outside' }, `outside the vault ${MARKER}`));
  mkdirSync(join(outside, 'folder', 'notes'), { recursive: true });
  writeFileSync(join(outside, 'folder', 'notes', 'mem_in_linked.md'), memoryText({ id: 'mem_in_linked' }));
  symlinkSync(join(outside, 'secret.md'), join(notes, 'mem_link_outside.md'));
  symlinkSync(join(outside, 'folder'), join(vault, 'team', 'linked-folder'));
  execFileSync('mkfifo', [join(notes, 'a-fifo')]);
  // hidden text: a zero width space in the title (kept out of the committed fixtures, where an
  // editor could drop it unseen)
  writeFileSync(join(notes, 'mem_invisible.md'), memoryText({ id: 'mem_invisible', title: 'Looks\u200b harmless' }));
  // a team memory linking to a memory that exists only in this clone's project scope
  writeFileSync(join(vault, 'project', 'notes', 'mem_local_only.md'), memoryText({ id: 'mem_local_only', scope: 'project' }));
  writeFileSync(join(notes, 'mem_links_local.md'), memoryText({ id: 'mem_links_local', links: ['mem_local_only'] }));
  return repo;
}
