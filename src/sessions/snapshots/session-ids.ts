/**
 * Short ids of sessions, used in snapshot file names. The short id comes from the transcript's
 * UUID (the `<uuid>.jsonl` / `rollout-<ts>-<uuid>.jsonl` basename), so a parent session and a
 * child `claude -p` process never share a snapshot file (ECC issue #1494), then from the
 * session id. Every candidate is sanitized before it reaches a file name.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';

/** Windows device names that must never be a file name stem. */
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/**
 * Makes any string safe as a short id: leading dots dropped, every character outside
 * `[A-Za-z0-9_-]` becomes `-`, dash runs collapsed and trimmed, lowercased, at most 64
 * characters. Non-ASCII input or a reserved Windows name gets `-<6 hex of sha256>` so distinct
 * inputs stay distinct; input with no usable character becomes 8 hex characters.
 * (Rules compatible with the ECC session hooks, §8 of the reference.)
 *
 * @returns a string matching `^[a-z0-9_][a-z0-9_-]{0,63}$`, or undefined for empty input
 */
export function sanitizeShortId(raw: string): string | undefined {
  if (!raw) return undefined;
  const hash = (n: number) => createHash('sha256').update(raw).digest('hex').slice(0, n);
  let id = raw
    .replace(/^\.+/, '')
    .replace(/[^A-Za-z0-9_-]/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
  const nonAscii = /[^\x20-\x7e]/.test(raw);
  if (!id) return nonAscii || raw.trim() ? hash(8) : undefined;
  if (nonAscii || RESERVED.test(id)) id = `${id.slice(0, 56)}-${hash(6)}`;
  return id.slice(0, 64).replace(/-+$/, '');
}

/**
 * The short id of a session: the last 8 characters of the transcript's basename (without
 * `.jsonl`), else the last 8 of the session id, sanitized.
 *
 * @param transcriptPath validated transcript path, if any
 * @param sessionId the harness's session id, if any
 * @returns the short id, or undefined when neither gives one
 */
export function deriveShortId(transcriptPath: string | undefined, sessionId: string | undefined): string | undefined {
  if (transcriptPath) {
    const stem = basename(transcriptPath).replace(/\.jsonl$/, '');
    const id = sanitizeShortId(stem.slice(-8));
    if (id) return id;
  }
  if (sessionId) return sanitizeShortId(sessionId.slice(-8));
  return undefined;
}
