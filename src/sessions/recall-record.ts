/**
 * The per-session record of injected memories: which memory ids a session has been shown (the
 * session-start digest and prompt recall), so prompt recall never injects one twice in a session
 * id, across compactions too.
 *
 * File: `<sessions>/.recall/<fnv1a32 of the session id>.json`, JSON `{"v":1,"session","ids"}`,
 * written atomically, 0600, never through a link (the sessions folder's write helper), in a
 * subfolder so that writing it does not change the sessions folder's mtime (start records
 * depend on it). At most {@link MAX_IDS} ids, the newest kept. Records are pruned with the
 * snapshots (snapshots/snapshot-index.ts: those not modified within ECC_SESSION_RETENTION_DAYS,
 * when a snapshot is written or session start lists them). Advisory: a damaged record reads as
 * empty.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ID_PATTERN } from '../document/contract.js';
import type { Runtime } from '../io/runtime.js';
import { ensureSessionsDir, RECALL_DIR, readSnapshotText, removeStaleWorkFiles, writeSessionFile } from './snapshots/snapshot-store.js';
import { fnv1a32 } from './start/start-cache.js';

/** Ids kept per session. */
export const MAX_IDS = 2000;
const RECORD_MAX_BYTES = 256 * 1024;

function fileOf(sessionId: string): string {
  return `${fnv1a32(sessionId)}.json`;
}

/** The ids already injected in a session (empty when there is no usable record). */
export function readInjected(sessionsDir: string, sessionId: string): Set<string> {
  const file = join(sessionsDir, RECALL_DIR, fileOf(sessionId));
  // a new session has none: asked without an exception (a failed open's error costs a hook ~5 ms)
  if (!lstatSync(file, { throwIfNoEntry: false })) return new Set();
  const text = readSnapshotText(file, RECORD_MAX_BYTES);
  if (text === undefined) return new Set();
  try {
    const v = JSON.parse(text) as { v?: unknown; session?: unknown; ids?: unknown };
    if (v.v !== 1 || v.session !== sessionId || !Array.isArray(v.ids)) return new Set();
    return new Set(v.ids.filter((id): id is string => typeof id === 'string' && ID_PATTERN.test(id)));
  } catch {
    return new Set();
  }
}

/**
 * Adds ids to a session's record. Never throws: a record that cannot be written costs at most a
 * memory shown again.
 */
export function addInjected(sessionsDir: string, sessionId: string, ids: readonly string[], rt: Runtime): void {
  if (!ids.length) return;
  try {
    ensureSessionsDir(sessionsDir);
    const sub = join(sessionsDir, RECALL_DIR);
    try {
      mkdirSync(sub, { mode: 0o700 });
    } catch {
      /* exists, checked below */
    }
    if (!lstatSync(sub, { throwIfNoEntry: false })?.isDirectory()) return; // a link or a file: never written through
    const name = fileOf(sessionId);
    const all = [...readInjected(sessionsDir, sessionId), ...ids.filter((id) => ID_PATTERN.test(id))];
    const kept = [...new Set(all)].slice(-MAX_IDS);
    writeSessionFile(sub, name, JSON.stringify({ v: 1, session: sessionId, ids: kept }), 'recall', rt, true);
    removeStaleWorkFiles(sub, rt);
  } catch {
    /* advisory */
  }
}
