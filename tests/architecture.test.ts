/**
 * The architecture, enforced (docs/architecture.md draws it):
 * - layers: a module imports only from its own unit or from a lower layer, statically or
 *   dynamically (types included); units of one layer never import each other;
 * - ports: `process`, `child_process`, `randomBytes`, `Date.now()` and `new Date()` appear only
 *   in src/io/ and in the adapters; clock, ids, environment and process facts come through the
 *   runtime port (src/io/runtime.ts), git through src/io/git.ts;
 * - packages that belong to the adapters (yargs, chokidar, the MCP SDK, ...) stay in them;
 * - rooms: no folder of src/ holds more than 12 files directly, except the registries;
 * - one primitive per job: one atomic writer, one safe read, one frontmatter fast reader, and
 *   one definition of the id and wikilink patterns, the kinds, the scopes, the unsafe characters.
 * Imports are read with the TypeScript scanner (ts.preProcessFile), so comments and strings
 * never count and every form (`import`, `export … from`, `import()`, `typeof import()`,
 * `require()`) does.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/cli.js';

const SRC = join(REPO, 'src');

/**
 * The layers, bottom first. A unit is a folder of src/ or a file at its top (without `.ts`).
 * Units of one layer are siblings: neither imports the other.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['errors'],
  ['diagnostics', 'io'],
  ['unicode', 'secrets', 'schema'],
  ['document'],
  ['store'],
  ['scanner'],
  ['search'],
  ['templates'],
  ['doctor', 'sessions'],
  ['operations'],
  ['cli', 'mcp', 'hooks', 'server'],
  ['index'],
];

/** Inside a unit, its subfolders in their own order, bottom first (`.` = the unit's top files). */
const SUBLAYERS: Readonly<Record<string, readonly string[]>> = {
  search: ['analysis', 'index', 'query', 'resident', '.'],
  sessions: ['transcripts', 'proposals', 'snapshots', 'start', '.'],
};

/** The adapters: they alone see the process, and they never import each other... */
const ADAPTERS = ['cli', 'mcp', 'hooks', 'server'];
/** ...except that the CLI, the process's front door, starts another adapter through its entry module. */
const ADAPTER_ENTRIES: Readonly<Record<string, readonly string[]>> = {
  cli: ['hooks/hook-main.ts', 'mcp/server.ts', 'server/server-main.ts'],
};
/** Packages that belong to the adapters. */
const ADAPTER_PACKAGES = ['yargs', 'chokidar', '@modelcontextprotocol/sdk', 'cli-progress', 'picocolors', 'zod'];
/** Folders of src/ that are one-file-per-item registries and may hold more than 12 files. */
const REGISTRIES = ['doctor/rules', 'cli/commands'];
const MAX_FILES_PER_FOLDER = 12;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : /\.(ts|mts|js|mjs)$/.test(n) ? [p] : [];
  });
}

/** Every module specifier of a source text (comments and strings do not count). */
function specifiers(code: string): string[] {
  return ts.preProcessFile(code, true, true).importedFiles.map((f) => f.fileName);
}

/** `src/`-relative path with `/`, e.g. `search/query/search-memories.ts`. */
function srcPath(abs: string): string {
  return relative(SRC, abs).split(sep).join('/');
}

/** The unit of a `src/`-relative path: its first folder, or the file name at the top. */
function unitOf(path: string): string {
  const first = path.split('/')[0]!;
  return path.includes('/') ? first : first.replace(/\.(ts|js)$/, '');
}

function rankOf(unit: string): number {
  return LAYERS.findIndex((layer) => layer.includes(unit));
}

/** The sublayer rank of a path inside a unit that has sublayers, else undefined. */
function subRankOf(path: string): number | undefined {
  const parts = path.split('/');
  const order = SUBLAYERS[parts[0]!];
  if (!order) return undefined;
  const sub = parts.length > 2 ? parts[1]! : '.';
  return order.indexOf(sub);
}

/** Why importing `spec` from `file` (absolute) breaks the layers, or undefined. */
function layerViolation(file: string, spec: string): string | undefined {
  const from = srcPath(file);
  const fromUnit = unitOf(from);
  if (!spec.startsWith('.')) {
    const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
    if (ADAPTER_PACKAGES.includes(pkg) && !ADAPTERS.includes(fromUnit)) return `imports ${pkg}, which belongs to the adapters`;
    return undefined;
  }
  const target = srcPath(resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
  if (target.startsWith('..')) return `imports ${spec}, outside src/`;
  const toUnit = unitOf(target);
  if (toUnit === fromUnit) {
    const a = subRankOf(from);
    const b = subRankOf(target);
    if (a !== undefined && b !== undefined && b > a) return `imports the higher ${target} (${spec})`;
    return undefined;
  }
  const a = rankOf(fromUnit);
  const b = rankOf(toUnit);
  if (a === -1 || b === -1) return undefined; // reported once per unit by the test of the layer table
  if (ADAPTERS.includes(fromUnit) && ADAPTERS.includes(toUnit) && ADAPTER_ENTRIES[fromUnit]?.includes(target)) return undefined;
  if (b > a) return `imports the higher layer src/${toUnit} (${spec})`;
  if (b === a) return `imports its sibling src/${toUnit} (${spec})`;
  return undefined;
}

/** Names of the process world that core code must get through a port instead. */
function portViolations(code: string): string[] {
  const sf = ts.createSourceFile('x.ts', code, ts.ScriptTarget.ES2022, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const parent = node.parent;
      // `x.process`, `{ process: … }` name a property, not the global
      const isPropertyName = (ts.isPropertyAccessExpression(parent) && parent.name === node) || (ts.isPropertyAssignment(parent) && parent.name === node);
      if (!isPropertyName && (node.text === 'process' || node.text === 'randomBytes')) out.push(node.text);
    }
    if (ts.isStringLiteral(node) && /^(node:)?child_process$/.test(node.text)) out.push('child_process');
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Date' && node.name.text === 'now')
      out.push('Date.now()');
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Date' && (node.arguments?.length ?? 0) === 0)
      out.push('new Date()');
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return [...new Set(out)];
}

describe('architecture', () => {
  it('finds imports of every form and judges them (self-check)', () => {
    const code = `import a from 'yargs';\nimport type { B } from "../cli/main.js";\nexport * from '../mcp/x.js';\nconst c = await import('../hooks/y.js');\ntype T = typeof import('../operations/save.js');\n// import '../cli/comment.js'\nconst s = "import('../cli/string.js')";\nconst d = require('chokidar');`;
    expect(specifiers(code)).toEqual(['yargs', '../cli/main.js', '../mcp/x.js', '../hooks/y.js', '../operations/save.js', 'chokidar']);
    const fake = join(SRC, 'store/x.ts');
    expect(
      specifiers(code)
        .map((s) => layerViolation(fake, s))
        .filter(Boolean),
    ).toHaveLength(6);
    expect(layerViolation(fake, '../document/contract.js')).toBeUndefined();
    expect(layerViolation(join(SRC, 'search/query/x.ts'), '../analysis/tokenizer.js')).toBeUndefined();
    expect(layerViolation(join(SRC, 'search/query/x.ts'), '../../store/roots.js')).toBeUndefined();
    expect(layerViolation(join(SRC, 'search/analysis/x.ts'), '../query/search-memories.js')).toMatch(/higher/);
    expect(layerViolation(join(SRC, 'doctor/x.ts'), '../sessions/start/y.js')).toMatch(/sibling/);
    expect(layerViolation(join(SRC, 'cli/commands/mcp.ts'), '../../mcp/server.js')).toBeUndefined();
    expect(layerViolation(join(SRC, 'cli/commands/mcp.ts'), '../../mcp/identity.js')).toMatch(/sibling/);
    expect(layerViolation(join(SRC, 'mcp/x.ts'), '../cli/main.js')).toMatch(/sibling/);
    expect(layerViolation(fake, 'node:fs')).toBeUndefined();
    expect(
      portViolations(
        'const a = process.env.X; const b = randomBytes(2); import("node:child_process"); Date.now(); new Date(); new Date(0); o.process; ({ process: 1 });',
      ),
    ).toEqual(['process', 'randomBytes', 'child_process', 'Date.now()', 'new Date()']);
  });

  it('every folder and top file of src/ is in a layer, every subfolder of a layered unit in a sublayer', () => {
    const missing: string[] = [];
    for (const name of readdirSync(SRC)) {
      const unit = unitOf(statSync(join(SRC, name)).isDirectory() ? `${name}/x` : name);
      if (rankOf(unit) === -1) missing.push(`src/${name}`);
    }
    for (const [unit, order] of Object.entries(SUBLAYERS)) {
      for (const name of readdirSync(join(SRC, unit))) {
        if (statSync(join(SRC, unit, name)).isDirectory() && !order.includes(name)) missing.push(`src/${unit}/${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every file imports only from its own unit or a lower layer', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const file of sourceFiles(SRC)) {
      checked++;
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const v = layerViolation(file, spec);
        if (v) problems.push(`src/${srcPath(file)} ${v}`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  });

  it('only io/ and the adapters touch process, child_process, randomBytes and the clock', () => {
    const problems: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const unit = unitOf(srcPath(file));
      if (unit === 'io' || ADAPTERS.includes(unit)) continue;
      for (const name of portViolations(readFileSync(file, 'utf8'))) problems.push(`src/${srcPath(file)} uses ${name}`);
    }
    expect(problems).toEqual([]);
  });

  it(`no folder of src/ holds more than ${MAX_FILES_PER_FOLDER} files directly, except the registries`, () => {
    const crowded: string[] = [];
    const walk = (dir: string): void => {
      const names = readdirSync(dir);
      const files = names.filter((n) => statSync(join(dir, n)).isFile());
      const rel = srcPath(dir);
      if (files.length > MAX_FILES_PER_FOLDER && !REGISTRIES.includes(rel)) crowded.push(`src/${rel} (${files.length} files)`);
      for (const n of names) if (statSync(join(dir, n)).isDirectory()) walk(join(dir, n));
    };
    walk(SRC);
    expect(crowded).toEqual([]);
  });

  it('one primitive per job: one atomic writer, one safe read, one frontmatter fast reader, one definition of each pattern and list', () => {
    // the schema validator is generated from schemas/memory.schema.json, not a copy written by hand
    const where = (test: (code: string) => boolean) =>
      sourceFiles(SRC)
        .filter((f) => !f.endsWith('.generated.ts') && test(readFileSync(f, 'utf8')))
        .map(srcPath);
    expect(where((c) => /\bfsyncSync\(/.test(c))).toEqual(['store/atomic-write.ts']);
    expect(where((c) => /function readFileSafe\b/.test(c))).toEqual(['store/read-file-safe.ts']);
    expect(where((c) => /function isSpace\b|JSON\.parse\(line\.slice/.test(c))).toEqual(['document/frontmatter-reader.ts']);
    expect(where((c) => c.includes('mem_[a-z0-9][a-z0-9_-]{2,127}'))).toEqual(['document/contract.ts']);
    expect(where((c) => /\\{1,2}\[\\{1,2}\[/.test(c))).toEqual(['document/contract.ts']);
    expect(where((c) => /'context',\s*'decision',\s*'fact'/.test(c))).toEqual(['document/contract.ts']);
    expect(where((c) => /'project',\s*'team',\s*'user'/.test(c))).toEqual(['document/contract.ts']);
    expect(where((c) => /\\{1,2}u202a-\\{1,2}u202e/.test(c))).toEqual(['unicode/unsafe-characters.ts']);
  });

  it('docs/architecture.md names every folder of src/ and this test', () => {
    const doc = readFileSync(join(REPO, 'docs/architecture.md'), 'utf8');
    const folders: string[] = [];
    const walk = (dir: string): void => {
      for (const n of readdirSync(dir)) {
        if (!statSync(join(dir, n)).isDirectory()) continue;
        folders.push(srcPath(join(dir, n)));
        walk(join(dir, n));
      }
    };
    walk(SRC);
    expect(folders.length).toBeGreaterThan(15);
    expect(folders.filter((f) => !doc.includes(`${f.split('/').pop()}/`) && !doc.includes(f))).toEqual([]);
    expect(doc).toContain('tests/architecture.test.ts');
  });
});
