import type { Principal } from '../principal.js';
import type { BlobStore } from '../blob-store.js';
import type { AnyTool, ToolProgress } from '../tool.js';
import type { RunDeps } from '../util/deps.js';
import type { ToolPolicies } from '../policies/tool-policies.js';
import type { RunLimits } from '../limits.js';
import type { ApprovalOutcome } from './approvals.js';
import type { AbortLike } from './run-abort.js';
import type { RunReplay } from './run-replay.js';

/** What acting needs from the run. Shared by the ReAct loop and (later) the plan executor. */
export interface ActEnv {
  readonly registry: ReadonlyMap<string, AnyTool>;
  readonly principal: Principal;
  readonly runId: string;
  /** Aborts when the run is cancelled or its deadline passes. */
  readonly signal: AbortLike;
  readonly defaultTimeoutMs: number;
  /** Where results over `largeResultBytes` go (default: `defaultBlobStore`, in-process). */
  readonly blobStore?: BlobStore | undefined;
  /** Results larger than this (UTF-8 bytes of their JSON) are stored by reference (default 100 000). */
  readonly largeResultBytes?: number;
  /** Longest model-written string without its own schema limit (default 100). */
  readonly maxStringChars?: number;
  readonly deps: RunDeps;
  /** The tools' guards (breakers, caps) and metrics hooks, shared across runs (default: `defaultToolPolicies`). */
  readonly policies?: ToolPolicies | undefined;
  /**
   * Asks the run's user to approve a call of a tool that needs it (validated input in hand);
   * absent = no approval step (direct `executeAction` callers are the app's own code).
   */
  approval?: ApprovalGate | undefined;
  /** Where tools' progress reports go (the loop, which sets it when it starts); absent = dropped. */
  progress?: ToolProgressSink | undefined;
  /** A run rebuilt from its log: completed acts are not made again (see `RunReplay`). */
  replay?: RunReplay | undefined;
}

/** A run's act environment from its parts (ReAct and plan runs build it the same way). */
export function runActEnv(
  registry: ReadonlyMap<string, AnyTool>,
  principal: Principal,
  runId: string,
  signal: AbortLike,
  limits: RunLimits,
  blobStore: BlobStore,
  deps: RunDeps,
  policies: ToolPolicies | undefined,
): ActEnv {
  return {
    registry,
    principal,
    runId,
    signal,
    defaultTimeoutMs: limits.toolTimeoutMs,
    maxStringChars: limits.maxStringChars,
    largeResultBytes: limits.largeResultBytes,
    blobStore,
    deps,
    policies,
    progress: undefined, // the run connects itself (one object per run, not a copy)
  };
}

export interface ApprovalGate {
  requestApproval(actId: string, tool: string, input: unknown): Promise<ApprovalOutcome>;
}

export interface ToolProgressSink {
  toolProgress(actId: string, tool: string, update: ToolProgress): void;
  /** Optional: a sink that does not record tool spans drops them. */
  toolSpan?(actId: string, tool: string, name: string, startedAt: number, endedAt: number, ok: boolean): void;
}

export interface ActRequest {
  readonly actId: string;
  readonly tool: string;
  readonly input: unknown;
  /** Set for a fallback's own call: its fallback is not followed. */
  readonly noFallback?: boolean;
}
