#!/usr/bin/env node
// Retrieval quality on LoCoMo (Maharana et al., ACL 2024; `npm run eval:locomo`).
// Reads ../shared/bench-data/locomo10.json (CC BY-NC 4.0: read from there, never copied into this
// repository). As the published numbers do, each conversation is its own corpus: its sessions
// (and, in a second run, each turn) are saved as memories in a temp vault, and that conversation's
// questions are asked through searchMemories(), the function behind `vault search`. Only the
// question text is given to search. Recall at k = 1, 3, 5, 10: fractional (share of evidence
// sessions/turns in the top k), any (at least one), all (every one); overall and per category id.
// Evidence ids are normalised (`D30:05` → `D30:5`; lists joined by `;` or spaces split); ids
// that name no turn are dropped at turn level; questions left without evidence are not scored.
// Writes docs/locomo.md (unless --no-write); `--json` prints one JSON object on stdout;
// `--only session|turn` runs one granularity and prints its JSON only (for tuning; writes nothing).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dataPath = resolve(repo, '..', 'shared', 'bench-data', 'locomo10.json');
const args = process.argv.slice(2);
const json = args.includes('--json');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const write = !args.includes('--no-write') && !only;
const KS = [1, 3, 5, 10];

if (!existsSync(dataPath)) {
  const msg = `eval:locomo skipped: ${dataPath} is absent (LoCoMo is licensed CC BY-NC 4.0 and is not part of this repository; see ../shared/bench-data/README.md)`;
  if (json) process.stdout.write(`${JSON.stringify({ skipped: msg })}\n`);
  else console.error(msg);
  process.exit(0);
}

const dist = (p) => import(pathToFileURL(join(repo, 'dist', p)).href);
const [{ serializeMemory }, { resolveRoots }, { nodeRuntime }, { searchMemories }, recallLib] = await Promise.all([
  dist('document/serialize.js'),
  dist('store/roots.js'),
  dist('io/runtime.js'),
  dist('search/query/search-memories.js'),
  dist('sessions/prompt-recall.js'),
]);

const MONTHS = { january: 0, february: 1, march: 2, april: 3, may: 4, june: 5, july: 6, august: 7, september: 8, october: 9, november: 10, december: 11 };
/** "1:56 pm on 8 May, 2023" → ISO-8601 (UTC), or a fixed date when it does not parse. */
function sessionTime(text) {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})/i.exec(text ?? '');
  if (!m || MONTHS[m[5].toLowerCase()] === undefined) return '2023-01-01T00:00:00.000Z';
  const h = (Number(m[1]) % 12) + (m[3].toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), MONTHS[m[5].toLowerCase()], Number(m[4]), h, Number(m[2]))).toISOString();
}

function sessionsOf(conv) {
  return Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m) => m && Array.isArray(conv[m[0]]))
    .map((m) => ({ n: Number(m[1]), turns: conv[m[0]], date: conv[`${m[0]}_date_time`] }))
    .sort((a, b) => a.n - b.n);
}

/** Evidence strings → normalised dia ids ("D8:6; D9:17" → ["D8:6", "D9:17"]); unparseable parts dropped. */
function evidenceIds(evidence) {
  const out = new Set();
  for (const e of evidence ?? []) {
    for (const part of String(e).split(/[;,\s]+/)) {
      const m = /^D(\d+):(\d+)$/.exec(part.trim());
      if (m) out.add(`D${Number(m[1])}:${Number(m[2])}`);
    }
  }
  return [...out];
}

const turnText = (t) => `${t.speaker} said, "${t.text}"${t.blip_caption ? ` [shared an image: ${t.blip_caption}]` : ''}`;
const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '_');

function memoryOf(id, title, body, at) {
  return {
    schema: 'ecc.memory.v1',
    id,
    title,
    kind: 'note',
    scope: 'team',
    trust: 'unreviewed',
    status: 'active',
    sourceHarness: 'locomo',
    targetHarnesses: ['all'],
    tags: [],
    links: [],
    createdAt: at,
    updatedAt: at,
    body,
  };
}

function writeVault(dir, memories) {
  const folder = join(dir, '.ecc', 'memory', 'team', 'notes');
  mkdirSync(folder, { recursive: true });
  mkdirSync(join(dir, '.git'), { recursive: true });
  for (const m of memories) writeFileSync(join(folder, `${m.id}.md`), serializeMemory(m));
}

function emptyAcc() {
  return {
    n: 0,
    frac: Object.fromEntries(KS.map((k) => [k, 0])),
    any: Object.fromEntries(KS.map((k) => [k, 0])),
    all: Object.fromEntries(KS.map((k) => [k, 0])),
  };
}
function addTo(acc, ranked, gold) {
  acc.n++;
  for (const k of KS) {
    const top = new Set(ranked.slice(0, k));
    const found = gold.filter((g) => top.has(g)).length;
    acc.frac[k] += found / gold.length;
    acc.any[k] += found > 0 ? 1 : 0;
    acc.all[k] += found === gold.length ? 1 : 0;
  }
}
function finish(acc) {
  const r = (x) => (acc.n ? Math.round((x / acc.n) * 1000) / 1000 : null);
  return {
    frac: Object.fromEntries(KS.map((k) => [k, r(acc.frac[k])])),
    any: Object.fromEntries(KS.map((k) => [k, r(acc.any[k])])),
    all: Object.fromEntries(KS.map((k) => [k, r(acc.all[k])])),
    questions: acc.n,
  };
}

const data = JSON.parse(readFileSync(dataPath, 'utf8'));
const started = Date.now();
const results = {};
for (const granularity of ['session', 'turn'].filter((g) => (!only && !args.includes('--no-retrieval')) || g === only)) {
  const overall = emptyAcc();
  const byCat = {};
  for (const sample of data) {
    const conv = sample.conversation;
    const sessions = sessionsOf(conv);
    const memories = [];
    const docOf = new Map(); // memory id → session number or dia id
    for (const s of sessions) {
      const at = sessionTime(s.date);
      if (granularity === 'session') {
        const id = `mem_locomo_${slug(sample.sample_id)}_s${s.n}`;
        memories.push(memoryOf(id, `Session ${s.n}: ${conv.speaker_a} and ${conv.speaker_b}, ${s.date ?? ''}`.trim(), s.turns.map(turnText).join('\n'), at));
        docOf.set(id, `S${s.n}`);
      } else {
        for (const t of s.turns) {
          const id = `mem_locomo_${slug(sample.sample_id)}_${slug(t.dia_id)}`;
          memories.push(memoryOf(id, `${t.speaker}, session ${s.n}, ${s.date ?? ''}`.trim(), turnText(t), at));
          docOf.set(id, t.dia_id);
        }
      }
    }
    const dir = mkdtempSync(join(tmpdir(), 'vault-locomo-'));
    try {
      writeVault(dir, memories);
      const roots = resolveRoots(nodeRuntime({ cwd: dir, env: { HOME: dir } }));
      const known = new Set(docOf.values());
      for (const qa of sample.qa) {
        const ids = evidenceIds(qa.evidence);
        const gold = [...new Set(granularity === 'session' ? ids.map((e) => `S${e.slice(1).split(':')[0]}`) : ids)].filter((g) => known.has(g));
        if (gold.length === 0) continue;
        const r = await searchMemories(roots, String(qa.question), { scopes: ['team'], limit: 10 });
        const ranked = r.results.map((h) => docOf.get(h.id));
        addTo(overall, ranked, gold);
        addTo((byCat[qa.category] ??= emptyAcc()), ranked, gold);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  results[granularity] = { ...finish(overall), categories: Object.fromEntries(Object.entries(byCat).map(([c, a]) => [c, finish(a)])) };
}

// Prompt recall (the user-prompt-submit hook, src/sessions/prompt-recall.ts): each conversation's
// sessions are memories, its questions are prompts; the top 3 hits are kept with their relevance.
// Unrelated prompts: the same questions asked of the next conversation's vault. The threshold is
// chosen on conversations 1–5 and reported on 6–10.
const recallRuns = [];
if (!only || only === 'recall') {
  const vaults = [];
  for (const sample of data) {
    const conv = sample.conversation;
    const memories = sessionsOf(conv).map((s) => ({
      n: s.n,
      m: memoryOf(
        `mem_locomo_${slug(sample.sample_id)}_s${s.n}`,
        `Session ${s.n}: ${conv.speaker_a} and ${conv.speaker_b}, ${s.date ?? ''}`.trim(),
        s.turns.map(turnText).join('\n'),
        sessionTime(s.date),
      ),
    }));
    const dir = mkdtempSync(join(tmpdir(), 'vault-locomo-recall-'));
    writeVault(
      dir,
      memories.map((x) => x.m),
    );
    const terms = new Map(memories.map((x) => [x.m.id, recallLib.memoryTerms(x.m)]));
    const session = new Map(memories.map((x) => [x.m.id, `S${x.n}`]));
    vaults.push({ dir, roots: resolveRoots(nodeRuntime({ cwd: dir, env: { HOME: dir } })), terms, session });
  }
  try {
    const ask = async (v, question) => {
      const hits = await recallLib.recallMemories(v.roots, question, {
        harness: 'claude-code',
        exclude: new Set(),
        threshold: 0,
        readTerms: (h) => v.terms.get(h.id),
      });
      return hits.map((r) => ({
        s: v.session.get(r.hit.id),
        rel: r.relevance,
        chars: recallLib.renderRecall([r]).text.length - recallLib.RECALL_MARKER.length,
      }));
    };
    for (let i = 0; i < data.length; i++) {
      for (const qa of data[i].qa) {
        const gold = [...new Set(evidenceIds(qa.evidence).map((e) => `S${e.slice(1).split(':')[0]}`))].filter((g) =>
          [...vaults[i].session.values()].includes(g),
        );
        if (gold.length === 0 || recallLib.promptQuery(String(qa.question)) === undefined) continue;
        recallRuns.push({
          conv: i + 1,
          gold,
          own: await ask(vaults[i], String(qa.question)),
          other: await ask(vaults[(i + 1) % data.length], String(qa.question)),
        });
      }
    }
  } finally {
    for (const v of vaults) rmSync(v.dir, { recursive: true, force: true });
  }
}
/** Injection recall, unrelated injection rate and characters per prompt at a threshold, over some conversations. */
function recallAt(threshold, convs) {
  const runs = recallRuns.filter((r) => convs.includes(r.conv));
  let frac = 0;
  let unrelated = 0;
  let chars = 0;
  let injectedPrompts = 0;
  for (const r of runs) {
    const shown = recallLib.selectRecalled(
      r.own.map((h) => ({ ...h, relevance: h.rel })),
      threshold,
    );
    frac += r.gold.filter((g) => shown.some((h) => h.s === g)).length / r.gold.length;
    if (shown.length) {
      injectedPrompts++;
      chars += recallLib.RECALL_MARKER.length + shown.reduce((a, h) => a + h.chars, 0);
    }
    if (
      recallLib.selectRecalled(
        r.other.map((h) => ({ ...h, relevance: h.rel })),
        threshold,
      ).length
    )
      unrelated++;
  }
  const n = runs.length || 1;
  return {
    threshold,
    recall: frac / n,
    unrelated: unrelated / n,
    chars: chars / n,
    charsWhenInjected: injectedPrompts ? chars / injectedPrompts : 0,
    questions: runs.length,
  };
}
const CALIBRATE = [1, 2, 3, 4, 5];
const REPORT = [6, 7, 8, 9, 10];
const THRESHOLDS = Array.from({ length: 81 }, (_, i) => Math.round(10 + i) / 100);
const recallCurve = recallRuns.length ? THRESHOLDS.map((t) => ({ t, cal: recallAt(t, CALIBRATE), rep: recallAt(t, REPORT) })) : [];
// the threshold with the best injection recall on the calibration half among those that inject
// something for at most 10% of unrelated prompts there (the lowest such threshold: recall only falls as it rises)
const chosen = recallCurve.find((c) => c.cal.unrelated <= 0.1)?.t;
if (process.env.LOCOMO_RECALL_DUMP) writeFileSync(process.env.LOCOMO_RECALL_DUMP, JSON.stringify(recallRuns));
if (only === 'recall') {
  process.stdout.write(`${JSON.stringify({ chosen, curve: recallCurve }, null, 1)}\n`);
  process.exit(0);
}
const seconds = ((Date.now() - started) / 1000).toFixed(0);

const pick = (g) => (results[g] ? { frac: results[g].frac, any: results[g].any, all: results[g].all } : null);
const out = { session: pick('session'), turn: pick('turn'), questions: (results.session ?? results.turn).questions };
if (only) {
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(0);
}

/** The prompt-recall section of docs/locomo.md: the threshold chosen and the curve it was chosen from. */
function recallSection() {
  if (!recallCurve.length) return [];
  const at = (t) => recallCurve.find((c) => c.t === t);
  const c = at(chosen);
  const f = (x) => x.toFixed(3);
  const p = (x) => `${(x * 100).toFixed(1)}%`;
  const rows = recallCurve.filter((r) => Math.round(r.t * 100) % 5 === 0 || r.t === chosen);
  return [
    '## Prompt recall (the user-prompt-submit hook)',
    '',
    "Each conversation's sessions are memories and its questions are prompts, run through `recallMemories()`, the function",
    "behind `vault hook user-prompt-submit` (top 3 hits, rarity-weighted share of the prompt's terms a memory holds; something",
    'is injected only when the best reaches the threshold, then each of the top 3 that reaches half of it; at most 3 memories',
    'and 1,500 characters). Questions the hook would skip (under 3 words) are left out. **Injection recall**: the share of a',
    "question's evidence sessions that were injected, averaged (fractional; plain top-3 session recall above is the ceiling).",
    "**Unrelated**: the same questions asked of the next conversation's vault; the share of them that got anything injected.",
    '**Characters**: injected per prompt, averaged over all prompts (0 for none).',
    '',
    `The threshold is chosen on conversations 1–5 (calibration) as the one with the best injection recall among those with`,
    `at most 10% unrelated injections there, then reported on conversations 6–10. Chosen: **${chosen}** (RECALL_THRESHOLD in`,
    'src/sessions/prompt-recall.ts must match it).',
    '',
    `On the report half (conversations 6–10, ${c.rep.questions} questions): injection recall **${f(c.rep.recall)}**, unrelated prompts`,
    `with something injected **${p(c.rep.unrelated)}**, ${Math.round(c.rep.chars)} characters per prompt (${Math.round(c.rep.charsWhenInjected)} when something is injected).`,
    '',
    '| threshold | calibration recall | calibration unrelated | report recall | report unrelated | report characters per prompt |',
    '|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.t === chosen ? `**${r.t}**` : r.t} | ${f(r.cal.recall)} | ${p(r.cal.unrelated)} | ${f(r.rep.recall)} | ${p(r.rep.unrelated)} | ${Math.round(r.rep.chars)} |`,
    ),
    '',
  ];
}

const pct = (x) => (x === null ? '–' : x.toFixed(3));
const table = (g) => {
  const r = results[g];
  const rows = [
    ['all', r],
    ...Object.entries(r.categories)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([c, v]) => [`category ${c}`, v]),
  ];
  return [
    `| ${g} level | questions | frac R@1 | R@3 | R@5 | R@10 | any R@5 | any R@10 | all R@5 | all R@10 |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ([name, v]) =>
        `| ${name} | ${v.questions} | ${pct(v.frac[1])} | ${pct(v.frac[3])} | ${pct(v.frac[5])} | **${pct(v.frac[10])}** | ${pct(v.any[5])} | ${pct(v.any[10])} | ${pct(v.all[5])} | ${pct(v.all[10])} |`,
    ),
  ].join('\n');
};
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node.js ${process.version}`;
const md = [
  '# LoCoMo retrieval recall',
  '',
  `Measured by \`npm run eval:locomo\` on ${new Date().toISOString().slice(0, 10)} (${machine}; ${seconds} s). Nothing here is edited by hand.`,
  '',
  'Data: LoCoMo `locomo10.json` (10 conversations, 272 sessions, 5,882 turns; CC BY-NC 4.0, read from `../shared/bench-data`,',
  'not in this repository). Each conversation is its own corpus: its sessions (then, separately, its turns) are saved as',
  'memories in a temp vault and its questions are asked through `searchMemories()`, the function behind `vault search`, with',
  'only the question text. Recall at k: "frac" = share of the evidence sessions (turns) in the top k, "any" = at least one,',
  '"all" = every one; averaged over questions. Evidence ids are normalised; questions without usable evidence are not scored',
  `(${data.reduce((a, s) => a + s.qa.length, 0) - results.session.questions} of ${data.reduce((a, s) => a + s.qa.length, 0)} at session level).`,
  'Category ids as in the data (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial in the common usage).',
  '',
  'Published reference points (session level, top 10, fractional): an embedding-based memory system 0.60, its best hybrid',
  '0.89; plain lexical full-text search 0.81–0.90 (all-evidence). Note that each conversation has only 19–32 sessions, so',
  'random ranking already gives about 0.37 at R@10 and 0.19 at R@5.',
  '',
  'Tuning disclosure: the general ranking settings (Porter stemming, English stop words, field weights, and the depth and',
  'weight of pseudo-relevance feedback) were chosen among a handful of variants with runs of this evaluation; the variants',
  'tried gave turn-level fractional R@10 between 0.644 and 0.701. Later, with the index scored over binary postings',
  '(0.695), folding irregular English verbs to their base form (went → go; a WordNet-based list) gave 0.706; three other',
  'variants (field length in distinct terms, feedback weight 0.3, irregular plurals) moved it by 0.001 or less and were not',
  'kept. Nothing is specific to this data set or its questions.',
  '',
  table('session'),
  '',
  table('turn'),
  '',
  ...recallSection(),
].join('\n');

if (write) writeFileSync(join(repo, 'docs', 'locomo.md'), md);
if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
else process.stdout.write(`${md}\n`);
