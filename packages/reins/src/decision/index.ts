export { parseDecision, decisionSchema, type Decision, type DecisionParse } from './decision.js';
export {
  parseStructured,
  DEFAULT_PARSE_LIMITS,
  type ParseVia,
  type ParseFailure,
  type ParseLimits,
  type StructuredParse,
} from './parse-structured.js';
