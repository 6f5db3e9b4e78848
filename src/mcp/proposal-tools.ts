/**
 * `memory_proposals`: the memories proposed from this worktree's sessions, read-only. An agent
 * can see what is waiting for review, never accept or reject it: accepting is a person's act
 * (`vault review`), so the server offers no tool that writes a proposal into the vault.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpContext } from './memory-access.js';
import { RECALL_NOTICE, toolErrorFrom, toolSuccess } from './tool-result.js';
import { proposalsInput, proposalsOutput } from './tool-schemas.js';

/** Registers the read-only `memory_proposals` tool. */
export function registerProposalTools(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'memory_proposals',
    {
      title: 'List proposed memories (read-only)',
      description: [
        "List the memories proposed from this worktree's agent sessions that wait for a person's review, newest first, with their evidence (session, transcript line).",
        'Read-only: proposals are not memories yet, and only a person accepts or rejects them (`vault review`); this server has no tool to do so.',
        RECALL_NOTICE,
      ].join(' '),
      inputSchema: proposalsInput,
      outputSchema: proposalsOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        const [{ resolveSessionsDir }, { reviewList }] = await Promise.all([
          import('../sessions/snapshots/snapshot-store.js'),
          import('../operations/review.js'),
        ]);
        const all = reviewList(resolveSessionsDir(ctx.rt), ctx.roots.worktreeRoot);
        const proposals = all.slice(0, args.limit ?? 20).map((p) => ({
          id: p.id,
          kind: p.kind,
          title: p.title,
          body: p.body,
          tags: p.tags,
          evidence: {
            harness: p.evidence.harness,
            ...(p.evidence.sessionId ? { sessionId: p.evidence.sessionId } : {}),
            line: p.evidence.line,
            ...(p.evidence.uuid ? { uuid: p.evidence.uuid } : {}),
          },
        }));
        return toolSuccess({ notice: RECALL_NOTICE, proposals, total: all.length });
      } catch (err) {
        return toolErrorFrom('MEMORY_READ_FAILED', err, ctx.log);
      }
    },
  );
}
