import type { AnyTool } from 'reins';
import {
  answerWithin,
  checkToolDrift,
  DEFAULT_SOURCE_TIMEOUT_MS,
  type ToolDefinitionSnapshot,
  type ToolDefinitionSource,
  type ToolDriftReport,
} from 'reins/node';
import type { CheckResult } from './health.js';
import type { Logger } from './logging.js';

/** Six hours: the default period of the drift check (it also runs at start-up). */
export const DEFAULT_TOOL_DRIFT_CHECK_MS = 6 * 3_600_000;

/**
 * The periodic check of the tool definitions in use against the approved set (`reins tools
 * approve`, e.g. `tools.approved.json`): at start-up, then every `intervalMs`.
 */
export interface ToolDriftOptions {
  /**
   * The approved definitions, read at every check (e.g. `() => readApprovedTools(file)` from
   * `reins/node`, so an approval takes effect without a restart). `undefined`: none yet (every
   * tool counts as added).
   */
  readonly approved: () =>
    Promise<readonly ToolDefinitionSnapshot[] | undefined> | readonly ToolDefinitionSnapshot[] | undefined;
  /** The tools declared in code to check. Default: the tools of the static agent definitions. */
  readonly tools?: readonly AnyTool[];
  /** Sources re-listed at every check, e.g. the MCP bridges (`McpBridge` is one). */
  readonly sources?: readonly ToolDefinitionSource[];
  /** How often (`REINS_TOOL_DRIFT_CHECK_MS`); default 6 h. The first check runs at start. */
  readonly intervalMs?: number;
  /**
   * How long a source's listing (and `approved`) may take (default 30 s). A source that does
   * not answer in time is reported unchecked; `approved` that does not, fails the check. Either
   * way the check ends: one that never did kept every later check waiting on it.
   */
  readonly sourceTimeoutMs?: number;
}

/** The last check's outcome. */
export type DriftState =
  | { readonly kind: 'pending' }
  | { readonly kind: 'checked'; readonly report: ToolDriftReport; readonly at: number }
  | { readonly kind: 'failed'; readonly reason: string; readonly at: number };

/**
 * Runs the drift check in the background (never twice at once) and keeps its last outcome for
 * `/metrics` and `/health`. Logs a warning when the set of differences changes (and once when
 * it is gone again); a check that fails (an unreadable approved file) is logged and kept.
 */
export class ToolDriftWatch {
  readonly #options: ToolDriftOptions;
  readonly #tools: readonly AnyTool[];
  readonly #logger: Logger;
  readonly #now: () => number;
  #state: DriftState = { kind: 'pending' };
  #signature = '';
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<DriftState> | undefined;

  constructor(options: ToolDriftOptions, agentTools: readonly AnyTool[], logger: Logger, now: () => number) {
    const intervalMs = options.intervalMs ?? DEFAULT_TOOL_DRIFT_CHECK_MS;
    if (!Number.isInteger(intervalMs) || intervalMs <= 0) {
      throw new RangeError(`toolDrift.intervalMs must be a positive integer, got ${intervalMs}`);
    }
    const sourceTimeoutMs = options.sourceTimeoutMs ?? DEFAULT_SOURCE_TIMEOUT_MS;
    if (!Number.isInteger(sourceTimeoutMs) || sourceTimeoutMs <= 0) {
      throw new RangeError(`toolDrift.sourceTimeoutMs must be a positive integer, got ${sourceTimeoutMs}`);
    }
    this.#options = { ...options, intervalMs, sourceTimeoutMs };
    this.#tools = options.tools ?? agentTools;
    this.#logger = logger;
    this.#now = now;
  }

  get state(): DriftState {
    return this.#state;
  }

  /** The first check now, then one every `intervalMs` (the timer does not hold the process open). */
  start(): void {
    if (this.#timer !== undefined) return;
    void this.check();
    this.#timer = setInterval(() => void this.check(), this.#options.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Checks now (or joins the check under way). Never rejects. */
  check(): Promise<DriftState> {
    this.#running ??= this.#check().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #check(): Promise<DriftState> {
    try {
      const timeoutMs = this.#options.sourceTimeoutMs ?? DEFAULT_SOURCE_TIMEOUT_MS;
      const reading = Promise.resolve().then(() => this.#options.approved());
      const approved = (await answerWithin(reading, timeoutMs, 'the approved definitions')) ?? [];
      const report = await checkToolDrift(
        {
          tools: this.#tools,
          ...(this.#options.sources === undefined ? {} : { sources: this.#options.sources }),
        },
        approved,
        { sourceTimeoutMs: timeoutMs },
      );
      this.#state = { kind: 'checked', report, at: this.#now() };
      this.#log(report);
    } catch (thrown) {
      const reason = thrown instanceof Error ? thrown.message : String(thrown);
      this.#state = { kind: 'failed', reason, at: this.#now() };
      this.#logger.warn({ err: reason }, 'tool definition drift check failed');
    }
    return this.#state;
  }

  #log(report: ToolDriftReport): void {
    const signature = report.changes
      .map((c) => `${c.kind}:${c.name}:${c.fields.join('+')}:${c.version ?? ''}`)
      .join(',');
    if (signature === this.#signature) return;
    const hadDrift = this.#signature !== '';
    this.#signature = signature;
    if (report.clean) {
      if (hadDrift) this.#logger.info('tool definitions match the approved set again');
      return;
    }
    this.#logger.warn(
      {
        toolDrift: report.changes.map((c) => ({
          tool: c.name,
          kind: driftLabel(c),
          source: c.source,
          ...(c.fields.length === 0 ? {} : { fields: c.fields }),
          version: c.version,
          approvedVersion: c.approvedVersion,
        })),
        unchecked: report.unchecked,
      },
      `tool definitions differ from the approved set: ${report.changes.length} (review, then \`tools approve\`)`,
    );
  }

  /** `/health`'s `tools` check: always `up` (drift is not an outage), with what differs. */
  health(): CheckResult {
    const s = this.#state;
    if (s.kind === 'pending') return { status: 'up', detail: 'tool definitions not checked yet' };
    const checkedAt = new Date(s.at).toISOString();
    if (s.kind === 'failed')
      return { status: 'up', detail: `drift check failed: ${s.reason}`, driftCheckedAt: checkedAt };
    const { report } = s;
    const drifted = report.changes.map((c) => `${c.name} (${driftLabel(c)})`);
    return {
      status: 'up',
      drifted: report.changes.length,
      driftCheckedAt: checkedAt,
      detail:
        report.changes.length === 0
          ? `${report.checked} tool definitions as approved`
          : `tool definitions differ from the approved set: ${drifted.join(', ')}`,
      ...(report.unchecked.length === 0 ? {} : { unchecked: report.unchecked.map((u) => u.source) }),
    };
  }
}

/** The `kind` label of a change: `added`, `removed`, `changed`, or `changed_unversioned` (no version bump). */
export function driftLabel(change: ToolDriftReport['changes'][number]): string {
  return change.unversioned ? 'changed_unversioned' : change.kind;
}
