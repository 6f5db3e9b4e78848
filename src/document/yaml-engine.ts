/**
 * The only frontmatter engine gray-matter may use: YAML 1.2 (core schema) through the `yaml`
 * package, locked down so that no code can run and no input can blow up.
 *
 * - JavaScript, CoffeeScript and every other gray-matter engine are replaced by one that refuses.
 * - Anchors, aliases and explicit tags (`!!js/function`, `!!binary`, ...) are refused.
 * - Timestamps stay strings (the core schema has no timestamp type).
 * - Duplicate keys are refused with their line.
 *
 * Canonical frontmatter (`key: <JSON>` lines) takes a fast path through JSON.parse; JSON is a
 * subset of YAML 1.2, so the values are the same either way.
 */
import { createRequire } from 'node:module';
import { VaultError } from '../errors.js';
import { boundInput, quoteInput } from './echo-input.js';

type YamlModule = typeof import('yaml');
let yamlModule: YamlModule | undefined;
/** The `yaml` package, loaded on first use: canonical documents never need it (start-up cost). */
function yaml(): YamlModule {
  return (yamlModule ??= createRequire(import.meta.url)('yaml') as YamlModule);
}

const CANONICAL_LINE = /^([a-z_]{1,32}): (.+)$/;

/** Thrown inside gray-matter; carries a VaultError out through its stack unchanged. */
function refuseEngine(): never {
  throw new VaultError('frontmatter-language', 'frontmatter must be YAML; other engines (js, javascript, coffee, ...) are refused', {
    rule: 'yaml only',
    hint: 'start the file with a line that is exactly ---',
  });
}

/**
 * Reads a frontmatter block written as canonical `key: <JSON>` lines (any order, any JSON
 * spacing) with JSON.parse; JSON is a subset of YAML 1.2, so the values equal the YAML reading.
 *
 * @param block frontmatter text without the `---` lines, LF line endings
 * @returns the key → value mapping, or undefined when some line is not `key: <JSON scalar or list>`
 * @throws VaultError `duplicate-field` (with field and 1-based document line)
 */
export function parseCanonicalBlock(block: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = Object.create(null);
  // line by line without splitting first: most blocks that are not canonical fail on line 1
  for (let i = 0, at = 0; at <= block.length; i++) {
    const nl = block.indexOf('\n', at);
    const end = nl === -1 ? block.length : nl;
    const m = CANONICAL_LINE.exec(block.slice(at, end));
    at = end + 1;
    if (!m) return undefined;
    const key = m[1]!;
    let value: unknown;
    try {
      value = JSON.parse(m[2]!);
    } catch {
      return undefined;
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return undefined;
    if (Object.hasOwn(out, key)) {
      throw new VaultError('duplicate-field', `duplicate frontmatter field ${quoteInput(key, 64)}`, {
        field: boundInput(key, 64),
        rule: 'unique keys',
        line: i + 2,
        hint: 'keep one line per field',
      });
    }
    out[key] = value;
  }
  return { ...out };
}

/**
 * Limits on frontmatter that goes through gray-matter and the YAML parser. A valid ecc.memory.v1
 * frontmatter is at most about 15 KiB, about 150 lines and 1,150 YAML tokens in block style (with a
 * comment on every line), and one level of lists; the limits are far above that and far below what
 * makes the parsers slow (gray-matter's comment regex is quadratic in blank lines, YAML's
 * unique-key check in keys, its composer recursive in nesting, and every YAML error costs an
 * Error object: 32 KiB of `]}` is 32,000 errors and took 4 s). Ours, not the format's: canonical
 * `key: <JSON>` lines never reach them.
 */
export const YAML_LIMITS = {
  /** UTF-8 bytes of the frontmatter block */
  maxBytes: 32 * 1024,
  /** lines of the frontmatter block */
  maxLines: 1000,
  /** `[` / `{` nesting outside quoted scalars */
  maxDepth: 8,
  /** commas outside quoted scalars (flow collection items) */
  maxCommas: 2000,
  /** tokens of the YAML lexer (scalars, indicators, spaces, newlines, comments): bounds all later work */
  maxTokens: 4000,
  /** block indicators (`-`, `?`, `:`) on one line outside flow collections: bounds compact nesting (`- - - a`) */
  maxIndicatorsPerLine: 8,
  /**
   * characters gray-matter's comment regex (`/^\s*#[^\n]+/gm`) scans: the whitespace run from each
   * line start, summed (1,000 lines of 31 spaces are 15 million characters, 100 ms)
   */
  maxWhitespaceScan: 64 * 1024,
} as const;

/**
 * Refuses a frontmatter block that would make gray-matter or the YAML parser slow or recurse
 * deeply, before either sees it.
 *
 * @param block frontmatter text without the `---` lines, LF line endings
 * @throws VaultError `invalid-frontmatter` (rule "yaml limits") naming the limit exceeded
 */
export function assertYamlLimits(block: string): void {
  const refuse = (what: string, line?: number): never => {
    throw new VaultError('invalid-frontmatter', `frontmatter is too complex to read safely: ${what}`, {
      rule: 'yaml limits',
      ...(line !== undefined ? { line } : {}),
      hint: 'write the frontmatter as the thirteen canonical key: <JSON> lines (vault fmt does this for a valid file)',
    });
  };
  const bytes = Buffer.byteLength(block, 'utf8');
  if (bytes > YAML_LIMITS.maxBytes) refuse(`${bytes} bytes (at most ${YAML_LIMITS.maxBytes} outside the canonical form)`);
  let line = 2;
  let lines = 1;
  let depth = 0;
  let commas = 0;
  let quote = '';
  let prev = '\n'; // last non-space character outside a quoted scalar on this line
  for (let i = 0; i < block.length; i++) {
    const c = block[i]!;
    if (c === '\n') {
      line++;
      if (++lines > YAML_LIMITS.maxLines) refuse(`more than ${YAML_LIMITS.maxLines} lines`, line);
      if (!quote) prev = '\n';
      continue;
    }
    if (quote === '"') {
      if (c === '\\') i++;
      else if (c === '"') quote = '';
      continue;
    }
    if (quote === "'") {
      if (c === "'" && block[i + 1] === "'") i++;
      else if (c === "'") quote = '';
      continue;
    }
    if (c === ' ' || c === '\t') continue;
    if (c === '#' && (prev === '\n' || /[ \t]/.test(block[i - 1] ?? ' '))) {
      const end = block.indexOf('\n', i);
      i = (end === -1 ? block.length : end) - 1;
      continue;
    }
    // A quote opens a quoted scalar only where a scalar starts.
    if ((c === '"' || c === "'") && '\n:-[{,?'.includes(prev)) {
      quote = c;
      prev = c;
      continue;
    }
    if (c === '[' || c === '{') {
      if (++depth > YAML_LIMITS.maxDepth) refuse(`lists or maps nested more than ${YAML_LIMITS.maxDepth} deep`, line);
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
    else if (c === ',' && ++commas > YAML_LIMITS.maxCommas) refuse(`more than ${YAML_LIMITS.maxCommas} list items`, line);
    prev = c;
  }
  if (whitespaceScan(block) > YAML_LIMITS.maxWhitespaceScan) refuse('too many lines of only spaces');
  assertTokenLimits(block, refuse);
}

/** What `/^\s*#/gm` scans in `block`: the length of the whitespace run from each line start, summed. */
function whitespaceScan(block: string): number {
  let total = 0;
  let run = 0; // length of the whitespace run starting at the current position
  for (let i = block.length - 1; i >= -1; i--) {
    if (i === -1 || block.charCodeAt(i) === 10) total += run; // the position after a newline is a line start
    if (i >= 0) run = isRegExpSpace(block.charCodeAt(i)) ? run + 1 : 0;
  }
  return total;
}

/** What `\s` matches in a JavaScript regex, for one UTF-16 code unit. */
function isRegExpSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/**
 * Runs the YAML lexer (linear, and stopped at the limit) so that the parser and composer after it
 * see a bounded number of tokens, errors and nesting levels, whatever the shape of the block.
 * Anchors, aliases and tags are refused here, at their first token: they are never valid in a
 * memory, and thousands of them make the composer slow (each one is an error, or a key compared
 * with every other key of its map).
 */
function assertTokenLimits(block: string, refuse: (what: string, line?: number) => never): void {
  const { Lexer } = yaml();
  let tokens = 0;
  let line = 2;
  let onLine = 0;
  let flow = 0;
  let scalarNext = false;
  for (const token of new Lexer().lex(block)) {
    if (++tokens > YAML_LIMITS.maxTokens) refuse(`more than ${YAML_LIMITS.maxTokens} YAML tokens`, line);
    if (token === '\n' || token === '\r\n') {
      line++;
      onLine = 0;
      continue;
    }
    const c = token[0];
    // after the scalar marker comes a scalar's source: its first character is text, not an indicator
    if (scalarNext) scalarNext = false;
    else if (token === SCALAR_MARKER) scalarNext = true;
    else if (token === '[' || token === '{') flow++;
    else if ((token === ']' || token === '}') && flow > 0) flow--;
    else if (c === '&' || c === '*') refuseAlias(line);
    else if (c === '!') refuseTag(line);
    else if (flow === 0 && (token === '-' || token === '?' || token === ':') && ++onLine > YAML_LIMITS.maxIndicatorsPerLine) {
      refuse(`more than ${YAML_LIMITS.maxIndicatorsPerLine} nested block indicators (- ? :) on one line`, line);
    }
    for (let i = token.indexOf('\n'); i !== -1; i = token.indexOf('\n', i + 1)) line++; // multi-line scalars
  }
}

/** The lexer's marker before the source of a plain or block scalar (`CST.SCALAR` of the yaml package). */
const SCALAR_MARKER = '\x1f';

function refuseAlias(line: number): never {
  throw new VaultError('yaml-alias', `frontmatter uses a YAML anchor or alias (line ${line})`, {
    rule: 'no anchors or aliases',
    line,
    hint: 'write each value out in full',
  });
}

function refuseTag(line: number): never {
  throw new VaultError('yaml-tag', `frontmatter uses an explicit YAML tag (line ${line})`, {
    rule: 'no explicit tags',
    line,
    hint: 'remove the !tag; values are plain strings and lists',
  });
}

/** Options of every YAML parse of frontmatter. No pretty errors: they copy source lines per error. */
const YAML_PARSE_OPTIONS = {
  version: '1.2',
  schema: 'core',
  uniqueKeys: true,
  merge: false,
  strict: true,
  prettyErrors: false,
  keepSourceTokens: false,
} as const;

/**
 * The YAML parser's error code (`TAB_AS_INDENT`, `DUPLICATE_KEY`, `MISSING_CHAR`, ...) behind an
 * `invalid-frontmatter` or `duplicate-field` error of {@link parseFrontmatterBlock}, so that an
 * error can be explained without parsing the text a second time.
 *
 * @param err an error thrown by the parser
 * @returns the code, or undefined when the error did not come from the YAML parser
 */
export function yamlErrorCode(err: { cause?: unknown }): string | undefined {
  const cause = err.cause as { name?: unknown; code?: unknown } | undefined;
  return cause !== null && typeof cause === 'object' && cause.name === 'YAMLParseError' && typeof cause.code === 'string' ? cause.code : undefined;
}

/**
 * Parses a frontmatter block (the text between the `---` lines).
 *
 * @param block frontmatter text, LF line endings
 * @returns the parsed value (any YAML value; the caller checks it is a mapping)
 * @throws VaultError `invalid-frontmatter` (with `line`, 1-based in the whole document),
 *   `duplicate-field`, `yaml-alias`, `yaml-tag`
 */
export function parseFrontmatterBlock(block: string): unknown {
  // gray-matter hands over everything after the opening `---`, i.e. starting with that line's
  // newline; drop it so that line 1 of `block` is line 2 of the document.
  if (block.startsWith('\n')) block = block.slice(1);
  const fast = parseCanonicalBlock(block);
  if (fast) return fast;
  assertYamlLimits(block);
  const YAML = yaml();
  const doc = withoutStackTraces(() => YAML.parseDocument(block, YAML_PARSE_OPTIONS));
  const first = doc.errors[0];
  if (first) {
    const line = lineOf(block, first.pos[0]);
    const reason = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    if (first.code === 'DUPLICATE_KEY') {
      const key = keyOnLine(block, line);
      throw new VaultError('duplicate-field', `duplicate frontmatter field${key ? ` ${quoteInput(key, 64)}` : ''} (line ${line})`, {
        ...(key ? { field: boundInput(key, 64) } : {}),
        rule: 'unique keys',
        line,
        hint: 'keep one line per field',
        cause: first,
      });
    }
    const hint =
      first.code === 'TAB_AS_INDENT'
        ? 'indent with spaces, not tabs'
        : first.code === 'MULTIPLE_DOCS'
          ? 'a memory has exactly one frontmatter block; remove the second ---'
          : 'write each field as key: value; quote values that contain ": " or start with a special character';
    throw new VaultError('invalid-frontmatter', `frontmatter is not valid YAML at line ${line}: ${reason}`, { rule: 'yaml syntax', line, hint, cause: first });
  }
  YAML.visit(doc, {
    Pair(_key, pair) {
      const k = pair.key;
      if (!YAML.isScalar(k) || typeof k.value !== 'string' || k.value === '') {
        const line = lineOf(block, (YAML.isNode(k) ? k.range?.[0] : undefined) ?? (YAML.isNode(pair.value) ? pair.value.range?.[0] : undefined) ?? 0);
        throw new VaultError('invalid-frontmatter', `frontmatter key on line ${line} is not a field name`, {
          rule: 'keys are field names',
          line,
          hint: 'write each field as name: value, e.g. title: "text"',
        });
      }
    },
    Node(_key, node) {
      // the line only when refusing: counting it for every node is quadratic in the block
      const line = () => lineOf(block, node.range?.[0] ?? 0);
      if (YAML.isAlias(node) || (node as { anchor?: string }).anchor) refuseAlias(line());
      if ((node as { tag?: string }).tag) refuseTag(line());
    },
  });
  return doc.toJS({ maxAliasCount: 0 });
}

/**
 * Runs `f` with V8's stack trace capture off. The YAML parser makes an Error object per problem it
 * finds and we read only the first one's code and offset; capturing thousands of stack traces was
 * five sixths of the time spent on a block of 4,000 stray `]`.
 */
function withoutStackTraces<T>(f: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return f();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The field name written at the start of a 1-based document line, if any. */
function keyOnLine(block: string, docLine: number): string | undefined {
  const text = block.split('\n')[docLine - 2];
  const m = text === undefined ? null : /^["']?([A-Za-z_][A-Za-z0-9_]{0,63})["']?\s*:/.exec(text);
  return m?.[1];
}

function lineOf(block: string, offset: number): number {
  let line = 2; // line 1 of the document is the opening ---
  for (let i = 0; i < offset && i < block.length; i++) if (block.charCodeAt(i) === 10) line++;
  return line;
}

/** gray-matter options: YAML through {@link parseFrontmatterBlock}; every other engine refused. */
export const GRAY_MATTER_OPTIONS = {
  language: 'yaml',
  excerpt: false,
  engines: {
    yaml: { parse: parseFrontmatterBlock, stringify: refuseEngine },
    yml: { parse: parseFrontmatterBlock, stringify: refuseEngine },
    json: { parse: refuseEngine, stringify: refuseEngine },
    javascript: { parse: refuseEngine, stringify: refuseEngine },
    js: { parse: refuseEngine, stringify: refuseEngine },
    coffee: { parse: refuseEngine, stringify: refuseEngine },
    coffeescript: { parse: refuseEngine, stringify: refuseEngine },
    cson: { parse: refuseEngine, stringify: refuseEngine },
    toml: { parse: refuseEngine, stringify: refuseEngine },
  },
};
