/**
 * Input and output schemas of the MCP tools (zod 4; the SDK publishes them as JSON Schema in
 * `tools/list`). Inputs declare types, enums and counts so a model can call correctly; the
 * library still enforces every ecc.memory.v1 rule (patterns, byte limits, secrets) and names the
 * field and the rule when one fails. Inputs are strict objects (`additionalProperties: false` in
 * `tools/list`): a key a tool does not declare, such as a client-sent harness, is refused with
 * -32602 (tool-arguments.ts), never dropped: identity belongs to the server.
 */
import * as z from 'zod';
import { KINDS, LIMITS, SCOPES, STATUSES } from '../document/contract.js';

const kind = z.enum(KINDS);
const scope = z.enum(SCOPES);
const status = z.enum(STATUSES);
const scopes = z
  .array(scope)
  .min(1)
  .max(3)
  .describe('scopes to look in; default ["project","team"]. "user" only when the user asked for their personal memories and the operator enabled it');

/** `memory_save` arguments. */
export const saveInput = z.strictObject({
  title: z.string().min(1).max(LIMITS.titleMax).describe('one-line summary, 1..200 characters'),
  body: z
    .string()
    .min(1)
    .max(LIMITS.bodyMaxBytes)
    .describe('the memory in Markdown: what, why, and how to apply it; at most 64 KiB of UTF-8. Never include credentials'),
  kind: kind.optional().describe('kind of memory; default "note"'),
  tags: z.array(z.string()).max(LIMITS.tagsMax).optional().describe('lowercase tags (letters, digits, ".", "_", "-"), at most 32'),
  links: z
    .array(z.string())
    .max(LIMITS.linksMax)
    .optional()
    .describe(
      'ids (mem_...) of existing memories (project or team; user only from a user memory), e.g. the one this supersedes; a missing id is refused; at most 64',
    ),
  targetHarnesses: z
    .array(z.string())
    .min(LIMITS.targetHarnessesMin)
    .max(LIMITS.targetHarnessesMax)
    .optional()
    .describe('harnesses that should recall it, e.g. ["claude-code","cursor"]; default ["all"]'),
  scope: scope
    .optional()
    .describe(
      '"project" (default: local to this clone, never committed), "team" (committed and reviewed in pull requests) or "user" (personal; only when explicitly asked and enabled)',
    ),
});

const memorySummary = z.object({
  id: z.string(),
  title: z.string(),
  kind,
  scope,
  trust: z.literal('unreviewed'),
  status,
  sourceHarness: z.string(),
  targetHarnesses: z.array(z.string()),
  tags: z.array(z.string()),
  links: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** `memory_save` result. */
export const saveOutput = {
  id: z.string(),
  path: z.string().describe('vault-relative path of the new file'),
  written: z.boolean().describe('false only when the operator runs the server in dry-run mode (ECC_DRY_RUN=1)'),
  memory: memorySummary,
  similar: z
    .array(z.object({ id: z.string(), path: z.string(), reason: z.enum(['same-title', 'similar-body']) }))
    .describe(
      'memories already in the scope with the same title or a near-identical body; the save went ahead, so read them and consider whether one should supersede the other',
    ),
  warnings: z
    .array(z.object({ code: z.enum(['team-links-local', 'obsidian-tag']), message: z.string() }))
    .describe('problems that did not stop the save: a team memory linking to a project-scope memory, a tag Obsidian does not treat as a tag'),
};

/** `memory_search` arguments. */
export const searchInput = z.strictObject({
  query: z.string().max(500).describe('words to look for (any language); empty lists the newest memories'),
  scopes: scopes.optional(),
  kinds: z.array(kind).max(KINDS.length).optional().describe('only these kinds'),
  tags: z.array(z.string()).max(LIMITS.tagsMax).optional().describe('only memories carrying every one of these tags'),
  statuses: z.array(status).max(STATUSES.length).optional().describe('default ["active"]; add "superseded" or "rejected" to see history'),
  since: z.string().max(40).optional().describe('only memories updated at or after this date (YYYY-MM-DD) or ISO-8601 time'),
  until: z.string().max(40).optional().describe('only memories updated at or before this date (YYYY-MM-DD, inclusive) or ISO-8601 time'),
  limit: z.number().int().min(1).max(100).optional().describe('maximum results, default 20'),
});

/** `memory_search` result. */
export const searchOutput = {
  notice: z.string(),
  harness: z.string().describe('results are limited to memories targeted at this harness or "all"'),
  total: z.number().int().describe('matching memories before the limit'),
  results: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      kind,
      scope,
      status,
      tags: z.array(z.string()),
      score: z.number(),
      path: z.string(),
      excerpt: z.string(),
      updatedAt: z.string(),
    }),
  ),
  complete: z.boolean().describe('false when part of the vault could not be read'),
  diagnostics: z.array(z.string()).describe('why results may be partial (invalid files, skipped links); empty when the vault read cleanly'),
};

/** `memory_read` arguments. */
export const readInput = z.strictObject({
  id: z.string().max(132).describe('memory id, mem_...'),
  scopes: scopes.optional(),
});

const backlink = z.object({ id: z.string(), title: z.string(), kind: z.string(), scope, status: z.string(), path: z.string() });

/** `memory_read` result. */
export const readOutput = {
  notice: z.string(),
  memory: memorySummary.extend({ body: z.string() }),
  path: z.string(),
  backlinks: z.array(backlink).describe('memories (visible to this harness) that link to this one; a newer one may supersede it'),
};

/** `memory_doctor` arguments. */
export const doctorInput = z.strictObject({
  scopes: scopes.optional(),
});

/** `memory_doctor` result. */
export const doctorOutput = {
  ok: z.boolean().describe('true when no errors were found'),
  summary: z.string().describe('one line, e.g. "2 errors, 1 warning in 2 files (120 memories checked)"'),
  complete: z.boolean().describe('false when the vault could not be read completely (reads then answer MEMORY_READ_INCOMPLETE)'),
  scopes: z.array(scope),
  counts: z.record(z.string(), z.number()).describe('errors, warnings, infos, memories, files, checked, ignored'),
  problems: z.array(
    z.object({
      severity: z.enum(['error', 'warning', 'info']),
      code: z.string().describe('stable rule code, e.g. invalid-field, broken-link, duplicate-id'),
      path: z.string().describe('vault-relative path of the file (or folder) concerned'),
      line: z.number().int().optional(),
      message: z.string(),
      hint: z.string().describe('how a person can fix it'),
    }),
  ),
  problemsTruncated: z.boolean().describe('true when more problems exist than listed (run `vault doctor` for all)'),
};

/** Proposals listed in one answer. */
const MAX_PROPOSALS = 50;

/** `memory_proposals` arguments. */
export const proposalsInput = z.strictObject({
  limit: z.number().int().min(1).max(MAX_PROPOSALS).optional().describe(`how many, newest first (default 20, at most ${MAX_PROPOSALS})`),
});

/** `memory_proposals` result. */
export const proposalsOutput = {
  notice: z.string(),
  proposals: z.array(
    z.object({
      id: z.string().describe('proposal id (p + 10 hex digits), for the person: `vault review show ID`'),
      kind: z.string(),
      title: z.string(),
      body: z.string(),
      tags: z.array(z.string()),
      evidence: z.object({ harness: z.string(), sessionId: z.string().optional(), line: z.number().int(), uuid: z.string().optional() }),
    }),
  ),
  total: z.number().int(),
};

/** Each tool's input schema, by tool name (for the check in front of the SDK, tool-arguments.ts). */
export const TOOL_INPUTS = {
  memory_save: saveInput,
  memory_search: searchInput,
  memory_read: readInput,
  memory_doctor: doctorInput,
  memory_proposals: proposalsInput,
} as const;
