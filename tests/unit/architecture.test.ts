/**
 * Arrows point down only: the core never imports an adapter (cli, mcp, hooks) nor the libraries
 * that belong to adapters (yargs, chokidar). Static and dynamic imports both count.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers.js';

const CORE = ['document', 'schema', 'secrets', 'store', 'scanner', 'vault', 'search', 'doctor', 'sessions', 'templates', 'io'];
const ADAPTERS = ['cli', 'mcp', 'hooks'];
const FORBIDDEN_PACKAGES = ['yargs', 'chokidar'];

function sourceFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : /\.(ts|mts|js|mjs)$/.test(n) ? [p] : [];
  });
}

/** Every module specifier in a file: `import … from 'x'`, `export … from 'x'`, `import('x')`, `require('x')`. */
function specifiers(code: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"])([^'"\n]+)\1/g;
  for (const m of code.matchAll(re)) out.push(m[2]!);
  return out;
}

function violation(file: string, spec: string): string | undefined {
  const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
  if (FORBIDDEN_PACKAGES.includes(pkg)) return `imports ${pkg}`;
  if (!spec.startsWith('.')) return undefined;
  const target = relative(join(REPO, 'src'), resolve(dirname(file), spec));
  const top = target.split(sep)[0]!;
  return ADAPTERS.includes(top) ? `imports the adapter src/${top} (${spec})` : undefined;
}

describe('architecture', () => {
  it('finds imports of every form (self-check of the scanner)', () => {
    const code = `import a from 'yargs';\nimport { b } from "../cli/main.js";\nexport * from '../mcp/x.js';\nconst c = await import('../hooks/y.js');\nimport 'chokidar';\nconst d = require('yargs/helpers');`;
    expect(specifiers(code)).toEqual(['yargs', '../cli/main.js', '../mcp/x.js', '../hooks/y.js', 'chokidar', 'yargs/helpers']);
    const fake = join(REPO, 'src/vault/x.ts');
    expect(
      specifiers(code)
        .map((s) => violation(fake, s))
        .filter(Boolean),
    ).toHaveLength(6);
    expect(violation(fake, '../store/roots.js')).toBeUndefined();
    expect(violation(fake, 'node:fs')).toBeUndefined();
  });

  it('no core module imports src/cli, src/mcp, src/hooks, yargs or chokidar', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const area of CORE) {
      for (const file of sourceFiles(join(REPO, 'src', area))) {
        checked++;
        for (const spec of specifiers(readFileSync(file, 'utf8'))) {
          const v = violation(file, spec);
          if (v) problems.push(`${relative(REPO, file)} ${v}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(15);
    expect(problems).toEqual([]);
  });
});
