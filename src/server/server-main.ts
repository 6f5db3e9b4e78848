/**
 * The vault's resident index server (`vault watch`), like git's fsmonitor daemon: it keeps the
 * search index (documents table, decoded term buckets) and the read scan in memory
 * (search/resident/resident-engine.ts), watches the scope folders (folder-watcher.ts), and answers
 * search, read, similar-memory and status requests on a Unix socket (search/resident/resident-protocol.ts).
 *
 * Freshness: every request starts with a cookie-file round trip. The server writes a new file in
 * its own watched folder and waits until the watcher reports it; inotify reports events in order,
 * so every change made before the request has been seen by then, and the scopes it touched are
 * checked again before the answer. When the watcher cannot be trusted (an error, the inotify
 * watch limit, a cookie not reported within a second) every request runs the full per-file
 * check, exactly as without the server, and `--status` says so. While the watcher works, every
 * scope still gets the full per-file check once per full-check interval (ECC_INDEX_FULL_CHECK_S,
 * default 60 s; 0: on every request), as a search without the server does: inotify drops events
 * when its queue overflows, and Node.js does not report it.
 */
import { chmodSync, closeSync, type Dirent, lstatSync, mkdirSync, openSync, readdirSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join, relative, sep } from 'node:path';
import { SCOPES, type Scope } from '../document/contract.js';
import { VaultError } from '../errors.js';
import pc from 'picocolors';
import { readFromIndexes, type ReadResult } from '../operations/read.js';
import { foreignListenerError, serverPresence, type ClientIdentity } from '../search/resident/resident-client.js';
import { fullCheckIntervalFrom } from '../search/index/index-freshness.js';
import { ResidentEngine } from '../search/resident/resident-engine.js';
import {
  MAX_LINE_BYTES,
  PROTOCOL_VERSION,
  serverDirFor,
  socketLocation,
  vaultKey,
  type RenderedOutput,
  type RenderRequest,
  type ServerReply,
  type ServerRequest,
} from '../search/resident/resident-protocol.js';
import { jsonText, readJson, readText, searchText, searchWarnings } from '../search/resident/resident-render.js';
import type { SearchOptions, SearchResponse } from '../search/query/search-memories.js';
import { recallText } from '../sessions/prompt-recall.js';
import { assertMemoryId } from '../store/ids.js';
import type { SimilarProbe } from '../search/query/similar-memories.js';
import { scopeRoot, type VaultRoots } from '../store/roots.js';
import { FolderWatcher, mayBeFolder } from './folder-watcher.js';

/** Options of {@link runIndexServer}. */
export interface IndexServerOptions {
  /** scopes to keep and watch (others are checked in full on each request) */
  scopes: readonly Scope[];
  /** ms to wait for changes to settle before refreshing the on-disk index */
  debounceMs: number;
  who: ClientIdentity;
  /** one event of the server's life (ready, a change, a refresh, a warning) */
  say(event: Record<string, unknown>, text: string): void;
}

/** The running server. */
export interface IndexServer {
  socketPath: string;
  /** resolves once the server has stopped (`vault watch --stop`, {@link IndexServer.stop}) */
  closed: Promise<void>;
  stop(): Promise<void>;
  /**
   * True once a stop found the socket path taken by another server (one of another protocol
   * version replaces a socket whose server it cannot talk to). The server then still listens on
   * its unlinked socket: its process must end with `process.exit`, since closing the listener (or
   * a natural exit, which closes it) would remove the other server's socket file by its path.
   */
  readonly socketTaken: boolean;
}

/** The longest a fresh server waits for its first status request before it warms up anyway (ms). */
const WARM_UP_DELAY_MS = 500;

/** How long a cookie file may take to be reported before the watcher is no longer trusted (ms). */
const COOKIE_TIMEOUT_MS = 1000;

/**
 * Starts the server for `roots` and answers once it listens (the index is opened first, so the
 * first request is fast).
 *
 * @throws VaultError `conflict` when a server already answers for this vault; `io` when the
 *   socket cannot be placed safely (path too long and no private short folder, a socket path
 *   taken by something that is not our socket)
 */
export async function runIndexServer(roots: VaultRoots, opts: IndexServerOptions): Promise<IndexServer> {
  const started = Date.now();
  const serverDir = serverDirFor(roots);
  mkdirSync(serverDir, { recursive: true });
  if (!lstatSync(serverDir).isDirectory()) throw new VaultError('io-error', `${serverDir} is not a folder`, { hint: 'remove it; it holds the index' });
  const at = socketLocation(roots, opts.who.uid, opts.who.env, true);
  if (!at) {
    throw new VaultError('io-error', `the server socket path under ${serverDir} is too long and no private short folder exists`, {
      hint: 'set XDG_RUNTIME_DIR to a folder of yours with mode 0700',
    });
  }
  const running = await serverPresence(roots, opts.who, 2000);
  if (running.kind === 'ours') {
    throw new VaultError('already-exists', `an index server already runs for this vault (pid ${running.status.pid})`, {
      hint: 'stop it with `vault watch --stop`',
    });
  }
  if (running.kind === 'foreign') throw foreignListenerError(running.socket);
  removeStaleSocket(at.path, opts.who.uid);

  const engine = new ResidentEngine(roots);
  const scopes = [...new Set(opts.scopes)];
  const scopeRoots = new Map(scopes.map((s) => [s, scopeRoot(roots, s)] as const));
  const cookies = new Map<string, () => void>();
  let cookieCount = 0;
  let fullChecks = 0;
  let requests = 0;
  const pending = new Map<string, { scope: Scope; event: string }>();
  // memory files that exist (vault-relative): a name not among them that now exists was added
  const known = new Set<string>();
  for (const [s, root] of scopeRoots) for (const p of memoryFiles(root)) known.add(`${s}/${p}`);
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    timer = undefined;
    const batch = [...pending.entries()];
    pending.clear();
    const touched = engine.pending();
    try {
      const d = engine.refresh(touched.filter((s) => scopes.includes(s)));
      for (const [path, v] of batch) opts.say({ event: v.event, path, scope: v.scope }, `${v.event.padEnd(7)} ${path}`);
      for (const r of d.index)
        if (r.action === 'rebuilt') opts.say({ event: 'rebuilt', scope: r.scope, reason: r.reason }, `rebuilt ${r.scope} index (${r.reason})`);
    } catch (err) {
      opts.say({ event: 'error', message: (err as Error).message }, `error: index refresh failed: ${(err as Error).message}`);
    }
  };

  const watcher = new FolderWatcher(
    scopeRoots,
    serverDir,
    {
      change(scope, folder, name) {
        if (name === '' || !name.endsWith('.md')) watcher.resync(scope, name === '' ? undefined : join(folder, name));
        if (name.endsWith('.md') && !name.startsWith('.')) {
          const root = scopeRoots.get(scope)!;
          const path = `${scope}/${relative(root, join(folder, name)).split(sep).join('/')}`;
          // one named memory file: its own check and the folder check, not a walk of the scope
          engine.markFileChanged(scope, path);
          const exists = isFile(join(folder, name));
          const prev = pending.get(path)?.event;
          pending.set(path, { scope, event: !exists ? 'removed' : prev === 'added' || !known.has(path) ? 'added' : 'changed' });
          if (exists) known.add(path);
          else known.delete(path);
        } else engine.markChanged([scope]);
        if (timer) clearTimeout(timer);
        timer = setTimeout(flush, Math.max(0, opts.debounceMs));
      },
      serverFile(name) {
        cookies.get(name)?.();
      },
      failed(reason) {
        opts.say({ event: 'watch-failed', reason }, `warning: watching stopped (${reason}); every request now checks the files in full`);
      },
    },
    opts.who.env.ECC_VAULT_WATCH_FAULT || undefined,
  );
  watcher.start();

  // the safety net for events inotify dropped: every scope checked in full once per interval
  const fullCheckEveryS = fullCheckIntervalFrom(opts.who.env.ECC_INDEX_FULL_CHECK_S);
  let periodicChecks = 0;
  const periodic =
    fullCheckEveryS > 0
      ? setInterval(() => {
          if (watcher.failure !== undefined) return; // every request checks in full already
          periodicChecks++;
          engine.markChanged();
          if (timer) clearTimeout(timer);
          flush();
        }, fullCheckEveryS * 1000)
      : undefined;
  periodic?.unref();

  const first = engine.refresh(scopes);
  for (const r of first.index) {
    opts.say({ event: 'ready', scope: r.scope, action: r.action }, `ready ${r.scope}: index ${r.action === 'fresh' ? 'up to date' : r.action}`);
  }

  /** The cookie round trip: after it, every change made before the request has been seen. */
  const syncPoint = async (): Promise<void> => {
    const blind = scopes.filter((s) => watcher.blind.has(s));
    engine.markChanged([...blind, ...watcher.missingChanged(), ...SCOPES.filter((s) => !scopes.includes(s))]);
    if (watcher.failure !== undefined || fullCheckEveryS === 0) {
      engine.markChanged();
      fullChecks++;
      return;
    }
    const name = `.cookie-${process.pid}-${++cookieCount}`;
    const path = join(serverDir, name);
    const seen = new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), COOKIE_TIMEOUT_MS);
      cookies.set(name, () => {
        clearTimeout(t);
        resolve(true);
      });
    });
    try {
      closeSync(openSync(path, 'wx', 0o600));
    } catch {
      cookies.delete(name);
      engine.markChanged();
      fullChecks++;
      return;
    }
    const ok = await seen;
    cookies.delete(name);
    try {
      unlinkSync(path);
    } catch {
      // gone already
    }
    if (!ok) {
      watcher.failure ??= `a cookie file was not reported within ${COOKIE_TIMEOUT_MS} ms`;
      opts.say({ event: 'watch-failed', reason: watcher.failure }, `warning: ${watcher.failure}; every request now checks the files in full`);
      engine.markChanged();
      fullChecks++;
    }
  };

  let stopping: Promise<void> | undefined;
  let socketTaken = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));

  const handle = async (req: ServerRequest, counted = true): Promise<ServerReply> => {
    if (req.v !== PROTOCOL_VERSION) return { v: PROTOCOL_VERSION, ok: false, refused: `protocol ${String(req.v)}` };
    if (req.vault !== vaultKey(roots)) return { v: PROTOCOL_VERSION, ok: false, refused: 'another vault' };
    if (counted) requests++;
    if (req.op === 'status') {
      const stats = engine.stats();
      return {
        v: PROTOCOL_VERSION,
        ok: true,
        result: {
          running: true,
          pid: process.pid,
          vault: roots.memoryRoot,
          socket: at.path,
          uptimeS: Math.round((Date.now() - started) / 100) / 10,
          readyMs,
          scopes,
          memories: stats.memories,
          watcher:
            watcher.failure === undefined
              ? {
                  mode: 'fs.watch',
                  folders: watcher.folders,
                  blind: scopes.filter((s) => watcher.blind.has(s)),
                  absent: scopes.filter((s) => watcher.absent.includes(s)),
                  fullCheckEveryS,
                  periodicChecks,
                }
              : { mode: 'full-checks', reason: watcher.failure },
          requests,
          warmUpMs,
          fullChecks,
          indexOpens: stats.indexOpens,
          memoryMB: Math.round(process.memoryUsage().rss / 1048576),
        },
      };
    }
    if (req.op === 'stop') {
      setImmediate(() => void stop());
      return { v: PROTOCOL_VERSION, ok: true, result: { stopped: process.pid } };
    }
    await syncPoint();
    try {
      if (req.op === 'search') {
        const result = await engine.search(String(req.query), req.options as SearchOptions);
        return req.render === undefined ? { v: PROTOCOL_VERSION, ok: true, result } : renderedSearch(String(req.query), result, req.render);
      }
      if (req.op === 'similar') return { v: PROTOCOL_VERSION, ok: true, result: await engine.similar(similarProbe(req.memory)) };
      if (req.op === 'recall') {
        const r = recallRequest(req);
        const search = (q: string, o: SearchOptions) => engine.search(q, { ...o, fullCheckIntervalS: r.fullCheckIntervalS });
        return { v: PROTOCOL_VERSION, ok: true, result: await recallText(roots, r.query, { harness: r.harness, exclude: r.exclude, search }) };
      }
      const scopes = req.scopes as Scope[];
      assertMemoryId(String(req.id));
      const { indexes, diagnostics, full } = engine.kept(scopes);
      const r = readFromIndexes(roots, String(req.id), scopes, {
        indexes,
        complete: diagnostics.complete,
        incompleteReasons: diagnostics.incompleteReasons,
        symlinks: diagnostics.skippedSymlinks,
        full,
      });
      return req.render === undefined ? { v: PROTOCOL_VERSION, ok: true, result: r } : renderedRead(r, req.render);
    } catch (err) {
      if (err instanceof VaultError) return { v: PROTOCOL_VERSION, ok: false, error: err.toJSON() as { code: string; message: string } };
      throw err;
    }
  };

  /**
   * Runs a few requests of its own right after the start (not counted in `requests`): a fresh
   * server's first searches and reads ran its ranking, file reading and rendering code cold, each
   * ~20-40 ms slower than later ones on the 2-core machine. Queries from the index itself: the
   * first memory's id and kind word, text and JSON, a read of that id, a search of its title (three
   * words or more take the feedback path), a word of a script written without spaces (the word
   * segmenter: ~10 ms to make), a prompt recall.
   */
  const warmUp = async (): Promise<void> => {
    const t0 = Date.now();
    try {
      const base = engine.kept(scopes).indexes.find((ix) => ix.base.count > 0)?.base;
      if (base) {
        const doc = base.doc(0);
        const ask = (r: Record<string, unknown>) => handle({ v: PROTOCOL_VERSION, vault: vaultKey(roots), ...r } as ServerRequest, false);
        for (const [query, json] of [
          [doc.kind, false],
          [`${doc.kind} ${doc.id}`, true],
          [doc.id, false],
        ] as const)
          await ask({ op: 'search', query, options: { scopes }, render: { json } });
        const read = await ask({ op: 'read', id: doc.id, scopes });
        const title = read.ok ? (read.result as { memory?: { title?: unknown } }).memory?.title : undefined;
        if (typeof title === 'string') await ask({ op: 'search', query: `${title} ${doc.kind} ${doc.id}`, options: { scopes }, render: { json: false } });
        await ask({ op: 'search', query: '記憶', options: { scopes }, render: { json: false } });
        await ask({ op: 'read', id: doc.id, scopes, render: { json: false } });
        await ask({ op: 'recall', query: `why ${doc.kind} ${doc.id}`, harness: 'claude', exclude: [], fullCheckIntervalS: fullCheckEveryS });
      }
    } catch {
      // a warm-up that fails changes nothing: the requests will say what is wrong
    }
    warmUpMs = Date.now() - t0;
  };
  let warmUpMs: number | null = null;
  let warmTimer: NodeJS.Timeout | undefined;
  const startWarmUp = () => {
    if (warmTimer === undefined) return;
    clearTimeout(warmTimer);
    warmTimer = undefined;
    if (!stopping) queue = queue.then(() => warmUp());
  };

  // one request at a time: the engine is not re-entrant, and the cookie order stays simple
  let queue: Promise<unknown> = Promise.resolve();
  const server: Server = createServer((socket: Socket) => {
    const chunks: Buffer[] = [];
    let size = 0;
    socket.on('error', () => socket.destroy());
    socket.on('data', (d: Buffer) => {
      const nl = d.indexOf(10);
      chunks.push(nl >= 0 ? d.subarray(0, nl) : d);
      size += d.length;
      if (size > MAX_LINE_BYTES) return socket.destroy();
      if (nl < 0) return;
      socket.removeAllListeners('data');
      let req: ServerRequest;
      try {
        req = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ServerRequest;
      } catch {
        socket.end(`${JSON.stringify({ v: PROTOCOL_VERSION, ok: false, refused: 'not JSON' })}\n`);
        return;
      }
      // a status asks for no index work: answered at once, also while the warm-up runs
      if (req.op === 'status') {
        void handle(req).then((reply) => {
          if (!socket.destroyed) socket.end(`${JSON.stringify(reply)}\n`);
          setImmediate(startWarmUp);
        });
        return;
      }
      queue = queue.then(async () => {
        let reply: ServerReply;
        try {
          reply = await handle(req);
        } catch (err) {
          reply = { v: PROTOCOL_VERSION, ok: false, refused: `internal error: ${(err as Error).message}` };
        }
        if (!socket.destroyed) socket.end(`${JSON.stringify(reply)}\n`);
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.path, () => resolve());
  });
  chmodSync(at.path, 0o600);
  // the socket file this server made: on stop it is removed only while the path still names it
  const ownSocket = lstatSync(at.path).ino;
  const readyMs = Date.now() - started;
  const watchedScopes = () => scopes.filter((s) => !watcher.blind.has(s) && !watcher.absent.includes(s));
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (timer) {
        clearTimeout(timer);
        flush();
      }
      if (periodic) clearInterval(periodic);
      if (warmTimer) clearTimeout(warmTimer);
      warmTimer = undefined;
      watcher.close();
      if (socketIsOurs(at.path, ownSocket)) {
        await new Promise<void>((r) => server.close(() => r()));
        try {
          unlinkSync(at.path);
        } catch {
          // removed already
        }
      } else {
        // another server took the path (one of another protocol version found this one foreign and
        // replaced its socket): closing would remove that server's socket (libuv unlinks a bound
        // socket's path on close), so the process ends by process.exit (see IndexServer.socketTaken)
        socketTaken = true;
      }
      resolveClosed();
    })();
    return stopping;
  };
  // after the first status answer (`vault watch --detach` waits for one) or half a second: a
  // warm-up in the way of that answer made --detach return ~1 s later at 100,000 memories
  warmTimer = setTimeout(startWarmUp, WARM_UP_DELAY_MS);
  opts.say(
    { event: 'watching', scopes: watchedScopes(), socket: at.path, readyMs },
    `watching ${watchedScopes().join(', ') || 'nothing (no scope folder exists; run vault init)'}`,
  );
  return {
    socketPath: at.path,
    closed,
    stop,
    get socketTaken() {
      return socketTaken;
    },
  };
}

/**
 * The fields of a `recall` request (prompt recall of `vault hook user-prompt-submit`), checked:
 * a string query and harness, the excluded ids as strings, a whole full-check interval ≥ 0.
 *
 * @throws VaultError `invalid-input` naming the request's shape
 */
function recallRequest(m: unknown): { query: string; harness: string; exclude: Set<string>; fullCheckIntervalS: number } {
  const o = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
  const { query, harness, exclude, fullCheckIntervalS: s } = o;
  if (
    typeof query !== 'string' ||
    typeof harness !== 'string' ||
    !Array.isArray(exclude) ||
    !exclude.every((id) => typeof id === 'string') ||
    typeof s !== 'number' ||
    !Number.isSafeInteger(s) ||
    s < 0
  )
    throw new VaultError('invalid-input', 'a recall request needs a string query and harness, excluded ids as strings and a whole fullCheckIntervalS ≥ 0', {
      field: 'recall',
    });
  return { query, harness, exclude: new Set(exclude as string[]), fullCheckIntervalS: s };
}

/** A request's `render`, checked: `json` a boolean, `color` a boolean or absent; else undefined. */
function renderOf(render: unknown): RenderRequest | undefined {
  const o = (typeof render === 'object' && render !== null ? render : {}) as Record<string, unknown>;
  if (typeof o.json !== 'boolean' || (o.color !== undefined && typeof o.color !== 'boolean')) return undefined;
  return { json: o.json, color: o.color === true };
}

/** The reply carrying the CLI's output (exit code 0) for a served answer. */
function renderedReply(output: RenderedOutput): ServerReply {
  return { v: PROTOCOL_VERSION, ok: true, result: output };
}

/**
 * `vault search`'s output for a served search, rendered from the answer as the client would see
 * it (after the JSON round trip); an empty text answer is refused (its hints look at the user
 * scope and the folders: the CLI prints them itself), as is a malformed `render`.
 */
function renderedSearch(query: string, result: SearchResponse, render: unknown): ServerReply {
  const r = renderOf(render);
  if (!r) return { v: PROTOCOL_VERSION, ok: false, refused: 'render: json must be a boolean, color a boolean' };
  const seen = JSON.parse(JSON.stringify(result)) as SearchResponse;
  if (r.json) return renderedReply({ stdout: jsonText(seen), stderr: '' });
  if (seen.total === 0) return { v: PROTOCOL_VERSION, ok: false, refused: 'an empty search is printed by the CLI' };
  return renderedReply({ stdout: searchText(query, seen, r.color ? pc.createColors(true) : undefined), stderr: searchWarnings(seen) });
}

/** `vault read`'s output for a served read, rendered from the answer as the client would see it (after the JSON round trip). */
function renderedRead(result: ReadResult, render: unknown): ServerReply {
  const r = renderOf(render);
  if (!r) return { v: PROTOCOL_VERSION, ok: false, refused: 'render: json must be a boolean' };
  const seen = JSON.parse(JSON.stringify(result)) as ReadResult;
  return renderedReply({ stdout: r.json ? jsonText(readJson(seen)) : readText(seen), stderr: '' });
}

/** The memory of a `similar` request, checked: strings, a known scope. @throws VaultError `invalid-input` */
function similarProbe(m: unknown): SimilarProbe {
  const o = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
  if (typeof o.title !== 'string' || typeof o.body !== 'string' || !SCOPES.includes(o.scope as Scope) || (o.id !== undefined && typeof o.id !== 'string'))
    throw new VaultError('invalid-input', 'a similar request needs a memory with a string title and body, a scope and an optional string id', {
      field: 'memory',
    });
  return { title: o.title, body: o.body, scope: o.scope as Scope, id: o.id as string | undefined };
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** The `.md` files under a scope folder (scope-relative, `/`-separated), skipping hidden names and links. */
function memoryFiles(root: string): string[] {
  const out: string[] = [];
  // the entries' types come with the listing: no stat per file (100,000 of them at 100k memories)
  const walk = (dir: string, rel: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of entries) {
      if (d.name.startsWith('.')) continue;
      const p = rel === '' ? d.name : `${rel}/${d.name}`;
      if (d.name.endsWith('.md')) out.push(p);
      if (mayBeFolder(d)) walk(join(dir, d.name), p);
    }
  };
  walk(root, '');
  return out;
}

/** True when `path` is still the socket file this server made (inode `ino`). */
function socketIsOurs(path: string, ino: number): boolean {
  try {
    const st = lstatSync(path);
    return st.isSocket() && st.ino === ino;
  } catch {
    return false;
  }
}

/** Removes a socket file no server answers on, if it is ours; anything else at that path is refused. */
function removeStaleSocket(path: string, uid: number): void {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (!st.isSocket() || st.uid !== uid) {
    throw new VaultError('io-error', `${path} exists and is not this user's server socket`, { hint: 'remove it if nothing uses it' });
  }
  unlinkSync(path);
}
