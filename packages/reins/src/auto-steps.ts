/**
 * `maxSteps: 'auto'` (seed 003 §4.3 tip 4): a step limit from 3 to 12 chosen from the query.
 *
 * The seed's `min(12, max(3, len(query) // 20))` counts characters, so a Chinese question
 * (one character ≈ a word) gets a third of the steps of the same question in English, and a
 * short question with three asks gets the minimum. This estimator counts what makes a run
 * long instead: how many things are asked (question marks, "and also" / "顺便" / "另外",
 * list separators, clauses), whether the ask spans many items or days (a week's menu, the
 * last 3 months, a comparison), and the length in words (a CJK character counts as half a
 * word, a Latin word as one). Each ask needs about 1.5 tool rounds (its data, and often the
 * user's context), plus one step for the answer and one of margin. See bench/auto-steps for
 * how it compares with a fixed limit, and on which queries it was tuned.
 */

export const AUTO_MIN_STEPS = 3;
export const AUTO_MAX_STEPS = 12;

/** The chosen limit and why (in the `start` event and the record). */
export interface AutoSteps {
  readonly chosen: number;
  /** e.g. `"2 asks (2 question marks, 另外), 1 span(s) (这周), 8 words → 1 answer + 3 for asks + 1 span + 0 length + 1 margin = 6"`. */
  readonly reason: string;
}

// Separate asks. Each pattern counts every match once.
const ASK_JOINERS_EN =
  /\b(?:and also|also|as well as|plus|then|after that|additionally|besides|on top of that|and (?:what|how|which|who|when|where|why|is|are|can|could|do|does|should|tell|give|show|find|check|list|suggest|recommend|compare|add|remove|plan|make|look|estimate|calculate|compute|work out|book|send|write|create|update))\b/gi;
const ASK_JOINERS_ZH =
  /顺便|另外|还有|然后|并且|并(?![不没非且])|以及|同时|此外|再帮|再查|再看|再给|再算|接着|最后/g;
// Items of a list: 、 ; ； and numbered lines ("1." "2)" "第二").
const LIST_SEPARATORS = /[、;；]|(?:^|\s)\d[.)](?=\s)|第[二三四五六七八九十]/gm;
const QUESTION_MARKS = /[?？]/g;
// Asks that cover many items or days: each adds a round.
const DAY = '(?:周|星期)[一二三四五六日天]';
const WEEKDAY = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
// A range of days ("周一到周五", "Monday to Friday"): two rounds.
const RANGES = new RegExp(
  `(?:下|上|本|这)?${DAY}\\s*(?:到|至|-|~)\\s*${DAY}|\\b${WEEKDAY}\\s+(?:to|through|-)\\s+${WEEKDAY}\\b`,
  'gi',
);
const SPANS = new RegExp(
  /这周|本周|下周|一周|每天|每周|每月|近\s*\d+\s*(?:个月|[天周月年])|最近\s*\d*\s*(?:个月|[天周月年])|[一二三四五六七]天|趋势|对比|比较|分析|汇总|统计|\b(?:this|next|last|every)\s+(?:week|month|day)s?\b|\blast\s+\d+\s+(?:days|weeks|months|years)\b|\b(?:trend|trends|compare|comparison|analy[sz]e|analysis|summari[sz]e|breakdown|weekly|daily|monthly)\b/
    .source,
  'gi',
);
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;
const LATIN_WORDS = /[A-Za-z0-9]+(?:['’-][A-Za-z0-9]+)*/g;
// Clauses: a comma between two parts of a longer query often starts another ask.
const CLAUSE_COMMAS = /[,，]/g;

const WORDS_PER_STEP = 25;
const SHORT_REMARK_WORDS = 3;

function count(text: string, pattern: RegExp): number {
  pattern.lastIndex = 0;
  let n = 0;
  while (pattern.exec(text) !== null) n++;
  return n;
}

function matches(text: string, pattern: RegExp): string[] {
  return [...new Set(text.match(pattern) ?? [])].map((m) => m.trim());
}

// The reason names a few of what it counted, not all of a long query's.
const shown = (items: readonly string[]): string =>
  items.length <= 5 ? items.join('/') : `${items.slice(0, 5).join('/')}/…`;

/**
 * A pure function of the query: the same query always gets the same limit and reason. `max`
 * lowers the ceiling (an agent that allows fewer steps); below 3 it is 3.
 */
export function autoMaxSteps(query: string, max: number = AUTO_MAX_STEPS): AutoSteps {
  if (!Number.isFinite(max)) throw new RangeError(`autoMaxSteps: max must be a number, got ${String(max)}`);
  const ceiling = Math.max(AUTO_MIN_STEPS, Math.min(AUTO_MAX_STEPS, Math.floor(max)));
  const text = query.trim();
  const questionMarks = count(text, QUESTION_MARKS);
  const joiners = [...matches(text, ASK_JOINERS_EN), ...matches(text, ASK_JOINERS_ZH)];
  const joinerCount = count(text, ASK_JOINERS_EN) + count(text, ASK_JOINERS_ZH);
  const listItems = count(text, LIST_SEPARATORS);
  const ranges = matches(text, RANGES);
  const spans = [...ranges, ...matches(text.replace(RANGES, ' '), SPANS)];
  const cjk = count(text, CJK);
  const latin = count(text, LATIN_WORDS);
  const words = Math.round(latin + cjk / 2);
  // A comma opens another ask only in a longer query; short ones use it as a pause.
  const clauses = words >= 12 ? Math.floor(count(text, CLAUSE_COMMAS) / 2) : 0;

  // Question marks and joiners often mark the same asks ("…？另外…？"): the larger count. A
  // short remark with no sign of a request ("你好", "thanks!") asks for nothing.
  const remark = words <= SHORT_REMARK_WORDS && questionMarks + joinerCount + listItems + spans.length === 0;
  const asks = remark ? 0 : Math.max(questionMarks, 1 + joinerCount + listItems + clauses);
  const lengthSteps = Math.floor(words / WORDS_PER_STEP);
  const spanSteps = Math.min(2, spans.length + ranges.length);
  // An ask usually needs more than its data: the user's context too (the fridge and the
  // household's preferences for "what can I cook"), so about 1.5 lookups each.
  const askSteps = Math.ceil(asks * 1.5);
  const raw = 1 + askSteps + spanSteps + lengthSteps + 1;
  const chosen = Math.min(ceiling, Math.max(AUTO_MIN_STEPS, raw));

  const why: string[] = [];
  if (questionMarks > 1) why.push(`${questionMarks} question marks`);
  if (joinerCount > 0) why.push(shown(joiners));
  if (listItems > 0) why.push(`${listItems} list separator(s)`);
  if (clauses > 0) why.push(`${clauses} extra clause(s)`);
  const asksText = remark
    ? 'no ask (a short remark)'
    : `${asks} ask${asks === 1 ? '' : 's'}${why.length > 0 ? ` (${why.join(', ')})` : ''}`;
  const spanText = spans.length > 0 ? `, ${spans.length} span(s) (${shown(spans)})` : '';
  const formula = `1 answer + ${askSteps} for asks + ${spanSteps} span + ${lengthSteps} length + 1 margin = ${raw}`;
  const bound = raw === chosen ? '' : `, bounded to ${AUTO_MIN_STEPS}..${ceiling}`;
  return {
    chosen,
    reason: `${asksText}${spanText}, ${words} word${words === 1 ? '' : 's'} → ${formula}${bound}`,
  };
}
