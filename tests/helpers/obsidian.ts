import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, REPO } from './cli.js';

/** The Obsidian-style vault fixture (see tests/fixtures/obsidian-vault/README.md). */
export const OBSIDIAN_VAULT = join(REPO, 'tests/fixtures/obsidian-vault');

/** A temp git repo whose `.ecc/memory/` is a copy of the Obsidian-style vault fixture. */
export function obsidianRepo(): { repo: string; vault: string } {
  const repo = gitRepo();
  const vault = join(repo, '.ecc/memory');
  cpSync(OBSIDIAN_VAULT, vault, { recursive: true });
  return { repo, vault };
}
