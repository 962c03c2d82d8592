import { estimateTokens, type Model, type ModelRequest, type ModelResult, type ToolSpec } from '../model.js';
import { demoInput } from './demo-input.js';
import { readUserInput } from '../sanitize/user-input.js';
import { demoPlan } from './demo-plan.js';
import { PLANNER_MARKER } from '../plan/plan-prompt.js';

export const DEMO_NOTICE =
  '[Demo answer: no model is configured, so this reply was put together by rules, not by an AI.]';

const OBSERVATION = /^Observation \(tool ([^,]+), act [^)]+\): (.*)$/s;

/**
 * An offline, rule-based model: picks the tools whose name and description share words with
 * the question, fills their inputs from the question, and answers from what they returned.
 * Asked for a plan (plan-and-execute agents), it writes one step per part of the question.
 * Every answer it gives starts with `DEMO_NOTICE`. Never throws; needs no network.
 */
export function demoModel(): Model {
  return {
    name: 'demo',
    demo: true,
    async call(request: ModelRequest): Promise<ModelResult> {
      if (request.signal.aborted) return { ok: false, error: { code: 'CANCELLED', message: 'aborted' } };
      const text = JSON.stringify(decide(request));
      const chars = request.messages.reduce((n, m) => n + m.content.length, 0);
      return {
        ok: true,
        text,
        usage: { inputTokens: Math.ceil(chars / 4), outputTokens: estimateTokens(text) },
      };
    },
  };
}

interface Seen {
  readonly tool: string;
  readonly body: { status?: string; result?: unknown; error?: { code?: string; message?: string } };
}

function decide(request: ModelRequest): Record<string, unknown> {
  if (request.messages[0]?.content.startsWith(PLANNER_MARKER) === true) return demoPlan(request);
  const query = readUserInput(request.messages[1]?.content ?? '');
  const seen = observations(request);
  const used = new Set(seen.map((s) => s.tool));
  const next = rankTools(query, request.tools).find((tool) => !used.has(tool.name));
  if (next !== undefined && !request.finalStep) {
    return {
      thought: `The question mentions what ${next.name} does, so I call it.`,
      action: next.name,
      input: demoInput(query, next.inputSchema),
    };
  }
  return {
    thought: 'I answer from the observations so far.',
    final: `${DEMO_NOTICE} ${summarize(seen, query)}`,
  };
}

function observations(request: ModelRequest): Seen[] {
  const seen: Seen[] = [];
  for (const message of request.messages.slice(2)) {
    if (message.role !== 'user') continue;
    const match = OBSERVATION.exec(message.content);
    if (match === null) continue;
    try {
      seen.push({ tool: match[1] ?? '', body: JSON.parse(match[2] ?? '') as Seen['body'] });
    } catch {
      seen.push({ tool: match[1] ?? '', body: { status: 'summarized' } });
    }
  }
  return seen;
}

function summarize(seen: readonly Seen[], query: string): string {
  if (seen.length === 0) {
    return `No tool matched "${query.slice(0, 80)}", and without a model I cannot answer it myself.`;
  }
  return seen
    .map(({ tool, body }) =>
      body.status === 'ok'
        ? `${tool} returned ${JSON.stringify(body.result)}.`
        : `${tool} did not succeed (${body.error?.code ?? body.status}: ${body.error?.message ?? 'no details'}).`,
    )
    .join(' ');
}

/**
 * Tools sharing words (or CJK pairs) with the question, scored — a word in the tool's name
 * counts twice, an arithmetic expression for an arithmetic tool three times — keeping those
 * scoring at least half the best, best first (ties by name).
 */
export function rankTools(query: string, tools: readonly ToolSpec[]): ToolSpec[] {
  const words = terms(query);
  const scored = tools
    .map((tool) => {
      const name = tool.name.replace(/[_-]/g, ' ').toLowerCase();
      const description = tool.description.toLowerCase();
      const score = words.reduce((n, w) => {
        const hits = (name.includes(w) ? 2 : 0) + (description.includes(w) ? 1 : 0);
        return n + (w === ARITHMETIC ? 3 : 1) * hits;
      }, 0);
      return { tool, score };
    })
    .filter((t) => t.score > 0);
  const best = Math.max(0, ...scored.map((t) => t.score));
  return scored
    .filter((t) => t.score * 2 >= best)
    .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
    .map((t) => t.tool);
}

const ARITHMETIC = 'arithmetic';

const STOP_WORDS = new Set([
  'what',
  'whats',
  'the',
  'and',
  'how',
  'is',
  'in',
  'of',
  'for',
  'please',
  'tell',
  'me',
  'are',
  'can',
  'you',
  'now',
  'today',
]);

function terms(query: string): string[] {
  const lower = query.toLowerCase();
  const latin = (lower.match(/[a-z][a-z0-9]+/g) ?? []).filter((w) => w.length > 2 && !STOP_WORDS.has(w));
  const cjk: string[] = [];
  for (const run of lower.match(/[\u4e00-\u9fff]+/g) ?? []) {
    for (let i = 0; i + 2 <= run.length; i++) cjk.push(run.slice(i, i + 2));
  }
  const symbols = /\d\s*[-+*/^]\s*\d/.test(lower) ? [ARITHMETIC] : [];
  return [...new Set([...latin, ...cjk, ...symbols])];
}
