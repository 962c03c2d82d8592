export {
  parseDecision,
  validateDecision,
  decisionFromToolCalls,
  type ActionCall,
  type Decision,
  type DecisionParse,
} from './decision.js';
export { decisionSchema } from './decision-schema.js';
export {
  parseStructured,
  DEFAULT_PARSE_LIMITS,
  type ParseVia,
  type ParseFailure,
  type ParseLimits,
  type StructuredParse,
  type StructuredSchema,
  type Validation,
} from './parse-structured.js';
export { loadRepairParsers } from './repair-parsers.js';
