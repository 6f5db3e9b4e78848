#!/usr/bin/env node
// Transpiles src/**/*.ts to dist/ (ESM, one file per module) with esbuild. Type checking is
// `npm run typecheck` (tsc --noEmit); keeping them apart makes the build take well under a second.
import { build } from 'esbuild';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire, isBuiltin } from 'node:module';

// For a start-up bundle: Node.js builtins come from process.getBuiltinModule (Node.js >= 20.16)
// instead of an ESM import, which builds the builtin's ESM facade by reading every export
// (`import ... from 'node:fs'` loads the fs streams, ~3 ms). node:crypto (~6 ms) is loaded only
// when one of its functions is first called. Each export becomes a plain binding, so nothing is
// copied at start-up; a non-function export defined by a getter (fs.promises) is left out, and
// importing one fails the build rather than loading it eagerly. A class of a lazy module becomes a
// function that constructs the real class on first use.
// node:net and node:tty (which loads node:net) cost ~2-5 ms each: only a served answer needs the
// one, only a terminal the other; node:worker_threads (~4 ms) only a full build of 4,000+ files.
const LAZY = new Set(['node:crypto', 'node:net', 'node:tty', 'node:worker_threads']);
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^[a-z:_/]+$/ }, (a) =>
      isBuiltin(a.path) ? { path: a.path.startsWith('node:') ? a.path : `node:${a.path}`, namespace: 'lazy-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (a) => {
      const mod = createRequire(import.meta.url)(a.path);
      const lazy = LAZY.has(a.path);
      const lines = [`const load = () => process.getBuiltinModule(${JSON.stringify(a.path)});`];
      if (!lazy) lines.push('const m = load();', 'export default m;');
      for (const n of Object.keys(mod)) {
        const d = Object.getOwnPropertyDescriptor(mod, n);
        if (!/^[A-Za-z_$][\w$]*$/.test(n) || n === 'default' || !d) continue;
        // A getter (fs.opendirSync until first use, fs.promises) is not read at start-up: a
        // function becomes a wrapper that reads it on first call; anything else is left out.
        if (!lazy && !d.get) lines.push(`export const ${n} = m.${n};`);
        else if (typeof mod[n] === 'function' && /^[a-z]/.test(n)) lines.push(`export function ${n}(...args) { return load().${n}(...args); }`);
        // a class of a lazy module: `new C(...)` builds the real class's object (instanceof C does not hold)
        else if (lazy && typeof mod[n] === 'function' && /^[A-Z]/.test(n)) lines.push(`export function ${n}(...args) { return new (load().${n})(...args); }`);
      }
      return { loader: 'js', contents: lines.join('\n') };
    });
  },
};

function list(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? list(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

// Build into a fresh folder, then swap it in with two renames, so a process running from dist/
// (a test, a hook) never sees a half-built tree.
const tmp = `dist.tmp-${process.pid}`;
rmSync(tmp, { recursive: true, force: true });
await build({
  entryPoints: list('src'),
  outdir: tmp,
  outbase: 'src',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
// `vault hook ...` runs inside an agent's turn: one bundled file for it (no module graph to
// resolve at start-up; measured ~20 ms faster than loading the modules one by one).
/** One self-contained file for a hot entry point: packages stay external, builtins load on first use. */
// A CommonJS bundle has no import.meta: `import.meta.url` (createRequire of a package loaded on
// first use, such as gray-matter for the search's reads) becomes the bundle file's own URL.
const cjsImportMeta = {
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
};
const bundle = (entry, outfile, format = 'esm', extra = {}) =>
  build({
    entryPoints: [entry],
    outfile: `${tmp}/${outfile}`,
    bundle: true,
    packages: 'external',
    plugins: [lazyBuiltins],
    ...(format === 'cjs' ? cjsImportMeta : {}),
    ...extra,
    format,
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
// CommonJS, loaded with require() by the CommonJS bin shim: a hook never starts the ES module
// loader (measured ~12 ms of a ~50 ms hook). The hook code imports no package, only builtins.
await bundle('src/hooks/hook-main.ts', 'hooks/hook-bundle.cjs', 'cjs');
// `vault search` and `vault read` start from a lean entry without yargs (src/cli/lean-main.ts),
// bundled into one file like the hook bundle. Lazy `import()`s of our own modules become lazily
// initialised parts of the same file: measured against code splitting (one chunk per lazy
// import), one file starts `vault read` ~10 ms and `vault search` ~10 ms faster, because the
// chunks were loaded one after another. Packages stay external and load only when used.
// CommonJS too, run through vm.Script with a V8 code cache by the loader (src/cli/lean-loader.ts,
// its own small bundle), which the bin shim requires. Its `import()`s of packages become
// require(): on Node.js 20 a script compiled from cached data has no dynamic-import callback
// (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), and the loader runs it only where require() loads
// ES modules.
await bundle('src/cli/lean-main.ts', 'cli/lean-bundle.cjs', 'cjs', { supported: { 'dynamic-import': false } });
await bundle('src/cli/lean-loader.ts', 'cli/lean-loader.cjs', 'cjs');
// The served fast path of `vault search` and `vault read` (src/cli/served-main.ts): tried by the
// bin shim before the lean bundle, so an answer from the index server never loads the ~400 KB
// lean bundle; small enough to compile without a code cache. It leaves out the modules that only
// word an error message and load the secret-shape scanner to redact it (document/echo-input.ts,
// document/validate.ts, reached through store/roots.ts and store/ids.ts): compiling them cost
// ~9 ms, and the served path words no error: any throw makes it answer undefined, and the lean
// path runs and words the error itself. Their functions become ones that throw.
const ERROR_WORDING = { 'echo-input.js': ['quoteInput', 'boundInput'], 'validate.js': ['quoteValue'] };
const noErrorWording = {
  name: 'no-error-wording',
  setup(b) {
    b.onResolve({ filter: /\/(?:echo-input|validate)\.js$/ }, (a) =>
      a.importer.includes('/src/document/') || a.importer.includes('/src/store/')
        ? { path: a.path.split('/').pop(), namespace: 'no-error-wording' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'no-error-wording' }, (a) => ({
      loader: 'js',
      contents: ERROR_WORDING[a.path].map((n) => `export function ${n}() { throw new Error('served path: the lean CLI words this error'); }`).join('\n'),
    }));
  },
};
// No import.meta banner: nothing in it asks for its own URL (the banner's pathToFileURL cost ~1 ms).
await bundle('src/cli/served-main.ts', 'cli/served-bundle.cjs', 'cjs', { plugins: [noErrorWording, lazyBuiltins], banner: {} });
// `vault watch --detach|--status|--stop` (bin/vault.js) and the detached index server's process
// (src/cli/watch-server.ts, spawned by --detach): one file instead of a graph of ES modules, whose
// resolution and loading cost the server's start ~60 ms and the --detach command ~80 ms more
// (measured on the 2-core machine). Its dynamic import()s of packages stay import()s.
await bundle('src/cli/watch-server.ts', 'cli/watch-bundle.cjs', 'cjs');
const old = `dist.old-${process.pid}`;
for (let attempt = 0; ; attempt++) {
  try {
    if (existsSync('dist')) renameSync('dist', old);
    renameSync(tmp, 'dist');
    break;
  } catch (err) {
    // another build swapped at the same moment: try again, then give up loudly
    if (attempt >= 20) throw err;
    await new Promise((r) => setTimeout(r, 50));
  }
}
rmSync(old, { recursive: true, force: true });
