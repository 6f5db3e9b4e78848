import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/document/contract.js';
import type { VaultError } from '../../src/errors.js';
import { appendRelatedLine } from '../../src/templates/related-links.js';
import { cleanDraftBody, DRAFT_INSTRUCTIONS, readDraft, renderDraft } from '../../src/templates/editor-draft.js';
import { fillTemplate, parseSectionValues } from '../../src/templates/fill-template.js';
import { defaultTemplatesDir, loadAllTemplates, loadTemplate, parseTemplate, splitSections } from '../../src/templates/kind-template.js';
import { REPO } from '../helpers/cli.js';

const EXPECTED_SECTIONS: Record<string, string[]> = {
  decision: ['Context', 'Options', 'Decision', 'Consequences'],
  runbook: ['When to use', 'Steps', 'Verification', 'Rollback'],
  handoff: ['State', 'Next steps', 'Open questions', 'Pointers'],
  lesson: ['What happened', 'Why', 'Lesson', 'How to apply'],
  context: ['Summary', 'Details', 'Constraints', 'Pointers'],
  fact: ['Fact', 'Source', 'Applies to'],
  note: ['Note', 'Pointers'],
  preference: ['Preference', 'Reason', 'Exceptions'],
};

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as VaultError).code;
  }
  return undefined;
}

describe('kind templates', () => {
  it('the package ships exactly one template per kind, and the loader finds them', () => {
    expect(defaultTemplatesDir()).toBe(`${join(REPO, 'templates')}/`);
    const files = readdirSync(join(REPO, 'templates'))
      .filter((f) => f.endsWith('.md'))
      .sort();
    expect(files).toEqual(KINDS.map((k) => `${k}.md`).sort());
  });

  it('no guidance tells the writer to edit a status by hand: retiring is `vault retire`', () => {
    for (const kind of KINDS) {
      const text = readFileSync(join(REPO, 'templates', `${kind}.md`), 'utf8');
      expect(text, kind).not.toMatch(/status to superseded|set(ting)? (its|this one's|the) status/i);
    }
    expect(readFileSync(join(REPO, 'templates', 'decision.md'), 'utf8')).toContain('vault retire <this id> --superseded-by <new id>');
  });

  it.each(KINDS.map((k) => [k]))('%s has its sections, each with guidance, and a preamble', (kind) => {
    const t = loadTemplate(kind);
    expect(t.sections.map((s) => s.name)).toEqual(EXPECTED_SECTIONS[kind]);
    for (const s of t.sections) expect(s.guidance.length, `${kind} ${s.name}`).toBe(1);
    expect(t.preamble).toHaveLength(1);
    expect(t.preamble[0]).toMatch(new RegExp(`^${kind}: `));
  });

  it('refuses an unknown kind before building a path, and a template without sections', () => {
    expect(code(() => loadTemplate('../etc/passwd'))).toBe('invalid-input');
    expect(code(() => parseTemplate('note', 'no sections here'))).toBe('invalid-input');
    expect(code(() => parseTemplate('note', '## A\n\n## a\n'))).toBe('invalid-input');
  });

  it('does not treat a ## line inside a code fence as a section', () => {
    const { sections } = splitSections('## Steps\n\n```sh\n## not a heading\n```\n\n## Rollback\n\nnone');
    expect(sections.map((s) => s.heading)).toEqual(['Steps', 'Rollback']);
    expect(sections[0]!.content).toContain('## not a heading');
  });
});

describe('fillTemplate', () => {
  const decision = loadTemplate('decision');

  it('renders given sections in template order, omits the others, never copies guidance', () => {
    const body = fillTemplate(decision, parseSectionValues(['decision=We will use Redis.', 'Context=Sessions expire = too early.']));
    expect(body).toBe('## Context\n\nSessions expire = too early.\n\n## Decision\n\nWe will use Redis.');
    expect(body).not.toContain('<!--');
  });

  it('matches names ignoring case and punctuation, and joins repeated sections line by line', () => {
    const runbook = loadTemplate('runbook');
    const body = fillTemplate(runbook, parseSectionValues(['when-to-use=Disk full', 'STEPS=1. df -h', 'steps=2. clean', 'Rollback=none needed']));
    expect(body).toBe('## When to use\n\nDisk full\n\n## Steps\n\n1. df -h\n2. clean\n\n## Rollback\n\nnone needed');
  });

  it('refuses unknown sections (listing the right ones), empty texts, no sections, and flags without =', () => {
    const err = (() => {
      try {
        fillTemplate(decision, parseSectionValues(['Bogus=x']));
      } catch (e) {
        return e as VaultError;
      }
      throw new Error('no error');
    })();
    expect(err.code).toBe('invalid-input');
    expect(err.field).toBe('section');
    expect(err.hint).toBe('use one of: Context, Options, Decision, Consequences');
    expect(code(() => fillTemplate(decision, parseSectionValues(['Context=   '])))).toBe('invalid-input');
    expect(code(() => fillTemplate(decision, []))).toBe('invalid-input');
    expect(code(() => parseSectionValues(['Context']))).toBe('usage');
    expect(code(() => parseSectionValues(['=text']))).toBe('usage');
  });
});

describe('appendRelatedLine', () => {
  it('appends one Related line of wikilinks for ids not already linked from the body', () => {
    expect(appendRelatedLine('Body.', ['mem_aaa', 'mem_bbb', 'mem_aaa'])).toBe('Body.\n\nRelated: [[mem_aaa]], [[mem_bbb]]');
    expect(appendRelatedLine('See [[mem_aaa|the old one]].', ['mem_aaa', 'mem_bbb'])).toBe('See [[mem_aaa|the old one]].\n\nRelated: [[mem_bbb]]');
    expect(appendRelatedLine('See [[mem_aaa]].', ['mem_aaa'])).toBe('See [[mem_aaa]].');
  });
});

describe('editor drafts', () => {
  const all = loadAllTemplates();

  it('a draft round-trips: untouched guidance and empty sections vanish, written text stays', () => {
    const t = loadTemplate('handoff');
    const draft = renderDraft(t, { title: 'Auth hand-off', kind: 'handoff', scope: 'team', tags: ['auth'], links: [], targetHarnesses: ['all'] });
    expect(draft).toContain(`<!-- ${DRAFT_INSTRUCTIONS} -->`);
    const edited = draft
      .replace('## Next steps\n', '## Next steps\n\n1. Move the store to Redis.\n')
      .replace('## State\n', '## State\n\nTests pass. <!-- my own remark -->\n');
    const back = readDraft(edited, all);
    expect(back).toEqual({
      title: 'Auth hand-off',
      kind: 'handoff',
      scope: 'team',
      tags: ['auth'],
      links: [],
      targetHarnesses: ['all'],
      body: '## State\n\nTests pass. <!-- my own remark -->\n\n## Next steps\n\n1. Move the store to Redis.',
    });
  });

  it('reads Obsidian-style block lists and CRLF, and an untouched draft has an empty body', () => {
    const t = loadTemplate('note');
    const text = renderDraft(t, { title: 'x', kind: 'note', scope: 'project', tags: [], links: [], targetHarnesses: ['all'] })
      .replace('tags: []', 'tags:\n  - infra\n  - "#ops"')
      .replace(/\n/g, '\r\n');
    const back = readDraft(text, all);
    expect(back.tags).toEqual(['infra', '#ops']);
    expect(back.body).toBe('');
  });

  it('refuses unknown draft fields (ids and timestamps are not for people to set) and a missing frontmatter', () => {
    expect(code(() => readDraft('---\ntitle: x\ntrust: reviewed\n---\n\nbody', all))).toBe('unknown-field');
    expect(code(() => readDraft('just text', all))).toBe('missing-frontmatter');
    expect(code(() => readDraft('---\ntitle: [a, b]\n---\n\nbody', all))).toBe('invalid-field');
  });

  it('removes the guidance of every template, also when the kind was changed in the draft', () => {
    const runbookText = readFileSync(join(REPO, 'templates/runbook.md'), 'utf8');
    expect(cleanDraftBody(runbookText.replace('## Steps\n', '## Steps\n\n1. go\n'), all)).toBe('## Steps\n\n1. go');
  });
});
