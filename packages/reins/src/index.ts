// The public API of `reins`. Every export is a promise; this entry imports nothing Node-only.
export { runAgent, type RunAgentOptions, type AgentRun } from './loop/run-agent.js';
export { stopNotice, type StopFacts, type StopNoticeWriter } from './loop/stop-notice.js';
export { executeAction } from './loop/execute-action.js';
export type { ActEnv, ActRequest } from './loop/act-env.js';
export { resolveTurn, type Resolution, type TurnState } from './loop/resolve-turn.js';
export { actionKey } from './loop/action-keys.js';
export { toolSpec, toolRegistry } from './loop/tool-catalog.js';
export {
  parseDecision,
  decisionSchema,
  validateDecision,
  decisionFromToolCalls,
  parseStructured,
  loadRepairParsers,
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
  memoryBreakerStore,
  type BreakerStore,
  type BreakerSettings,
  type BreakerVerdict,
} from './policies/breaker-store.js';
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
export {
  runPlanAgent,
  DEFAULT_MAX_PLAN_STEPS,
  DEFAULT_MAX_REPLANS,
  type PlanAgentOptions,
  type PlanRun,
} from './plan/run-plan.js';
export {
  parsePlannerReply,
  validatePlannerReply,
  type Plan,
  type PlanStep,
  type PlanProblem,
  type PlanProblemCode,
  type PlanVersionReason,
  type PlannerReply,
  type Candidate,
} from './plan/plan-schema.js';
export { validatePlan, type PlanValidation, type PlanValidationContext } from './plan/validate-plan.js';
export { topologicalOrder } from './plan/find-cycle.js';
/** How a planner request starts (a model serving both roles, like the demo models, tells them apart by it). */
export { PLANNER_MARKER } from './plan/plan-prompt.js';
export {
  expandPrompt,
  keptPrompts,
  isPromptRun,
  type PromptSnapshot,
  type PromptMessage,
  type PromptRun,
  type ExpandedPrompt,
} from './prompt-snapshot.js';
export {
  codeWhitelist,
  formatValidator,
  isChineseIdNumber,
  isBankCardNumber,
  type DomainValidator,
  type CodeEntry,
  type CodeWhitelistOptions,
  type FormatOptions,
} from './plan/domain-validators.js';
export { resolveRefs, findRefs, parseRef, type Ref, type FoundRef } from './plan/resolve-refs.js';
export { TaskState, type TaskEntry, type TaskStateSnapshot } from './plan/task-state.js';
export {
  executePlan,
  type ExecutePlanEnv,
  type PlanExecution,
  type StepOutcome,
} from './plan/execute-plan.js';
export {
  runNodes,
  initialPlanState,
  type PlanNode,
  type PlanState,
  type PlanContext,
  type PlanDraft,
  type PlanEnd,
} from './plan/nodes.js';
export {
  plannerNode,
  validatorNode,
  clarifierNode,
  executorNode,
  responderNode,
  patchPlan,
  DEFAULT_PLAN_NODES,
} from './plan/plan-nodes.js';
export { routerNode } from './plan/plan-router.js';
export {
  DEFAULT_MAX_QUESTIONS,
  MAX_ANSWER_CHARS,
  type ClarifyOptions,
  type ClarifyAnswer,
  type ClarifyAnswerResult,
  type ClarifyOutcome,
  type PendingQuestion,
} from './plan/clarify.js';
export {
  validateReasoning,
  validateReasonedDecision,
  parseReasonedDecision,
  type StructuredReasoning,
  type ReasonedDecision,
} from './decision/structured-reasoning.js';
export type {
  RunEvent,
  RunStatus,
  StopReason,
  StepPhase,
  StartEvent,
  InputCleaned,
  StepEvent,
  ReasonStep,
  ActStep,
  ObserveStep,
  ProgressStep,
  ModelProgressStep,
  ToolProgressStep,
  ToolSpanStep,
  NodeSpanStep,
  PlanStepEvent,
  ClarifyEvent,
  ClarifyCandidate,
  MessageEvent,
  ApprovalEvent,
  ErrorEvent,
  DoneEvent,
  ResumeEvent,
  ResumeOutcome,
  EventDraft,
} from './events.js';
export { memoryBlobStore, readLargeField, blobRefFor, type BlobStore, type BlobRef } from './blob-store.js';
export type { ApprovalDecision, ApprovalAnswer, ApprovalOutcome, PendingApproval } from './loop/approvals.js';
export { defineAnswer, type AnswerFormat, type AnswerEvidence } from './answer-format.js';
export { buildRunRecord, RUN_RECORD_VERSION, type RunRecord, type RecordStep } from './record.js';
export { DEFAULT_LIMITS, resolveLimits, type RunLimits, type RunLimitsInput } from './limits.js';
export { timeoutHierarchy, DEFAULT_MODEL_TIMEOUT_MS, type TimeoutHierarchy } from './timeout-hierarchy.js';
export { ANONYMOUS, type Principal } from './principal.js';
export {
  ToolError,
  DependencyUnavailableError,
  ERROR_CODES,
  isErrorCode,
  type ErrorCode,
  type ErrorData,
} from './errors.js';
export { maskPii, maskPiiText } from './sanitize/mask-pii.js';
export {
  neutralizeMarkers,
  readUserInput,
  userInputBlock,
  USER_INPUT_IS_DATA,
  type CleanedText,
} from './sanitize/user-input.js';
export { autoMaxSteps, AUTO_MAX_STEPS, AUTO_MIN_STEPS, type AutoSteps } from './auto-steps.js';
export { chooseLimits, type ChosenLimits } from './loop/run-limits.js';
export { canonicalJson } from './util/canonical-json.js';
export { localRefTarget } from './util/local-ref.js';
export { loadLazyParts } from './lazy-parts.js';
export { defaultDeps, type RunDeps } from './util/deps.js';
export { FollowCursor } from './util/follow-cursor.js';
export { demoModel, DEMO_NOTICE } from './models/demo-model.js';
export { ScriptModel, scriptModel, parseScript, type ScriptReply } from './models/script-model.js';
export {
  isPausedStatus,
  statusAfter,
  type JsonValue,
  type LoadedRun,
  type NewStoredRun,
  type RunStore,
  type StoredRun,
  type StoredRunStatus,
} from './store/run-store.js';
export { memoryRunStore } from './store/memory-run-store.js';
export { memoryConversationStore } from './store/memory-conversation-store.js';
export {
  conversationTitle,
  type Conversation,
  type ConversationStore,
  type ConversationTurn,
  type LoadedConversation,
} from './store/conversation-store.js';
export type {
  Embedder,
  MemoryItem,
  MemoryStore,
  RecallOptions,
  RecalledMemory,
} from './store/memory-store.js';
export { interruptedEnding, type DurableRunOptions, type NeverStarted } from './loop/durable-run.js';
export { RunReplay, type ReplayedAct } from './loop/run-replay.js';
export type { EventSink } from './loop/log-writer.js';
export {
  conversationContext,
  parseContextTurns,
  CONTEXT_HEADER,
  type HistoryBudget,
} from './store/conversation-context.js';
export { memoryMemoryStore, type MemoryMemoryStoreOptions } from './store/memory-memory-store.js';
export { memoryTerms, memoryWords, type WeightedTerm } from './store/memory-terms.js';
export {
  scoreMemory,
  rankRecalled,
  memoryText,
  tryEmbed,
  cosine,
  trigramSimilarities,
  TRIGRAM_FLOOR,
  VECTOR_FLOOR,
  DEFAULT_MIN_SCORE,
  DEFAULT_RECALL_LIMIT,
  MAX_MEMORY_CHARS,
  type RecallSignals,
} from './store/memory-recall.js';
