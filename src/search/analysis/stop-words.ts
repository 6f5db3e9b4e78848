/**
 * English function words that carry no meaning for retrieval ("the", "did", "what"). They are
 * dropped from the index and from queries, so a question's wording does not outweigh its subject.
 * Only whole words are dropped; code-ish tokens (`foo_bar`, `v2.1`) are never stop words.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by
can could did do does doing down during each few for from further had has have having he her here hers herself him himself
his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them themselves then there these they this
those through to too under until up very was we were what when where which while who whom why will with would you your
yours yourself yourselves s t d ll m re ve`.split(/\s+/),
);
