import { decisionFromToolCalls, parseDecision, type DecisionParse } from '../decision/index.js';
import { loadRepairParsers, repairMisses } from '../decision/repair-parsers.js';
import type { ModelResult } from '../model.js';

type Reply = Extract<ModelResult, { ok: true }>;
type TextParser = (text: string) => DecisionParse;

/**
 * What a model step decided: its native tool calls, else its text (`parse`, default
 * `parseDecision`). A reply that needed the one repair before the repair parsers had loaded
 * is parsed again once they have (a promise then, the only time one is made).
 */
export function parseReply(
  result: Reply,
  parse: TextParser | undefined,
): DecisionParse | Promise<DecisionParse> {
  const misses = repairMisses();
  const parsed = parseOnce(result, parse);
  if (repairMisses() === misses) return parsed;
  return loadRepairParsers()
    .catch(() => undefined)
    .then(() => parseOnce(result, parse));
}

function parseOnce(result: Reply, parse: TextParser | undefined): DecisionParse {
  const toolCalls = result.toolCalls;
  if (toolCalls !== undefined && toolCalls.length > 0) return decisionFromToolCalls(result.text, toolCalls);
  return (parse ?? parseDecision)(result.text);
}
