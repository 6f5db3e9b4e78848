// Seeded generator of realistic synthetic vaults for the benchmarks (self-contained: it needs no
// data outside this file, so the bench runs the same with or without ../shared).
//
// Text: sentences of English function words (~30 %) and content words, each drawn with Zipf's law
// (frequency ∝ 1 / rank) from a vocabulary of > 20,000 distinct words: ~500 real English words
// (conversational, like LoCoMo's chat sessions, and developer terms), ~24,000 pronounceable
// made-up words (the long tail of names, places and jargon a real vault has) and ~2,000 code
// identifiers (`foo_bar`, `src/a/b.ts`, camelCase). About 10 % of the memories are mostly Chinese
// or Japanese, written without spaces, from their own Zipf vocabulary of ~2,500 words.
// Memory sizes are log-uniform from 200 B to 8 KB; kinds, tags, harnesses and dates vary.
//
// The generator records which documents each vocabulary word was drawn into (its document
// frequency), so a bench can pick query words by how many memories they match.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A seeded PRNG (mulberry32): `rng(seed)()` → a float in [0, 1). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const ENGLISH = `session token cache redis postgres migration schema deploy rollback kubernetes cluster node pod service
ingress certificate secret rotation backup restore queue worker retry timeout latency throughput benchmark profile memory
leak index search ranking tokenizer parser compiler build release version branch merge conflict review approval
pipeline runner artifact docker image registry terraform module provider state lock lease election leader follower
replica shard partition consistency transaction isolation deadlock mutex thread async promise callback stream buffer
encoding unicode locale timezone calendar invoice payment refund customer account billing subscription plan quota
limit throttle gateway proxy router handler middleware logging tracing metrics alert dashboard oncall incident
postmortem runbook playbook decision lesson preference convention style format lint test fixture mock stub snapshot
coverage flaky regression bisect hotfix patch upgrade dependency vulnerability audit license compliance privacy consent
encryption signature checksum hash salt password login logout oauth openid saml directory group role permission
policy admin tenant workspace project team user avatar upload download storage bucket object blob file folder
path symlink owner watcher event webhook notification email template render layout component store
reducer selector query mutation resolver graphql rest endpoint pagination cursor offset filter sort facet highlight
excerpt typo fuzzy prefix stemming analyzer segmenter language chinese japanese korean accent normalization
weekend family friend friends painting hiking camping trip beach mountain lake garden dog cat puppy kids children
daughter son husband wife mother father sister brother parents grandma birthday wedding party dinner lunch breakfast
coffee tea pizza pasta salad cake cookies recipe cooking baking restaurant music concert guitar piano song band
album book novel reading library poetry writing journal art museum gallery sculpture photography camera picture photo
movie film show series episode theater dance yoga running marathon gym workout swimming cycling soccer basketball
tennis game games team coach school college university class course teacher student exam degree career job work
office boss colleague interview promotion salary volunteer charity community church shelter hospital doctor nurse
health therapy anxiety stress support group adoption agency counseling mentor advice goal dream plan future
travel vacation flight airport hotel city country paris tokyo london berlin rome summer winter spring autumn
morning evening night today yesterday tomorrow week month year moment time day days life love hope happy proud
excited grateful nervous tired busy fun great amazing awesome beautiful wonderful interesting important difficult
easy new old young little big small long short first last next early late really always often sometimes never
talk talked talking said told asked thought felt feel feeling think know knew learn learned teach taught make made
start started finish finished try tried help helped share shared remember remembered visit visited meet met join
joined move moved buy bought sell sold give gave take took bring brought keep kept find found lose lost win won
car bike house apartment home room kitchen backyard neighborhood street park forest river ocean island sunset
transgender identity pride parade speech conference workshop meetup club clubs hobby hobbies collection vintage
pottery knitting sewing drawing sketch canvas colors bracelet necklace gift present card letter message phone call
news story stories history culture tradition festival holiday christmas thanksgiving halloween fireworks
animal animals horse bird birds fish garden flowers roses sunflowers tree trees nature hike trail camp tent fire`.split(/\s+/);

/** Function words, most of them stop words of the search (they are left out of the index). */
const FUNCTION = `the a an we it is was to of and in for on with that this by from as at be are not but or i you he she
they my your our their me him her them have has had do did does will would can could should just so very really
about after before then than when what which who how there here also some any all more most much many`.split(/\s+/);

const HAN =
  '的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理世车';
const KATAKANA = 'アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン';
const CJK_WORDS = `数据库 缓存 部署 会话 索引 权限 用户 角色 备份 延迟 服务器 客户端 配置 日志 测试 发布 版本 分支 合并 审查
文档 搜索 排名 查询 接口 网关 消息 队列 事务 集群 节点 监控 告警 故障 恢复 迁移 升级 依赖 安全 密码 登录 注册 支付
订单 账户 周末 家人 朋友 旅行 音乐 电影 学校 工作 会议 项目 团队 问题 方案 决定 经验 教训 习惯 偏好 规范
セッション キャッシュ デプロイ サーバー データベース インデックス ユーザー テスト リリース ブランチ ログ 設定 障害 対応 手順
確認 検索 権限 週末 家族 友達 旅行 音楽 映画 学校 仕事 会議`.split(/\s+/);

const ONSETS = [
  'b',
  'c',
  'd',
  'f',
  'g',
  'h',
  'j',
  'k',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  't',
  'v',
  'w',
  'z',
  'br',
  'cr',
  'dr',
  'fl',
  'gr',
  'pl',
  'st',
  'tr',
  'sh',
  'ch',
  'th',
  'qu',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'y'];
const CODAS = ['', '', 'n', 'r', 's', 'l', 'm', 'nd', 'rk', 'st', 'x', 'v'];
const KINDS = ['context', 'decision', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook'];

/** Cumulative Zipf weights over `n` ranks (exponent 1) and a sampler drawing a rank from them. */
function zipfSampler(n, r) {
  const cum = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) cum[i] = acc += 1 / (i + 1);
  return () => {
    const x = r() * acc;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cum[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

function shuffle(xs, r) {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

/**
 * The vocabulary for `seed`: `{ latin, cjk }`, each an array of distinct words in Zipf rank order
 * (index 0 most frequent). Real English words and made-up ones are interleaved in a seeded order,
 * so no query word is favoured by its spelling.
 */
export function makeVocabulary(seed = 42) {
  const r = rng(seed ^ 0x5eed);
  const seen = new Set([...FUNCTION]);
  const english = ENGLISH.filter((w) => !seen.has(w) && seen.add(w));
  const made = [];
  while (made.length < 24_000) {
    let w = '';
    const syllables = 2 + Math.floor(r() * 2.2);
    for (let s = 0; s < syllables; s++)
      w +=
        ONSETS[Math.floor(r() * ONSETS.length)] +
        VOWELS[Math.floor(r() * VOWELS.length)] +
        (s === syllables - 1 || r() < 0.3 ? CODAS[Math.floor(r() * CODAS.length)] : '');
    if (w.length >= 4 && !seen.has(w)) {
      seen.add(w);
      made.push(w);
    }
  }
  const ident = [];
  const pick = () => english[Math.floor(r() * english.length)];
  while (ident.length < 2_000) {
    const k = r();
    const a = pick();
    const b = pick();
    const w =
      k < 0.3
        ? `${a}_${b}`
        : k < 0.5
          ? `${a}-${b}`
          : k < 0.7
            ? `${a}${b[0].toUpperCase()}${b.slice(1)}`
            : k < 0.85
              ? `src/${a}/${b}.ts`
              : `${a}${Math.floor(r() * 100)}`;
    if (!seen.has(w)) {
      seen.add(w);
      ident.push(w);
    }
  }
  // the most frequent words are real ones (a vault's frequent words are), then real and made-up
  // words mixed, then the long tail of made-up words and identifiers
  const real = shuffle(english, r);
  const head = shuffle([...real.slice(150), ...made.slice(0, 300)], r);
  const tail = shuffle([...made.slice(300), ...ident], r);
  const latin = [...real.slice(0, 150), ...head, ...tail];
  const cjkSeen = new Set(CJK_WORDS);
  const cjk = [...cjkSeen];
  while (cjk.length < 2_500) {
    const kana = r() < 0.25;
    const len = kana ? 3 + Math.floor(r() * 3) : 2 + Math.floor(r() * 1.5);
    const pool = kana ? KATAKANA : HAN;
    let w = '';
    for (let i = 0; i < len; i++) w += pool[Math.floor(r() * pool.length)];
    if (!cjkSeen.has(w)) {
      cjkSeen.add(w);
      cjk.push(w);
    }
  }
  return { latin, cjk: [cjk[0], ...shuffle(cjk.slice(1), r)] };
}

/** Murmur3's finaliser: a bijection of 32-bit integers that spreads their bits. */
function mix32(x) {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The 20 hex characters of the i-th memory's id: random-looking, as `vault save` writes them (80
 * random bits), and distinct for every i (the first 8 are a bijection of i), without drawing from
 * the text's random stream. A counter padded with zeros put every id part in one index bucket.
 */
function idHex(i) {
  return [mix32(i), mix32(i ^ 0x9e3779b9), mix32(i + 0x7f4a7c15)]
    .map((v) => v.toString(16).padStart(8, '0'))
    .join('')
    .slice(0, 20);
}

/**
 * A seeded stream of memories. `next()` → the next memory (an `ecc.memory.v1` object with its
 * body); `sentence()` → one more sentence of the same text (for edits); `df` → Map from a
 * vocabulary word to the number of memories it was drawn into (title, body or tags);
 * `vocabulary` → the word lists.
 */
export function memoryStream(seed = 42, { idPrefix = 'mem_20260101_', start = 0 } = {}) {
  const vocabulary = makeVocabulary(seed);
  const { latin, cjk } = vocabulary;
  const r = rng(seed);
  const zl = zipfSampler(latin.length, r);
  const zc = zipfSampler(cjk.length, r);
  const zf = zipfSampler(FUNCTION.length, r);
  const df = new Map();
  let drawn = new Set();
  const word = () => {
    const w = latin[zl()];
    drawn.add(w);
    return w;
  };
  const cjkWord = () => {
    const w = cjk[zc()];
    drawn.add(w);
    return w;
  };
  const sentence = (cjkText = false) => {
    const len = 6 + Math.floor(r() * 12);
    const ws = [];
    if (cjkText) {
      for (let i = 0; i < len; i++) ws.push(r() < 0.08 ? ` ${word()} ` : cjkWord());
      return `${ws.join('').trim()}。`;
    }
    for (let i = 0; i < len; i++) ws.push(r() < 0.3 ? FUNCTION[zf()] : word());
    const s = ws.join(' ');
    return `${s[0].toUpperCase()}${s.slice(1)}${r() < 0.1 ? '?' : '.'}`;
  };
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  let i = start;
  const next = () => {
    drawn = new Set();
    const target = Math.floor(200 * 40 ** r()); // log-uniform 200 B .. 8 KB
    const cjkDoc = r() < 0.1;
    let body = '';
    while (Buffer.byteLength(body) < target) {
      const bullet = r() < 0.05;
      body += (bullet ? '- ' : '') + sentence(cjkDoc && r() < 0.7) + (bullet || r() < 0.15 ? '\n\n' : ' ');
    }
    const title = cjkDoc ? Array.from({ length: 2 + Math.floor(r() * 3) }, cjkWord).join('') : Array.from({ length: 3 + Math.floor(r() * 5) }, word).join(' ');
    const tags = [...new Set(Array.from({ length: Math.floor(r() * 4) }, () => latin[Math.floor(r() * 60)]))];
    for (const t of tags) drawn.add(t);
    const t = new Date(base + Math.floor(r() * 300 * 86_400_000)).toISOString();
    const m = {
      schema: 'ecc.memory.v1',
      id: `${idPrefix}${idHex(i++)}`,
      title: title[0].toUpperCase() + title.slice(1),
      kind: KINDS[Math.floor(r() * KINDS.length)],
      scope: 'team',
      trust: 'unreviewed',
      status: r() < 0.9 ? 'active' : 'superseded',
      sourceHarness: r() < 0.5 ? 'claude' : 'codex',
      targetHarnesses: ['all'],
      tags,
      links: [],
      createdAt: t,
      updatedAt: t,
      body: body.trim(),
    };
    for (const w of drawn) df.set(w, (df.get(w) ?? 0) + 1);
    return m;
  };
  return { next, sentence: () => sentence(false), df, vocabulary };
}

/**
 * Writes `n` generated memories as files under `<repo>/.ecc/memory/team/<kind>s/<id>.md` with
 * `serialize` (the library's `serializeMemory`), dated a minute back (so no check takes them for
 * files being written). Returns `{ memories: [{ id, kind, status, path }], bytes, active, df,
 * vocabulary, stream }`; `stream` goes on with the same text (for later saves and edits).
 */
export function writeVault(repo, n, serialize, seed = 42) {
  const stream = memoryStream(seed);
  const past = new Date(Date.now() - 60_000);
  const made = new Set();
  const memories = [];
  let bytes = 0;
  let active = 0;
  for (let k = 0; k < n; k++) {
    const m = stream.next();
    const dir = join(repo, '.ecc', 'memory', 'team', `${m.kind}s`);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    const text = serialize(m);
    bytes += Buffer.byteLength(text);
    const path = join(dir, `${m.id}.md`);
    writeFileSync(path, text);
    utimesSync(path, past, past);
    if (m.status === 'active') active++;
    memories.push({ id: m.id, kind: m.kind, status: m.status, path });
  }
  return { memories, bytes, active, df: stream.df, vocabulary: stream.vocabulary, stream };
}

/**
 * Word statistics of texts (Latin-script words, lowercased): `{ tokens, distinct, slope, top10 }`;
 * `slope` is the least-squares slope of log frequency against log rank over ranks 10–1,000 (a
 * Zipf text has about −1), `top10` the share of all tokens taken by the ten most frequent words.
 */
export function textStats(texts) {
  const counts = new Map();
  let tokens = 0;
  for (const t of texts)
    for (const w of t.toLowerCase().match(/[a-z][a-z']*/g) ?? []) {
      counts.set(w, (counts.get(w) ?? 0) + 1);
      tokens++;
    }
  const freq = [...counts.values()].sort((a, b) => b - a);
  const pts = freq.slice(9, 1000).map((f, i) => [Math.log(i + 10), Math.log(f)]);
  const mx = pts.reduce((a, p) => a + p[0], 0) / pts.length;
  const my = pts.reduce((a, p) => a + p[1], 0) / pts.length;
  const slope = pts.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0) / pts.reduce((a, p) => a + (p[0] - mx) ** 2, 0);
  return { tokens, distinct: counts.size, slope, top10: freq.slice(0, 10).reduce((a, f) => a + f, 0) / tokens };
}
