/**
 * Cue phrases of decisions and preferences, in English and Chinese, applied sentence by
 * sentence. A cue counts only in a statement: questions, hypotheticals ("we could", "if we
 * went with", 也许, 如果), suggestions ("I'd suggest"), negations ("haven't decided", 还没决定)
 * and the agent repeating the person ("since you decided") do not. Preferences come from the
 * person only, and only as instructions (a cue at the start of a clause, or a persistent marker
 * such as "from now on" or 以后都), never "don't worry" / "never mind" / 不要紧 / 别急.
 */

/** Text a sentence scan should not see: fenced code, quoted lines, indented code or logs, tags. */
function prose(text: string): string {
  return text
    .replace(/```[\s\S]*?(?:```|$)/g, '\n')
    .replace(/<system-reminder>[\s\S]*?(?:<\/system-reminder>|$)/g, '\n')
    .replace(/<([a-z_-]+)>[\s\S]*?<\/\1>/g, '\n')
    .split('\n')
    .filter((l) => !/^\s*>/.test(l) && !/^(?: {4}|\t)/.test(l))
    .join('\n');
}

const MAX_SCAN = 16 * 1024;

/**
 * Sentences of a message: code, quotes and tags removed; split at line ends, at `.!?` followed by
 * a space, and after `。！？；`; Markdown list markers and emphasis dropped. At most 200 sentences
 * of at most 600 characters, from the first 16 KiB.
 */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const rawLine of prose(text.slice(0, MAX_SCAN)).split('\n')) {
    const line = rawLine
      .replace(/^\s*(?:[-*+•]|\d+[.)]|#{1,6})\s+/, '')
      .replace(/\*\*|__/g, '')
      .trim();
    if (!line) continue;
    for (const s of line.split(/(?<=[.!?])\s+(?=[^\s])|(?<=[。！？；])/)) {
      const t = s.trim();
      if (t.length >= 2) out.push(t.length > 600 ? t.slice(0, 600) : t);
      if (out.length >= 200) return out;
    }
  }
  return out;
}

/** Apostrophes and quotes folded to ASCII, lower case: the form the English cues match. */
function fold(s: string): string {
  return s.replace(/[\u2018\u2019\u02bc]/g, "'").toLowerCase();
}

// ── decisions ──────────────────────────────────────────────────────────────────────────────
const DECISION_EN: RegExp[] = [
  /\b(?:let's|let us|we'll|we will|we're going to|we are going to|i'll|i will|so we|then we)\s+(?:go|stick|settle)\s+(?:with|on)\b/,
  /\b(?:we|i)(?:\s+went|\s+are going|'re going|\s+am going|'m going)\s+with\b/,
  /^(?:(?:ok(?:ay)?|alright|right|fine|good|great|yes|yeah|yep|agreed|sure|so|then|perfect|cool)[,.!]?\s+)*go\s+with\b/,
  /\b(?:we|i|the team)(?:\s+have|'ve|\s+had|'d)?\s+(?:decided|agreed|chose|picked|selected|opted|settled)\b/,
  /\b(?:we've|i've)\s+(?:decided|agreed|chosen|picked|selected|opted|settled)\b/,
  /^(?:decision|decided)\s*:/,
  /\b(?:let's|let us|we'll|we will)\s+(?:use|adopt|switch to|move to|migrate to|standardi[sz]e on)\b/,
  /\b(?:chose|chosen|picked|selected|went with|going with)\s+\S.{0,80}?\s+(?:over|rather than|instead of)\s+\S/,
  /\b(?:it's|that's|it is|that is)\s+(?:decided|settled)\b/,
];
/**
 * Chinese decision cues: 决定 (with a subject or opening the sentence: 决定 alone also means
 * "determines"), 就用, 改用, and the usual ways to say "we'll use X".
 */
const DECISION_ZH =
  /(?:我们|我|大家|团队|已经|最后|最终|那就|就|商量后|讨论后)决定|^决定|就用|改用|改成用|换用|选定|统一用|统一使用|最终用|定下来|定了用|还是用.{1,40}吧/;
const DECISION_ZH_NEGATED = /(?:没|没有|还没|还没有|未|不|无法|难以|很难|能不能|要不要|是否|谁来|由谁)(?:决定|选定)|决定不了|还没定/;

// ── preferences ────────────────────────────────────────────────────────────────────────────
const CLAUSE_START = String.raw`(?:^|[,;:(—–]\s*|\s-\s|\b(?:and|but|also|so|oh|ok|okay|btw|hey|then|and also|again)\s+)`;
const PREFERENCE_EN_IMPERATIVE = new RegExp(`${CLAUSE_START}(?:please\\s+)?(?:don't|do not|never|always|stop|avoid|no more)\\b`);
const PREFERENCE_EN: RegExp[] = [
  /\b(?:i|we)(?:\s+really)?(?:'d|\s+would)?(?:\s+really)?\s+(?:prefer|rather|like it when|want you to always|want you to never)\b/,
  /\b(?:from now on|going forward|in (?:the )?future|next time|every time you|whenever you|as a rule)\b/,
  /\b(?:make sure (?:to|you) (?:always|never)|you should (?:always|never)|you must (?:always|never)|remember to|keep in mind that|please remember)\b/,
];
/** A persistent marker makes an instruction a preference even where a one-off word appears. */
const PERSISTENT_EN = /\b(?:always|never|from now on|going forward|in (?:the )?future|every time|whenever|as a rule|prefer|rather)\b/;
const PREFERENCE_EN_NOT =
  /\b(?:don't|do not)\s+(?:know|think|understand|worry|see|mind|remember|recall|care|get|have|need|believe|want to (?:bother|worry)|you\b|we\b)|\bnever\s*mind\b|\bnever\s+(?:been|was|were|had|did|saw|seen|heard|got|thought|knew|happened|noticed)\b|\balways\s+(?:been|was|were|had|fails?|failed|breaks?|broke|happens?|happened|seems?|seemed|gets?|got)\b|\bstop\s+(?:here|there|now|for now|for today)\b|\bno more\s+(?:questions|changes|for now)\b|\bdon't\s+(?:bother|hesitate)\b/;
const ONE_OFF_EN =
  /\b(?:this time|for now|right now|yet|today|tonight|in this (?:pr|branch|commit|file|change|session)|for this (?:pr|task|change|one|commit|file|session))\b/;

// 别 is also the first character of 别人 ("others"), 别的 ("other") and a few more words.
const PREFERENCE_ZH_START =
  /(?:^|[，,：:；;、！!。]\s*|(?:请|你|也|还有|另外|而且|并且)\s*)(?:请\s*)?(?:不要|别再|别(?![人的处名称墅致扭说])|不准|不许|禁止|请勿|千万别|千万不要|永远不要|永远别|绝对不要|一定要|务必|一律)/;
const PREFERENCE_ZH = /以后(?:都|一律|请|要(?!是)|不要|别|每次|统一|记得)|今后|从现在(?:开始|起)|记住|我(?:更)?(?:喜欢|偏好|倾向于|习惯)(?:用|让|把|在|先)/;
const PERSISTENT_ZH = /以后|今后|从现在|永远|每次|始终|总是|一律|记住|务必|喜欢|偏好|习惯/;
const PREFERENCE_ZH_NOT = /不要紧|不要担心|别担心|别客气|别急|别着急|不要急|不着急|别介意|不要客气|别管了|记住了吗|要不要|不要了|别忘了谢/;
const ONE_OFF_ZH = /这次|这一次|本次|暂时|今天|现在先|目前先/;

// ── statements, not questions or hypotheticals ─────────────────────────────────────────────
const QUESTION_START_EN = /^(?:should|shall|do|did|does|can|could|would|will|what|which|why|how|whether|is|are|was|were|have|has|any|where|who|when)\b/;
const HYPOTHETICAL_EN =
  /\b(?:if|could|might|maybe|perhaps|possibly|would|should we|shall we|consider|considering|suggest|recommend|propose|alternatively|unless|whether|or we|i'd|we'd|you'd|you could|what if|in theory|ideally|wonder|not sure|unsure|thinking about|think about|probably|planning to|plan to|hoping to|hope to|want to try|try to)\b/;
const NEGATED_EN =
  /\b(?:not|never|haven't|hasn't|hadn't|didn't|don't|doesn't|won't|can't|cannot|couldn't|wasn't|weren't|no longer|undecided|yet to|without)\b[^.!?]{0,40}$/;
const RESTATED_EN =
  /\byou(?:'ve| have| had)?\s+(?:decided|chose|picked|wanted|want|asked|said|prefer|preferred|mentioned|suggested)\b|\bas you (?:said|asked|suggested|decided)\b/;
const QUESTION_ZH = /[吗嘛呢][\s。？?！!]*$|哪个|哪种|哪一个|什么|怎么|为什么|是否|要不要|能不能|可不可以|行不行|好不好|对不对|有没有|是不是|还是.{0,20}还是/;
const HYPOTHETICAL_ZH = /如果|假如|要是|假设|也许|或许|可能|可以考虑|考虑一下|考虑用|建议|不如|或者|打算|想试试|看看能不能|万一/;

function isQuestion(s: string, folded: string): boolean {
  return /[?？]\s*["')\]]*\s*$/.test(s) || QUESTION_START_EN.test(folded) || QUESTION_ZH.test(s);
}

/** Where a decision cue starts in the sentence, or -1. */
function decisionCue(s: string, folded: string): number {
  let at = -1;
  for (const re of DECISION_EN) {
    const m = re.exec(folded);
    if (m && (at === -1 || m.index < at)) at = m.index;
  }
  if (at === -1) {
    const m = DECISION_ZH.exec(s);
    if (m && !DECISION_ZH_NEGATED.test(s)) at = m.index;
  }
  return at;
}

/** Where a preference cue starts in the sentence, or -1. */
function preferenceCue(s: string, folded: string): number {
  const imperative = PREFERENCE_EN_IMPERATIVE.exec(folded);
  let at = imperative ? imperative.index : -1;
  for (const re of PREFERENCE_EN) {
    const m = re.exec(folded);
    if (m && (at === -1 || m.index < at)) at = m.index;
  }
  if (at !== -1) {
    if (PREFERENCE_EN_NOT.test(folded)) return -1;
    if (ONE_OFF_EN.test(folded) && !PERSISTENT_EN.test(folded)) return -1;
    return at;
  }
  const zh = PREFERENCE_ZH_START.exec(s) ?? PREFERENCE_ZH.exec(s);
  if (!zh || PREFERENCE_ZH_NOT.test(s)) return -1;
  if (ONE_OFF_ZH.test(s) && !PERSISTENT_ZH.test(s)) return -1;
  return zh.index;
}

/** Where a decision cue of a statement starts (not hypothetical, not negated, something decided after it), or -1. */
function decisionAt(s: string, folded: string): number {
  const at = decisionCue(s, folded);
  if (at === -1) return -1;
  const before = folded.slice(0, at);
  if (HYPOTHETICAL_EN.test(before) || HYPOTHETICAL_ZH.test(s.slice(0, at))) return -1;
  if (NEGATED_EN.test(before)) return -1;
  if (/\b(?:not|never)\s*$/.test(before) || /^(?:let's|let us)\s+not\b/.test(folded.slice(at))) return -1;
  // Something must follow the cue: the thing decided.
  if (!/[\p{L}\p{N}]{2}/u.test(folded.slice(at).replace(/^\S+\s+\S+/, ''))) return -1;
  return at;
}

/**
 * A lesson stated as a label at the start of a sentence: "Lesson: ...", "Lesson learned: ...",
 * "TIL: ...", "Note to self: ...", 教训：…, 经验教训：…. Only the label counts: a lesson told in
 * passing is too easily a story about something else.
 */
const LESSON_LABEL = /^(?:lessons?(?:\s+learned)?|til|note\s+to\s+self)\s*[:：]\s*|^(?:经验)?教训\s*[:：]\s*/iu;

/** The lesson a sentence states after a lesson label (see {@link LESSON_LABEL}), or undefined. */
export function statedLesson(sentence: string): string | undefined {
  const m = LESSON_LABEL.exec(sentence.trimStart());
  if (!m) return undefined;
  const lesson = sentence.trimStart().slice(m[0].length).trim();
  return /[\p{L}\p{N}].*[\p{L}\p{N}]/u.test(lesson) && lesson.length >= 8 ? lesson.replace(/^[a-z]/, (x) => x.toUpperCase()) : undefined;
}

/** A sentence found to carry a decision or a preference. */
export interface CueSentence {
  kind: 'decision' | 'preference';
  sentence: string;
  /** sentence index in the message */
  index: number;
  /** where the cue starts in the sentence (UTF-16 units) */
  at: number;
}

/**
 * The decision and preference sentences of one message.
 *
 * @param role who said it: preferences are taken from the person only
 */
export function cueSentences(text: string, role: 'user' | 'assistant'): { cues: CueSentence[]; all: string[] } {
  const all = sentences(text);
  const cues: CueSentence[] = [];
  all.forEach((s, index) => {
    const folded = fold(s);
    if (isQuestion(s, folded)) return;
    if (role === 'assistant' && RESTATED_EN.test(folded)) return;
    const pref = role === 'user' ? preferenceCue(s, folded) : -1;
    const at = decisionAt(s, folded);
    // "Let's go with X, never Y": a decision cue that opens the sentence before the preference's
    // "never"/"don't" is the decision, and the rest is what it rules out
    if (pref !== -1 && (at === -1 || pref <= at)) {
      cues.push({ kind: 'preference', sentence: s, index, at: pref });
      return;
    }
    if (at === -1) return;
    cues.push({ kind: 'decision', sentence: s, index, at });
  });
  return { cues, all };
}

/** True when a message from the person turns down what the agent just said or did. */
export function isRejection(text: string): boolean {
  const t = fold(text.trim());
  return (
    /^(?:no\b|nope\b|nah\b|don't\b|do not\b|stop\b|wait\b|actually,? no\b|that's wrong|not like that|revert|undo)/.test(t) ||
    /^(?:不|别|不要|不行|不对|不是|停|等等|错了)/.test(text.trim())
  );
}

/**
 * The statement of a cue sentence, from the start of the clause holding the cue to the end of
 * that clause ("Context for this task: we decided to X, so please Y" → "we decided to X";
 * "I chose X over Y: it infers types" → "I chose X over Y"), and what follows it in the sentence.
 */
export function statementOf(c: CueSentence): { statement: string; tail: string } {
  const s = c.sentence;
  const labelled = labelAt(s, c.at);
  if (labelled !== undefined) {
    const r = clauseFrom(s, labelled, 0);
    // "use Postgres" → "Use Postgres": it opens the statement now
    if (r.statement.length >= 8) return { ...r, statement: r.statement.replace(/^[a-z]/, (x) => x.toUpperCase()) };
  }
  const lead = /.*[:：—]\s+/.exec(s.slice(0, c.at));
  const start = lead && c.at - lead[0].length < 4 ? lead[0].length : 0;
  const r = clauseFrom(s, start, c.at + 6 - start);
  return r.statement.length >= 8 ? r : { statement: s, tail: '' };
}

/** The clause of `s` from `start` to its end (searched from `skip` characters on), and what follows it. */
function clauseFrom(s: string, start: number, skip: number): { statement: string; tail: string } {
  const end = /[:：;；—]\s|，|, (?:so|and so|which|because|since|as|but)\b|, (?=(?:we|it|they|this|that|the)\b)/.exec(s.slice(start + skip));
  const stop = end ? start + skip + end.index : s.length;
  const statement = s.slice(start, stop).trim();
  const tail = s
    .slice(stop)
    .replace(/^[\s:：;；—，,]+/, '')
    .replace(/^(?:so|and so|which|because|since|as|but)\s+/i, '')
    .trim();
  return { statement, tail };
}

/** A decision cue written as a label: "Decision:", "Decided:", "We decided:" (not "I chose X: ...", whose statement is before the colon). */
const DECISION_LABEL = /^(?:(?:we|i|the team)\s+(?:have\s+)?)?(?:decision|decided)\s*[:：]\s*/i;

/** Where the statement starts when the cue at `at` is a label ("Decision: use X"), or undefined when it is not one. */
function labelAt(s: string, at: number): number | undefined {
  const m = DECISION_LABEL.exec(s.slice(at));
  return m && at + m[0].length < s.length ? at + m[0].length : undefined;
}

/** The sentence without a cue label at its start ("Decision: use X" → "use X", "Lesson: X" → "X"): a reason is never the labelled statement itself. */
function withoutLabel(s: string): string {
  const m = DECISION_LABEL.exec(s.trimStart()) ?? LESSON_LABEL.exec(s.trimStart());
  return m ? s.trimStart().slice(m[0].length) : s;
}

/** A reason given with a statement: the clause after because/since/so that/因为/由于/否则…, if any. */
export function reasonIn(sentencesOfMessage: string[], cueIndexes: Set<number>): string | undefined {
  for (const [i, s] of sentencesOfMessage.entries()) {
    const folded = fold(s);
    const m = /\b(?:because|since|so that|given that|due to|otherwise)\b\s+(.{6,})/.exec(folded) ?? /(?:因为|由于|否则|不然|毕竟|这样)(.{4,})/.exec(s);
    if (m) return cueIndexes.has(i) ? s.slice(m.index) : s;
    const colon = cueIndexes.has(i) ? /[:：—]\s*(.{12,})$/.exec(withoutLabel(s)) : null;
    if (colon) return colon[1];
  }
  return undefined;
}
