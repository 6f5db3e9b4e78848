#!/usr/bin/env node
// Transpiles src/**/*.ts to dist/ (ESM, one file per module) with esbuild. Type checking is
// `npm run typecheck` (tsc --noEmit); keeping them apart makes the build take well under a second.
import { build } from 'esbuild';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

function list(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? list(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: list('src'),
  outdir: 'dist',
  outbase: 'src',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
