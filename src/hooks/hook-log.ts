/**
 * The hook log: problems of hook runs, one line each, in `<sessions folder>/hooks.log`
 * (mode 0600, never followed through a link). Bounded: past 256 KiB the file is rotated to
 * `hooks.log.1`, so the two never exceed 512 KiB. Lines are redacted and single-line; a
 * payload is never logged, only its length.
 */
import { closeSync, constants, fchmodSync, lstatSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { oneLine, redact } from '../sessions/transcripts/text.js';

/** Size at which the log is rotated, bytes. */
export const LOG_MAX_BYTES = 256 * 1024;

/**
 * Appends one line to the hook log. Never throws: a log that cannot be written is dropped.
 *
 * @param dir the sessions folder (must exist)
 * @param fields time, harness, event, level, message
 */
export function appendHookLog(dir: string, fields: { time: string; harness: string; event: string; level: 'info' | 'warn' | 'error'; message: string }): void {
  const file = join(dir, 'hooks.log');
  try {
    try {
      const st = lstatSync(file);
      if (st.isSymbolicLink() || !st.isFile()) return;
      if (st.size > LOG_MAX_BYTES) renameSync(file, `${file}.1`);
    } catch {
      /* no log yet */
    }
    const line = `${fields.time} ${oneLine(fields.harness, 20)} ${oneLine(fields.event, 30)} ${fields.level} ${oneLine(redact(fields.message), 500)}\n`;
    const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
    try {
      fchmodSync(fd, 0o600);
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* logging must never break a hook */
  }
}
