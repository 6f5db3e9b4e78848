/**
 * Claims of explicit memory ids: the exclusive file that makes "is this id free?" and "write the
 * memory" one step for every writer of the scopes a read considers together. The create-only link
 * protects one path; two saves of one `--id` into different kinds or scopes have different paths,
 * so each save of an explicit id first creates `<claims>/<id>` exclusively, checks the id is
 * free, writes, and removes its claim.
 *
 *   team + project   <common git dir>/ecc-memory-claims    (shared by every worktree of the clone)
 *   no git, override <memory root>/.claims
 *   user             <user root>/.claims                   (taken too by a user-scope save)
 *
 * A claim left by a killed save is stale after {@link CLAIM_STALE_MS} or when its process is gone.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Scope } from '../document/contract.js';
import { VaultError } from '../errors.js';
import type { ProcessIds } from '../io/runtime.js';
import { assertMemoryId } from './ids.js';
import type { VaultRoots } from './roots.js';

/** A claim older than this (file system clock) belongs to a save that was killed: saves take milliseconds. */
export const CLAIM_STALE_MS = 30_000;
/** How long a save waits for another save of the same id to finish before refusing. */
const CLAIM_WAIT_MS = 3_000;

/** The claim folders a save of `scope` takes, in a fixed order (so two saves never wait on each other in a cycle). */
export function claimDirsFor(roots: VaultRoots, scope: Scope): string[] {
  const vault = !roots.overridden && roots.commonGitDir ? join(roots.commonGitDir, 'ecc-memory-claims') : join(roots.memoryRoot, '.claims');
  if (scope !== 'user') return [vault];
  // a user-scope save claims the vault's folder too when there is a vault here (never creating one)
  const vaultExists = lstatSync(dirname(vault), { throwIfNoEntry: false })?.isDirectory() ?? false;
  return vaultExists ? [vault, join(roots.user, '.claims')] : [join(roots.user, '.claims')];
}

/** A claim held by this process; {@link releaseClaims} removes it. */
export interface IdClaim {
  path: string;
  ino: number;
}

function tryCreate(path: string, ids: ProcessIds, nowMs: number): IdClaim | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw err;
  }
  try {
    writeSync(fd, `${ids.pid} ${nowMs}\n`);
    return { path, ino: fstatSync(fd).ino };
  } finally {
    closeSync(fd);
  }
}

function isStale(path: string, ids: ProcessIds, nowMs: number): boolean {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return false;
  if (!st.isFile() || nowMs - st.mtimeMs > CLAIM_STALE_MS) return true;
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').slice(0, 40), 10);
    return Number.isInteger(pid) && pid > 0 && pid !== ids.pid && !ids.isProcessAlive(pid);
  } catch {
    return false;
  }
}

/**
 * Claims `id` in every claim folder of `scope` (see the module comment), waiting up to 3 s for
 * another save of the same id to finish.
 *
 * @param now the current time (ms since the epoch), read again while waiting
 * @returns the claims held (release them with {@link releaseClaims})
 * @throws VaultError `already-exists` when another save of this id is still in progress,
 *   `io-error` when a claim folder cannot be created
 */
export async function claimId(roots: VaultRoots, scope: Scope, id: string, ids: ProcessIds, now: () => number): Promise<IdClaim[]> {
  assertMemoryId(id);
  const held: IdClaim[] = [];
  try {
    for (const dir of claimDirsFor(roots, scope)) {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
      } catch (err) {
        throw new VaultError('io-error', `cannot create the id claim folder (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
      }
      const path = join(dir, id);
      const until = now() + CLAIM_WAIT_MS;
      for (;;) {
        const claim = tryCreate(path, ids, now());
        if (claim) {
          held.push(claim);
          break;
        }
        if (isStale(path, ids, now())) {
          try {
            unlinkSync(path);
          } catch {
            /* another save took it over first */
          }
          continue;
        }
        if (now() > until) {
          throw new VaultError('already-exists', `memory ${id} is being saved by another process; writes are create-only`, {
            field: 'id',
            rule: 'create-only',
            hint: 'choose another id, or read the memory once that save has finished',
          });
        }
        await new Promise((r) => setTimeout(r, 15));
      }
    }
    return held;
  } catch (err) {
    releaseClaims(held);
    throw err;
  }
}

/** Removes claims this process holds (only when the file is still the one it created). */
export function releaseClaims(claims: readonly IdClaim[]): void {
  for (const c of claims) {
    try {
      if (lstatSync(c.path).ino === c.ino) unlinkSync(c.path);
    } catch {
      /* gone already */
    }
  }
}

/** True when every claim is still the file this process created (a stale-claim takeover by another save replaces it). */
export function claimsIntact(claims: readonly IdClaim[]): boolean {
  return claims.every((c) => lstatSync(c.path, { throwIfNoEntry: false })?.ino === c.ino);
}
