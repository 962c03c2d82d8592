// The public API of `reins`. Every export is a promise; this entry imports nothing Node-only.
export { runAgent, type RunAgentOptions, type AgentRun } from './loop/run-agent.js';
export { executeAction, type ActEnv, type ActRequest } from './loop/execute-action.js';
export { resolveTurn, actionKey, type Resolution, type TurnState } from './loop/resolve-turn.js';
export { toolSpec, toolRegistry } from './loop/tool-catalog.js';
export {
  parseDecision,
  decisionSchema,
  validateDecision,
  decisionFromToolCalls,
  parseStructured,
  DEFAULT_PARSE_LIMITS,
  type ActionCall,
  type Decision,
  type DecisionParse,
  type ParseVia,
  type ParseFailure,
  type ParseLimits,
  type StructuredParse,
  type StructuredSchema,
  type Validation,
} from './decision/index.js';
export {
  createToolPolicies,
  defaultToolPolicies,
  ToolPolicies,
  DEFAULT_TOOL_POLICY,
  type ToolPoliciesOptions,
  type ToolCallReport,
  type BreakerState,
  type ResolvedPolicy,
} from './policies/tool-policies.js';
export {
  defineTool,
  type Tool,
  type AnyTool,
  type ToolContext,
  type ToolProgress,
  type ToolPolicy,
  type ToolFallback,
  type CheckResult,
} from './tool.js';
export type {
  Model,
  ModelRequest,
  ModelResult,
  ModelFailure,
  ChatMessage,
  ToolSpec,
  ToolCall,
  Usage,
} from './model.js';
export { estimateTokens } from './model.js';
export type {
  Observation,
  ObservationError,
  ObservationLayer,
  ObservationStatus,
  Degraded,
} from './observation.js';
export type {
  RunEvent,
  RunStatus,
  StopReason,
  StepPhase,
  StartEvent,
  StepEvent,
  ReasonStep,
  ActStep,
  ObserveStep,
  ProgressStep,
  ModelProgressStep,
  ToolProgressStep,
  ToolSpanStep,
  MessageEvent,
  ApprovalEvent,
  ErrorEvent,
  DoneEvent,
} from './events.js';
export { memoryBlobStore, readLargeField, blobRefFor, type BlobStore, type BlobRef } from './blob-store.js';
export type { ApprovalDecision, ApprovalAnswer, ApprovalOutcome, PendingApproval } from './loop/approvals.js';
export { defineAnswer, type AnswerFormat, type AnswerEvidence } from './answer-format.js';
export { buildRunRecord, RUN_RECORD_VERSION, type RunRecord, type RecordStep } from './record.js';
export { DEFAULT_LIMITS, resolveLimits, type RunLimits } from './limits.js';
export { timeoutHierarchy, DEFAULT_MODEL_TIMEOUT_MS, type TimeoutHierarchy } from './timeout-hierarchy.js';
export { ANONYMOUS, type Principal } from './principal.js';
export { ToolError, ERROR_CODES, isErrorCode, type ErrorCode, type ErrorData } from './errors.js';
export { maskPii, maskPiiText } from './sanitize/mask-pii.js';
export { canonicalJson } from './util/canonical-json.js';
export { defaultDeps, type RunDeps } from './util/deps.js';
export { demoModel, DEMO_NOTICE } from './models/demo-model.js';
export { ScriptModel, scriptModel, parseScript, type ScriptReply } from './models/script-model.js';
