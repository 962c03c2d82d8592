import type { RunEvent } from '../events.js';
import { resolveLimits, type RunLimits } from '../limits.js';
import { NO_USAGE, type Model } from '../model.js';
import { ANONYMOUS, type Principal } from '../principal.js';
import { buildRunRecord, type RunRecord } from '../record.js';
import type { AnyTool } from '../tool.js';
import { withDefaults, type RunDeps } from '../util/deps.js';
import { describeThrown } from '../errors.js';
import { EventLog } from './event-log.js';
import { PromptBuilder } from './prompt.js';
import { RunAbort } from './run-abort.js';
import { runLoop } from './run-loop.js';
import { RUN_CANCELLED, RUN_DEADLINE } from './abort-reasons.js';
import { toolSet } from './tool-catalog.js';
import { timeoutHierarchy } from '../timeout-hierarchy.js';
import { defaultToolPolicies, type ToolPolicies } from '../policies/tool-policies.js';
import { readLargeField, type BlobStore } from '../blob-store.js';
import { defaultBlobStore } from './execute-action.js';

export interface RunAgentOptions {
  readonly query: string;
  readonly model: Model;
  readonly tools: readonly AnyTool[];
  /** The authenticated caller (from the server, never from the model). */
  readonly principal?: Principal;
  readonly limits?: Partial<RunLimits>;
  /** Aborting it cancels the run at once: the in-flight model or tool call is aborted too. */
  readonly signal?: AbortSignal;
  /** Prepended to the system prompt (the agent's role and rules). */
  readonly instructions?: string;
  readonly agent?: string;
  readonly runId?: string;
  readonly deps?: Partial<RunDeps>;
  /**
   * The tools' guards: breakers and concurrency caps that outlast a run, policy overrides,
   * metrics hooks. Default: `defaultToolPolicies`, shared by all runs of the process.
   */
  readonly policies?: ToolPolicies;
  /** Where results over `limits.largeResultBytes` are kept (default: in-process, bounded). */
  readonly blobStore?: BlobStore;
}

/** A started run: iterate it for live events (each iterator replays from `start`). */
export interface AgentRun extends AsyncIterable<RunEvent> {
  readonly runId: string;
  /** The log so far (append-only). */
  readonly events: readonly RunEvent[];
  /** Settles when the run has ended; never rejects. */
  readonly result: Promise<RunRecord>;
  /** Cancels the run (status `cancelled`). No model or tool call starts afterwards. */
  cancel(): void;
  /** A large result by its reference (`observation.resultRef.ref`); `undefined` when no longer stored. */
  readLargeField(ref: string): Promise<unknown>;
}

/**
 * Starts a bounded ReAct run. Programmer mistakes (duplicate tool names, invalid limits)
 * throw here, synchronously; everything that happens during the run is reported as events.
 */
export function runAgent(options: RunAgentOptions): AgentRun {
  const deps = withDefaults(options.deps);
  const limits = resolveLimits(options.limits);
  const { registry, specs, names } = toolSet(options.tools);
  const timeouts = timeoutHierarchy(limits, options.tools);
  const runId = options.runId ?? deps.newId();
  const log = new EventLog(runId, deps.now);
  const blobStore = options.blobStore ?? defaultBlobStore;

  const abort = new RunAbort();
  const cancel = (): void => abort.abort(RUN_CANCELLED);
  const external = options.signal;
  if (external?.aborted) cancel();
  else external?.addEventListener('abort', cancel, { once: true });
  const deadline = deps.setTimer(() => abort.abort(RUN_DEADLINE), limits.deadlineMs);

  const cleanup = (): void => {
    deps.clearTimer(deadline);
    external?.removeEventListener('abort', cancel);
  };
  const finished = runLoop({
    agent: options.agent ?? 'react',
    model: options.model,
    specs,
    toolNames: names,
    timeouts,
    abort,
    prompt: new PromptBuilder(options.query, specs, limits, options.instructions),
    limits,
    log,
    deps,
    act: {
      registry,
      principal: options.principal ?? ANONYMOUS,
      runId,
      signal: abort,
      defaultTimeoutMs: limits.toolTimeoutMs,
      maxStringChars: limits.maxStringChars,
      largeResultBytes: limits.largeResultBytes,
      blobStore,
      deps,
      policies: options.policies ?? defaultToolPolicies,
      progress: undefined, // the loop connects itself (one object per run, not a copy)
    },
  }).then(cleanup, (thrown: unknown) => {
    // Last resort (runLoop ends its own log on errors): never leave a consumer hanging.
    if (!log.closed) {
      log.append({
        type: 'error',
        code: 'INTERNAL',
        message: `reins loop failed: ${describeThrown(thrown)}`,
      });
      log.append({ type: 'done', status: 'error', steps: 0, usage: NO_USAGE, durationMs: 0 });
    }
    cleanup();
  });

  return new Run(runId, log, finished, cancel, blobStore);
}

/**
 * The handle `runAgent` returns. `result` builds the record on first access, so a consumer
 * that only follows events never pays for it. A class rather than an object literal: a
 * literal with per-run getter closures is a dictionary-mode object (~450 bytes more per run).
 */
class Run implements AgentRun {
  readonly events: readonly RunEvent[];
  readonly #log: EventLog;
  readonly #finished: Promise<void>;
  #result: Promise<RunRecord> | undefined;
  readonly #blobStore: BlobStore;

  readLargeField(ref: string): Promise<unknown> {
    return readLargeField(this.#blobStore, ref);
  }

  constructor(
    readonly runId: string,
    log: EventLog,
    finished: Promise<void>,
    readonly cancel: () => void,
    blobStore: BlobStore,
  ) {
    this.#blobStore = blobStore;
    this.events = log.events; // the log's own array: live, append-only
    this.#log = log;
    this.#finished = finished;
  }

  get result(): Promise<RunRecord> {
    return (this.#result ??= this.#finished.then(() => buildRunRecord(this.#log.events)));
  }

  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    return this.#log.follow();
  }
}
