// Hostile memory documents for the parse-time test (tests/cli/hostile-parse-time.test.ts) and the
// benchmark (scripts/bench/25-hostile-parse.mjs): frontmatter shapes that make YAML parsers, their
// error reporting or regexes slow, each at most 128 KiB (the ecc.memory.v1 document limit).
//
// Every class comes in several variants: the whole 128 KiB (what the parser refuses by size
// before parsing), and just under the parser's own limits (32 KiB, 1,000 lines, 2,000 commas,
// 4,000 YAML tokens, see src/document/yaml-engine.ts), which is the worst text that still reaches
// the YAML parser. Plain data, no dependencies: the test and the bench import it as it is.

/** The ecc.memory.v1 document limit (bytes). */
export const DOCUMENT_MAX_BYTES = 128 * 1024;

const BODY = '\n\nA body.\n';

/** A document whose frontmatter block is `block`. */
function doc(block) {
  return `---\n${block}\n---${BODY}`;
}

/** `unit` repeated to fill `budget` bytes of block (ASCII units only). */
function fill(unit, budget) {
  return unit.repeat(Math.max(1, Math.floor(budget / unit.length)));
}

/** `unit` repeated to fill a whole 128 KiB document after `prefix` and before `suffix`. */
function full(prefix, unit, suffix = '') {
  const budget = DOCUMENT_MAX_BYTES - doc('').length - prefix.length - suffix.length - 8;
  return doc(prefix + fill(unit, budget) + suffix);
}

/** `unit` repeated `n` times between `prefix` and `suffix`. */
function times(prefix, unit, n, suffix = '') {
  return doc(prefix + unit.repeat(n) + suffix);
}

/** Billion laughs: `levels` levels of anchors, each a list of `width` aliases of the level below. */
function laughs(levels, width, flow) {
  const lines = [`l0: &l0 ${flow ? '[' : ''}"lol"${flow ? ']' : ''}`];
  for (let i = 1; i <= levels; i++) {
    const items = Array.from({ length: width }, () => `*l${i - 1}`);
    lines.push(flow ? `l${i}: &l${i} [${items.join(', ')}]` : `l${i}: &l${i}\n${items.map((a) => `  - ${a}`).join('\n')}`);
  }
  return doc(lines.join('\n'));
}

/** A block map nested `depth` deep by indentation, one key per line. */
function staircase(depth, step) {
  const lines = [];
  for (let i = 0; i < depth; i++) lines.push(`${' '.repeat(i * step)}k${i}:`);
  lines.push(`${' '.repeat(depth * step)}leaf`);
  return doc(lines.join('\n'));
}

/** `n` distinct keys `k0: 1` ... one per line (or in one flow map). */
function manyKeys(n, flow) {
  const keys = Array.from({ length: n }, (_, i) => `k${i}: 1`);
  return doc(flow ? `x: {${keys.join(', ')}}` : keys.join('\n'));
}

/** `i` written in the letters a-z (distinct names for canonical `[a-z_]` keys). */
function letters(i) {
  let out = '';
  do {
    out = String.fromCharCode(97 + (i % 26)) + out;
    i = Math.floor(i / 26);
  } while (i > 0);
  return out;
}

/** Fits a generator `make(n)` to the largest n ≤ `hi` whose document is at most 128 KiB. */
function largest(make, hi = DOCUMENT_MAX_BYTES) {
  let lo = 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (Buffer.byteLength(make(mid)) <= DOCUMENT_MAX_BYTES) lo = mid;
    else hi = mid - 1;
  }
  return make(lo);
}

/**
 * Every hostile document, each `{ cls, name, text }`; `cls` is one of flow, quoted, tags, aliases,
 * nesting, long-keys, many-keys, lines. Deterministic; every text is at most 128 KiB.
 */
export function hostileDocuments() {
  const shapes = [
    // flow collections
    ['flow', 'open [ to 128 KiB', full('tags: ', '[')],
    ['flow', 'open { a: to 128 KiB', full('tags: ', '{a: ')],
    ['flow', 'nested [] closed (JSON, canonical line)', largest((n) => doc(`tags: ${'['.repeat(n)}${']'.repeat(n)}`))],
    ['flow', 'nested {"a": } closed (JSON)', largest((n) => doc(`tags: ${'{"a":'.repeat(n)}1${'}'.repeat(n)}`))],
    ['flow', 'stray ]} to 128 KiB', full('', ']}')],
    ['flow', 'stray ] under the token limit', times('', ']', 3990)],
    ['flow', 'stray ]} under the token limit', times('x: [', ']}', 1990)],
    ['flow', '[] pairs under the token limit', times('- ', '[]', 1990)],
    ['flow', 'empty items [,,, under the comma limit', times('tags: [', ',', 1990, ']')],
    ['flow', 'many items to 128 KiB', full('tags: [', 'a,', 'a]')],
    ['flow', 'flow seq of maps to 128 KiB', full('x: [', '{a: 1}, ', ']')],
    // quoted scalars
    ['quoted', '\\u escapes to 128 KiB (JSON line)', full('title: "', '\\u0041', '"')],
    ['quoted', '\\" escapes to 128 KiB', full('x: "', '\\"', '"')],
    ['quoted', "'' escapes to 128 KiB", full("x: '", "''", "'")],
    ['quoted', 'escaped newlines to 128 KiB', full('x: "', 'a\\\n', '"')],
    ['quoted', 'bad escapes under the byte limit', times('x: "', '\\q', 16000, '"')],
    ['quoted', 'unterminated quotes, one per line', times('', '"a\n', 990)],
    ['quoted', "quote pairs ' ' under the token limit", times('', "' ", 3990)],
    ['quoted', 'quote pairs " " in a list under the token limit', times('- ', '" ', 3990)],
    ['quoted', 'many quoted items under the comma limit', times('tags: [', '"a", ', 1990, '"a"]')],
    // tags
    ['tags', '!!binary to 128 KiB', full('', 'a: !!binary x\n')],
    ['tags', '!!binary under the limits', times('', 'a: !!binary QUJD\n', 990)],
    ['tags', 'custom tags to 128 KiB', full('', 'x: !foo [!bar a, !baz b]\n')],
    ['tags', 'custom tags in one flow list', times('tags: [', '!t a, ', 1990, 'a]')],
    ['tags', 'verbatim tags', times('', 'x: !<tag:yaml.org,2002:str> a\n', 990)],
    ['tags', '%TAG directives', times('', '%TAG !e! tag:example.com,2000:\n', 990, '---\nx: !e!a b')],
    ['tags', 'stacked tags on one node', times('x: ', '!a ', 3990, 'b')],
    // anchors and aliases
    ['aliases', 'billion laughs (block)', laughs(9, 9, false)],
    ['aliases', 'billion laughs (flow)', laughs(12, 10, true)],
    ['aliases', 'many anchors to 128 KiB', full('', '&a x\n')],
    ['aliases', 'many aliases under the line limit', doc(`a: &a 1\n${Array.from({ length: 990 }, (_, i) => `b${i}: *a`).join('\n')}`)],
    ['aliases', 'alias keys in a flow map', times('x: {', '*a, ', 1990, '}')],
    ['aliases', 'stacked anchors on one node', times('x: ', '&a ', 3990, 'b')],
    // deep block nesting
    ['nesting', 'indentation staircase to 128 KiB', largest((n) => staircase(n, 1), 600)],
    ['nesting', 'indentation staircase under the byte limit', staircase(245, 1)],
    ['nesting', 'compact sequences - - - to 128 KiB', full('', '- ', 'a')],
    ['nesting', 'compact sequences - - - under the token limit', times('', '- ', 1990, 'a')],
    ['nesting', 'explicit keys ? ? ? under the token limit', times('', '? ', 1990, 'a')],
    ['nesting', 'compact maps - a: - b: under the token limit', times('', '- a: ', 990, 'b')],
    [
      'nesting',
      'sequence staircase',
      doc(
        Array.from({ length: 250 }, (_, i) => `${' '.repeat(i * 2)}- `)
          .join('\n')
          .concat('a'),
      ),
    ],
    // long keys
    ['long-keys', 'long plain key to 128 KiB', full('', 'k', ': 1')],
    ['long-keys', 'long plain key under the byte limit', times('', 'k', 32000, ': 1')],
    ['long-keys', 'long quoted key under the byte limit', times('"', 'k', 32000, '": 1')],
    ['long-keys', 'long explicit key under the byte limit', times('? ', 'k', 32000, '\n: 1')],
    ['long-keys', 'spaces before a quote (regex backtracking)', times('aliases: [a]\nx', ' ', 30000, '"')],
    // many keys
    ['many-keys', 'distinct keys to 128 KiB', largest((n) => manyKeys(n, false))],
    ['many-keys', 'distinct keys under the line limit', manyKeys(990, false)],
    ['many-keys', 'distinct keys in one flow map under the comma limit', manyKeys(1990, true)],
    ['many-keys', 'one key repeated to 128 KiB', full('', 'a: 1\n')],
    ['many-keys', 'one key repeated in a flow map', times('x: {', 'a: 1, ', 1990, 'a: 1}')],
    ['many-keys', 'canonical key: <JSON> lines to 128 KiB', largest((n) => doc(Array.from({ length: n }, (_, i) => `k_${letters(i)}: 1`).join('\n')))],
    // blank lines, whitespace and comments (gray-matter's comment regex)
    ['lines', 'blank lines to 128 KiB', full('', '\n', 'a: 1')],
    ['lines', 'whitespace lines under the line limit', times('', `${' '.repeat(31)}\n`, 990, 'a: 1')],
    ['lines', 'comment lines to 128 KiB', full('', '#\n', 'a: 1')],
    ['lines', 'one line of spaces under the byte limit', times('', ' ', 32000, '\na: 1')],
  ];
  return shapes.map(([cls, name, text]) => {
    if (Buffer.byteLength(text) > DOCUMENT_MAX_BYTES) throw new Error(`hostile shape "${name}" is over 128 KiB`);
    return { cls, name, text };
  });
}
