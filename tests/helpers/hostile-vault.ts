/**
 * A git repository whose team vault holds every hostile document of
 * scripts/hostile-frontmatter.mjs, as `team/decisions/mem_hostile_<n>.md` (hardening item 1).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostileDocuments } from '../../scripts/hostile-frontmatter.mjs';
import { gitRepo } from './cli.js';

/** Every hostile document: its class, a name for reports, and its text (at most 128 KiB). */
export const HOSTILE_DOCUMENTS: { cls: string; name: string; text: string }[] = hostileDocuments();

/** A temp git repo with every hostile document in its team vault; removed after the test. */
export function hostileRepo(): string {
  const repo = gitRepo();
  const dir = join(repo, '.ecc/memory/team/decisions');
  mkdirSync(dir, { recursive: true });
  HOSTILE_DOCUMENTS.forEach((d, i) => {
    writeFileSync(join(dir, `mem_hostile_${String(i).padStart(3, '0')}.md`), d.text);
  });
  return repo;
}
