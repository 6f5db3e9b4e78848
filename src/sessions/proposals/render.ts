/**
 * Proposal text in the vault's canonical style (the sections of templates/<kind>.md), tags and
 * fingerprints. Every string here was cleaned when it entered the extractor (controls and
 * invisible characters stripped, credential shapes redacted); titles and bodies are cleaned
 * and capped once more on the way out, so a proposal is always a valid memory candidate.
 */
import { createHash } from 'node:crypto';
import { capText, oneLine, paragraph } from '../transcripts/text.js';
import type { ProposalKind } from './types.js';

/** Bounds of a proposal (characters are UTF-16 units). Title limit from ecc.memory.v1 (200). */
export const PROPOSAL_LIMITS = { titleChars: 200, titleSoftChars: 160, bodyChars: 16_000, quoteChars: 600, tags: 6 } as const;

const TAG = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Lower case, NFKC, punctuation and symbols dropped, whitespace collapsed: the text a fingerprint hashes. */
export function normalizeKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\[redacted [^\]]*\]/g, ' ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** An error line with its variable parts (numbers, hex ids, paths' folders, quoted values' digits) folded away. */
export function errorSignature(headline: string): string {
  return normalizeKey(
    headline
      .replace(/(?:[A-Za-z]:)?(?:[\w.@~-]*[/\\])+([\w.@-]+)/g, '$1')
      .replace(/\b[0-9a-f]{7,}\b/gi, 'x')
      .replace(/\d+/g, '0'),
  );
}

/** `sha256:<hex>` of the kind and the normalised key. */
export function fingerprintOf(kind: ProposalKind, key: string): string {
  return `sha256:${createHash('sha256').update(`${kind}\n${key}`).digest('hex')}`;
}

/** A title: one line, trimmed, cut at a word near 160 characters (never over 200), without a closing full stop. */
export function titleOf(text: string): string {
  let t = oneLine(text, PROPOSAL_LIMITS.titleChars);
  if (t.length > PROPOSAL_LIMITS.titleSoftChars) {
    const cut = t.slice(0, PROPOSAL_LIMITS.titleSoftChars);
    const space = cut.lastIndexOf(' ');
    t = capText(space > 80 ? cut.slice(0, space) : cut, PROPOSAL_LIMITS.titleSoftChars);
    if (!t.endsWith('…')) t = `${t}…`;
  }
  t = t
    .replace(/^(?:(?:and|also|but|so|ok(?:ay)?|oh|then|btw|hey|please)\b[,\s]*)+/i, '')
    .replace(/[.。;；,，:：!！]+$/, '')
    .trim();
  if (/^[a-z]/.test(t)) t = t[0]!.toUpperCase() + t.slice(1);
  return t || 'Proposed memory';
}

/** A body: sections joined, cleaned and capped. */
export function bodyOf(sections: Array<[heading: string, text: string]>): string {
  const text = sections
    .filter(([, t]) => t.trim())
    .map(([h, t]) => `## ${h}\n\n${t.trim()}`)
    .join('\n\n');
  return paragraph(text, PROPOSAL_LIMITS.bodyChars);
}

/** Inline code for a command or path (double backticks when it holds one). */
export function code(s: string): string {
  const one = s.replace(/\s*\n[\s\S]*$/, ' …').trim();
  return one.includes('`') ? `\`\` ${one} \`\`` : `\`${one}\``;
}

/** A quote of someone's words, as a Markdown block quote, capped. */
export function quote(text: string): string {
  return capText(text.trim(), PROPOSAL_LIMITS.quoteChars)
    .split('\n')
    .map((l) => `> ${l}`.trimEnd())
    .join('\n');
}

// Words that make good tags when they occur in a proposal's key text. Generic technology names,
// not the corpus's: a tag is only a search aid and a person edits it on accept.
const LEXICON = (
  'redis postgres postgresql mysql sqlite mongodb kafka rabbitmq nats elasticsearch docker kubernetes helm terraform aws gcp azure vercel stripe graphql ' +
  'rest grpc openapi websocket react vue svelte angular nextjs vite webpack typescript javascript python rust golang java kotlin swift node deno bun npm ' +
  'pnpm yarn vitest jest pytest playwright cypress eslint prettier biome zod prisma drizzle knex sequelize typeorm django flask fastapi rails express ' +
  'fastify nestjs tailwind redux zustand mobx git github gitlab ci migrations migration cache caching auth oauth jwt sessions session logging metrics ' +
  'tests testing commits commit branch lockfile dependencies monorepo workspaces feature-flags pagination rate-limiting webhooks queue cron launchdarkly ' +
  'sentry toml yaml json csv pdf i18n colima clippy cargo go make gradle maven'
).split(' ');
const LEXICON_RE = new RegExp(`(?<![\\p{L}\\p{N}_-])(${LEXICON.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?![\\p{L}\\p{N}_-])`, 'giu');
/** Words in the lexicon that are too common in English prose to be tags from prose alone. */
const PROSE_AMBIGUOUS = new Set(['go', 'make', 'rest', 'node', 'bun', 'commit', 'branch', 'cache', 'session', 'tests', 'queue', 'json', 'yaml']);
const EXTENSION_TAGS: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  rs: 'rust',
  go: 'golang',
  rb: 'ruby',
  java: 'java',
  kt: 'kotlin',
  swift: 'swift',
  sql: 'sql',
  php: 'php',
  cs: 'csharp',
  toml: 'toml',
  yml: 'yaml',
  yaml: 'yaml',
};
const PROGRAM_TAGS: Record<string, string> = { python: 'python', python3: 'python', go: 'golang', 'docker-compose': 'docker', tsc: 'typescript', npx: 'npm' };

/**
 * Tags for a proposal: lexicon words in its key text (in order of appearance), the programs of
 * its commands, the languages of its files. At most {@link PROPOSAL_LIMITS}.tags slugs, unique.
 */
export function tagsOf(text: string, programs: string[] = [], files: string[] = []): string[] {
  const tags: string[] = [];
  const add = (t: string) => {
    const slug = t
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, 64);
    if (slug && TAG.test(slug) && !tags.includes(slug) && tags.length < PROPOSAL_LIMITS.tags) tags.push(slug);
  };
  for (const m of text.slice(0, 4000).matchAll(LEXICON_RE)) {
    const w = m[1]!.toLowerCase();
    if (!PROSE_AMBIGUOUS.has(w)) add(w === 'postgresql' ? 'postgres' : w);
  }
  for (const p of programs) {
    const name = p.split(' ')[0]!.toLowerCase();
    if (name && !name.startsWith('.') && !name.includes('/')) add(PROGRAM_TAGS[name] ?? name);
  }
  for (const f of files) {
    const ext = /\.([A-Za-z0-9]+)$/.exec(f)?.[1]?.toLowerCase();
    const tag = ext ? EXTENSION_TAGS[ext] : undefined;
    if (tag) add(tag);
  }
  return tags;
}
