/**
 * The ecc.memory.v1 contract: field order, enums, grammars and limits. Every number and
 * pattern here comes from the public ecc.memory.v1 format (see docs/format.md) and is mirrored
 * by schemas/memory.schema.json; tests hold the two together.
 */

export const SCHEMA_VERSION = 'ecc.memory.v1';

/** The thirteen frontmatter keys, in their fixed on-disk order. */
export const FIELD_ORDER = [
  'schema',
  'id',
  'title',
  'kind',
  'scope',
  'trust',
  'status',
  'source_harness',
  'target_harnesses',
  'tags',
  'links',
  'created_at',
  'updated_at',
] as const;

export type FieldName = (typeof FIELD_ORDER)[number];

/** The eight kinds of memory (ecc.memory.v1); each has its folder `<kind>s/` in a scope. */
export const KINDS = ['context', 'decision', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook'] as const;
export type Kind = (typeof KINDS)[number];

/** Where a memory lives: team (committed), project (local to the clone), user (~/.ecc/memory). */
export const SCOPES = ['project', 'team', 'user'] as const;
export type Scope = (typeof SCOPES)[number];

/** Lifecycle states; only a person changes one (ecc.memory.v1). */
export const STATUSES = ['active', 'rejected', 'superseded'] as const;
export type Status = (typeof STATUSES)[number];

/** The only legal trust value: no tool ever promotes a memory. */
export const TRUSTS = ['unreviewed'] as const;
export type Trust = (typeof TRUSTS)[number];

/** Kind → folder name inside a scope (plural). */
export function kindFolder(kind: Kind): string {
  return `${kind}s`;
}

/** Folder name → kind, or undefined when the folder is not a kind folder. */
export function kindOfFolder(folder: string): Kind | undefined {
  if (!folder.endsWith('s')) return undefined;
  const k = folder.slice(0, -1);
  return (KINDS as readonly string[]).includes(k) ? (k as Kind) : undefined;
}

/** Memory id grammar (no `.` or `/`, so an id can never name a path). */
export const ID_PATTERN = /^mem_[a-z0-9][a-z0-9_-]{2,127}$/;
/**
 * An Obsidian wikilink to a memory in a body: `[[mem_id]]` or `[[mem_id|label]]`; group 1 is the
 * id. Global: read it with `matchAll` (which copies it), never with `test`/`exec`.
 */
export const WIKILINK_PATTERN = new RegExp(`\\[\\[(${ID_PATTERN.source.slice(1, -1)})(?:\\|[^\\]\\n]*)?\\]\\]`, 'g');
/** Harness names and tags. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** UTC ISO-8601 with milliseconds; must also round-trip through Date#toISOString. */
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// The characters refused in strings and bodies (C0/C1 controls, bidi formatting) are defined
// with every other character set in src/unicode/unsafe-characters.ts.

/** Size and count limits of ecc.memory.v1, with their units (see docs/format.md). */
export const LIMITS = {
  /** title length in UTF-16 code units (as the reference counts) */
  titleMax: 200,
  /** body size in UTF-8 bytes after trimming */
  bodyMaxBytes: 65_536,
  /** whole document size in UTF-8 bytes */
  documentMaxBytes: 131_072,
  targetHarnessesMin: 1,
  targetHarnessesMax: 32,
  tagsMax: 32,
  linksMax: 64,
} as const;

/** Memory values as the library uses them (camelCase). `body` is trimmed and non-empty. */
export interface Memory {
  schema: typeof SCHEMA_VERSION;
  id: string;
  title: string;
  kind: Kind;
  scope: Scope;
  trust: Trust;
  status: Status;
  sourceHarness: string;
  targetHarnesses: string[];
  tags: string[];
  links: string[];
  createdAt: string;
  updatedAt: string;
  body: string;
}

/** The frontmatter as it appears in the file (snake_case keys). */
export interface Frontmatter {
  schema: string;
  id: string;
  title: string;
  kind: string;
  scope: string;
  trust: string;
  status: string;
  source_harness: string;
  target_harnesses: string[];
  tags: string[];
  links: string[];
  created_at: string;
  updated_at: string;
}

/** Converts a memory to its frontmatter object (key order = {@link FIELD_ORDER}). */
export function toFrontmatter(m: Memory): Frontmatter {
  return {
    schema: m.schema,
    id: m.id,
    title: m.title,
    kind: m.kind,
    scope: m.scope,
    trust: m.trust,
    status: m.status,
    source_harness: m.sourceHarness,
    target_harnesses: m.targetHarnesses,
    tags: m.tags,
    links: m.links,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

/** Converts a validated frontmatter object and a body to a memory. */
export function fromFrontmatter(f: Frontmatter, body: string): Memory {
  return {
    schema: SCHEMA_VERSION,
    id: f.id,
    title: f.title,
    kind: f.kind as Kind,
    scope: f.scope as Scope,
    trust: f.trust as Trust,
    status: f.status as Status,
    sourceHarness: f.source_harness,
    targetHarnesses: [...f.target_harnesses],
    tags: [...f.tags],
    links: [...f.links],
    createdAt: f.created_at,
    updatedAt: f.updated_at,
    body,
  };
}

/** Ids a memory links to: its frontmatter `links` plus the {@link WIKILINK_PATTERN} wikilinks in its body. */
export function linkedIds(memory: Memory): string[] {
  const ids = new Set(memory.links);
  for (const m of memory.body.matchAll(WIKILINK_PATTERN)) ids.add(m[1]!);
  return [...ids];
}

/** UTF-8 byte length of a string. */
export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/**
 * The doctor command that checks exactly the scopes a lookup read, for a hint: a plain
 * `vault doctor` checks project and team only, so a problem in the user scope would stay
 * unseen. Scopes come in the contract's order; an empty list means the default scopes.
 *
 * @param scopes the scopes read (`project`, `team`, `user`)
 * @returns e.g. `vault doctor --scope user` or `vault doctor --scope project --scope team`
 */
export function doctorCommandFor(scopes: readonly string[]): string {
  const named = SCOPES.filter((s) => (scopes.length ? scopes : ['project', 'team']).includes(s));
  return `vault doctor ${named.map((s) => `--scope ${s}`).join(' ')}`;
}
