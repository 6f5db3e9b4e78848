/**
 * The checks of a memory's links and tags at save, before anything is written: every link
 * (`links` and body `[[wikilinks]]`) must name a memory that a read of the link would find, and
 * links or tags that work here but not elsewhere are warnings.
 */
import { linkedIds, SCOPES, type Memory, type Scope } from '../document/contract.js';
import { OBSIDIAN_TAG_FIX, obsidianTagProblem } from '../document/validate.js';
import { VaultError } from '../errors.js';
import { scanVault } from '../scanner/scan-vault.js';
import type { VaultRoots } from '../store/roots.js';

/** A problem that does not stop the save; `code` is the doctor rule that would report it. */
export interface SaveWarning {
  code: 'team-links-local' | 'obsidian-tag';
  message: string;
}

/** Most ids named in one refusal. */
const MAX_NAMED = 10;

/**
 * The scopes a read of a link from a memory of `scope` searches: project and team, and the user
 * scope only from a user memory (the user scope is recalled only on request).
 */
export function linkScopes(scope: Scope): Scope[] {
  return scope === 'user' ? [...SCOPES] : ['project', 'team'];
}

/**
 * Checks the links of a memory about to be saved, and its tags.
 *
 * A link to the memory itself is fine. A team memory linking to a memory found only in the
 * project scope is a warning (the project scope is never committed, so the link is broken in
 * every other clone), unless `allowLocalLinks`. A tag that Obsidian does not treat as a tag is a
 * warning ({@link obsidianTagProblem}).
 *
 * @returns the warnings, in link then tag order
 * @throws VaultError `invalid-field` (field `links`, exit 3) naming every id no searched scope
 *   holds; `read-incomplete` (exit 6) when such an id may sit in a file that could not be read
 *   (an invalid file, a skipped symbolic link, an unreadable folder or the scan limits)
 */
export function checkLinksAndTags(roots: VaultRoots, memory: Memory, options: { allowLocalLinks?: boolean | undefined } = {}): SaveWarning[] {
  const warnings: SaveWarning[] = [];
  const targets = linkedIds(memory).filter((id) => id !== memory.id);
  if (targets.length) {
    const scopes = linkScopes(memory.scope);
    const scan = scanVault(roots, { scopes, secretCheck: false });
    const where = new Map<string, Set<Scope>>();
    for (const e of scan.entries) {
      if (!targets.includes(e.memory.id)) continue;
      const set = where.get(e.memory.id) ?? new Set<Scope>();
      set.add(e.scope);
      where.set(e.memory.id, set);
    }
    const missing = targets.filter((id) => !where.has(id));
    if (missing.length) {
      const unreadable = !scan.complete
        ? scan.incompleteReasons[0]
        : scan.invalid.length
          ? `${scan.invalid.length} invalid file(s), e.g. ${scan.invalid[0]!.path}`
          : scan.symlinks.find((p) => missing.some((id) => p.endsWith(`/${id}.md`)));
      if (unreadable !== undefined) {
        throw new VaultError('read-incomplete', `cannot check the link to ${missing[0]}: the vault could not be read completely (${unreadable})`, {
          field: 'links',
          rule: 'fail-closed reads',
          hint: `run \`vault doctor --scope ${scopes.join(' --scope ')}\` and fix the reported files, then save again; a link cannot be declared good or broken while the vault is not fully readable`,
        });
      }
      const named = missing.slice(0, MAX_NAMED).join(', ') + (missing.length > MAX_NAMED ? `, and ${missing.length - MAX_NAMED} more` : '');
      throw new VaultError(
        'invalid-field',
        `links: ${missing.length === 1 ? `${named} names no memory` : `${named} name no memory`} in scopes ${scopes.join(', ')}`,
        {
          field: 'links',
          rule: 'links resolve',
          hint: `check ${missing.length === 1 ? `the id ${missing[0]}` : 'the ids'} with \`vault search\`${memory.scope === 'user' ? '' : ' (a user memory can be linked only from the user scope)'}, or remove ${missing.length === 1 ? 'the link' : 'those links'}`,
        },
      );
    }
    if (memory.scope === 'team' && !options.allowLocalLinks) {
      for (const id of targets) {
        if (where.get(id)?.has('team')) continue;
        warnings.push({
          code: 'team-links-local',
          message: `links to ${id}, a project-scope memory: it is never committed, so the link is broken in every other clone; share it with \`vault share ${id}\` (then commit it), or pass --allow-local-link to keep the link without this warning`,
        });
      }
    }
  }
  for (const tag of memory.tags) {
    const why = obsidianTagProblem(tag);
    if (why) warnings.push({ code: 'obsidian-tag', message: `tag ${tag} ${why}, so Obsidian does not treat it as a tag; ${OBSIDIAN_TAG_FIX}` });
  }
  return warnings;
}
