/**
 * The four MCP tools: memory_save, memory_search, memory_read, memory_doctor (the read-only memory_proposals is in proposal-tools.ts). Each one checks
 * the server's identity policy, calls one library function and shapes its answer; failures
 * become tool errors with stable codes (see tool-result.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import { doctorCommandFor, type Memory } from '../document/contract.js';
import type { SaveInput } from '../operations/save.js';
import type { SearchDiagnostics } from '../search/query/search-memories.js';
import { readVisibleMemory, scopesFor, type McpContext } from './memory-access.js';
import { RECALL_NOTICE, toolErrorFrom, toolSuccess } from './tool-result.js';
import { doctorInput, doctorOutput, readInput, readOutput, saveInput, saveOutput, searchInput, searchOutput } from './tool-schemas.js';

/** Doctor problems listed in one answer; the rest are counted (`vault doctor` lists all). */
const MAX_DOCTOR_PROBLEMS = 100;

const IDENTITY_NOTE = 'The harness identity is fixed by the server configuration; arguments cannot change it.';

/** A memory's metadata without its body. */
function summarize(m: Memory) {
  return {
    id: m.id,
    title: m.title,
    kind: m.kind,
    scope: m.scope,
    trust: m.trust,
    status: m.status,
    sourceHarness: m.sourceHarness,
    targetHarnesses: m.targetHarnesses,
    tags: m.tags,
    links: m.links,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

/** Diagnostics per search, listed at most; the doctor lists them all. */
const MAX_DIAGNOSTICS = 20;

/**
 * Why a search may have missed something, one line each (vault-relative paths, no file content):
 * invalid files, skipped symbolic links, an incomplete walk.
 */
function describeDiagnostics(d: SearchDiagnostics): string[] {
  // the doctor command of the scopes searched, as the CLI's search names it
  const doctor = doctorCommandFor(d.index.map((i) => i.scope));
  const lines = [
    ...d.incompleteReasons.map((r) => `vault not fully read: ${r}; run \`${doctor}\``),
    ...d.invalidFiles.map((f) => `${f.path}: not a usable memory (${f.code}); run \`${doctor}\``),
    ...d.skippedSymlinks.map((p) => `${p}: symbolic link skipped`),
  ];
  return lines.length > MAX_DIAGNOSTICS ? [...lines.slice(0, MAX_DIAGNOSTICS), `and ${lines.length - MAX_DIAGNOSTICS} more; run \`${doctor}\``] : lines;
}

/** `memory_save` arguments, as the input schema delivers them. */
type SaveArgs = z.infer<typeof saveInput>;

/**
 * The MCP server's one mapping from `memory_save` arguments to the save operation's input: the
 * harness is the server's fixed identity (a client cannot choose it), the scope one the operator
 * allowed.
 *
 * @throws VaultError `invalid-input` (user scope disabled)
 */
function saveInputFrom(ctx: McpContext, args: SaveArgs): SaveInput {
  const [scope] = scopesFor(ctx, [args.scope ?? 'project']);
  return {
    title: args.title,
    body: args.body,
    kind: args.kind,
    scope,
    tags: args.tags,
    links: args.links,
    targetHarnesses: args.targetHarnesses,
    sourceHarness: ctx.identity.harness,
  };
}

/**
 * `memory_save`: saves through the save operation (validation, the duplicate check, the
 * create-only write, the index refresh) and answers like `vault save --json`, with the similar
 * memories found. The operator's ECC_DRY_RUN=1 makes every save a dry run.
 */
export async function runSave(ctx: McpContext, args: SaveArgs): Promise<CallToolResult> {
  try {
    const { save } = await import('../operations/save.js');
    const result = await save(ctx.roots, saveInputFrom(ctx, args), ctx.rt, { dryRun: ctx.rt.env.ECC_DRY_RUN === '1' });
    return toolSuccess({
      id: result.memory.id,
      path: result.path,
      written: result.written,
      memory: summarize(result.memory),
      similar: result.similar.map((x) => ({ id: x.id, path: x.path, reason: x.reason })),
      warnings: result.warnings,
    });
  } catch (err) {
    return toolErrorFrom('MEMORY_WRITE_REJECTED', err, ctx.log);
  }
}

/**
 * Registers the memory tools on `server`.
 *
 * @param server the MCP server
 * @param ctx roots, runtime, identity and log of this server
 */
export function registerMemoryTools(server: McpServer, ctx: McpContext): void {
  const harness = ctx.identity.harness;

  server.registerTool(
    'memory_save',
    {
      title: 'Save a memory',
      description: [
        'Save a durable memory to the project vault: a decision and its reason, a convention, a lesson learned, a runbook, a fact about this codebase, or a hand-off for the next session.',
        'Use it when something learned now will matter in a later session; do not save transient chatter, whole transcripts, or anything already in the code or docs.',
        'Writes are create-only: to correct a memory, save a new one that links to the old id. Every memory is stored as "unreviewed"; people review it in git.',
        `It is recorded as written by harness "${harness}". ${IDENTITY_NOTE}`,
        'Never include credentials: a suspected secret rejects the whole save.',
      ].join(' '),
      inputSchema: saveInput,
      outputSchema: saveOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) => runSave(ctx, args),
  );

  server.registerTool(
    'memory_search',
    {
      title: 'Search memories',
      description: [
        "Search the project's memory vault (decisions, conventions, lessons, runbooks, hand-offs) by words, in any language.",
        'Use it at the start of a task or before a design choice to recall what was decided or learned earlier; then memory_read an id for the full text.',
        `Results are limited to memories targeted at harness "${harness}" or "all". ${IDENTITY_NOTE}`,
        `${RECALL_NOTICE} Prefer the current code and the user's words when they disagree with a memory.`,
      ].join(' '),
      inputSchema: searchInput,
      outputSchema: searchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        const scopes = scopesFor(ctx, args.scopes);
        const options = {
          scopes,
          kinds: args.kinds,
          tags: args.tags,
          statuses: args.statuses,
          since: args.since,
          until: args.until,
          limit: args.limit,
          targetHarness: harness,
        };
        // the vault's index server (`vault watch`) answers when one runs, else the files do (ECC_INDEX_FULL_CHECK_S applies)
        const { searchServedOrOnDisk } = await import('../search/resident/resident-client.js');
        const found = await searchServedOrOnDisk(ctx.roots, args.query, options, ctx.rt);
        return toolSuccess({
          notice: RECALL_NOTICE,
          harness,
          total: found.total,
          results: found.results.map((r) => ({
            id: r.id,
            title: r.title,
            kind: r.kind,
            scope: r.scope,
            status: r.status,
            tags: r.tags,
            score: r.score,
            path: r.path,
            excerpt: r.excerpt,
            updatedAt: r.updatedAt,
          })),
          complete: found.diagnostics.complete,
          diagnostics: describeDiagnostics(found.diagnostics),
        });
      } catch (err) {
        return toolErrorFrom('MEMORY_SEARCH_FAILED', err, ctx.log);
      }
    },
  );

  server.registerTool(
    'memory_read',
    {
      title: 'Read a memory',
      description: [
        'Read one memory in full by id (mem_...), with its status and the memories that link to it (backlinks; a newer memory linking here may supersede it).',
        'Use it after memory_search, or when a memory or document mentions an id.',
        `Only memories targeted at harness "${harness}" or "all" are visible. ${IDENTITY_NOTE}`,
        `${RECALL_NOTICE} A status other than "active" means it was superseded or rejected.`,
        'If the vault cannot be read completely the call fails with MEMORY_READ_INCOMPLETE rather than claiming the memory does not exist.',
      ].join(' '),
      inputSchema: readInput,
      outputSchema: readOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        const scopes = scopesFor(ctx, args.scopes);
        const r = await readVisibleMemory(ctx, args.id, scopes);
        return toolSuccess({ notice: RECALL_NOTICE, memory: { ...summarize(r.memory), body: r.memory.body }, path: r.path, backlinks: r.backlinks });
      } catch (err) {
        return toolErrorFrom('MEMORY_READ_FAILED', err, ctx.log);
      }
    },
  );

  server.registerTool(
    'memory_doctor',
    {
      title: 'Check the vault',
      description: [
        'Check the health of the memory vault without changing anything: malformed files, duplicate ids, broken links, misplaced files, symbolic links, suspected secrets, stale index, memories that look superseded.',
        'Use it when a memory tool reports an incomplete read, or when asked whether the vault is healthy. It returns a summary and the problems with file, rule and a fix hint; fixes are for a person to make.',
      ].join(' '),
      inputSchema: doctorInput,
      outputSchema: doctorOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        const scopes = scopesFor(ctx, args.scopes);
        const [{ runDoctor }, { summaryLine }, { handoffStaleDaysFrom }] = await Promise.all([
          import('../doctor/run-doctor.js'),
          import('../doctor/report-format.js'),
          import('../doctor/rules/stale-handoff.js'),
        ]);
        const report = await runDoctor(ctx.roots, { scopes, now: ctx.rt.now(), handoffStaleDays: handoffStaleDaysFrom(ctx.rt.env.ECC_HANDOFF_STALE_DAYS) });
        const problems = report.problems.slice(0, MAX_DOCTOR_PROBLEMS).map((p) => ({
          severity: p.severity,
          code: p.code,
          path: p.path,
          ...(p.line !== undefined ? { line: p.line } : {}),
          message: p.message,
          hint: p.hint,
        }));
        return toolSuccess({
          ok: report.ok,
          summary: summaryLine(report),
          complete: report.complete,
          scopes: report.scopes,
          counts: report.counts,
          problems,
          problemsTruncated: report.problems.length > problems.length,
        });
      } catch (err) {
        return toolErrorFrom('MEMORY_DOCTOR_FAILED', err, ctx.log);
      }
    },
  );
}
