import type { EventDraft } from '../events.js';
import { maskPiiText } from '../sanitize/mask-pii.js';
import type { ToolProgress } from '../tool.js';

/** Characters of a tool's progress message or span name kept (untrusted text from the tool). */
const PROGRESS_MESSAGE_CHARS = 200;

/** A tool's progress report as a live `progress` event; `undefined` when it has no finite `progress`. */
export function toolProgressDraft(
  index: number,
  actId: string,
  tool: string,
  update: ToolProgress | undefined,
  at: number,
): EventDraft | undefined {
  const { progress, total, message } = update ?? {};
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
  return {
    type: 'step',
    phase: 'progress',
    index,
    source: 'tool',
    actId,
    tool,
    progress,
    total: typeof total === 'number' && Number.isFinite(total) ? total : undefined,
    message: typeof message === 'string' ? maskPiiText(message.slice(0, PROGRESS_MESSAGE_CHARS)) : undefined,
    startedAt: at,
    endedAt: at,
    durationMs: 0,
  };
}

/** A named part of a tool call (`ctx.span`) as a live `progress` event with its own times. */
export function toolSpanDraft(
  index: number,
  actId: string,
  tool: string,
  name: string,
  startedAt: number,
  endedAt: number,
  ok: boolean,
): EventDraft {
  return {
    type: 'step',
    phase: 'progress',
    index,
    source: 'tool_span',
    actId,
    tool,
    name: maskPiiText(name.slice(0, PROGRESS_MESSAGE_CHARS)),
    ok,
    startedAt,
    endedAt,
    durationMs: endedAt - startedAt,
  };
}

/** A streaming model's text delta as a live `progress` event. */
export function modelDeltaDraft(index: number, text: string, at: number): EventDraft {
  return {
    type: 'step',
    phase: 'progress',
    index,
    source: 'model',
    text,
    startedAt: at,
    endedAt: at,
    durationMs: 0,
  };
}

/** Where a loop appends its live events: its log (open until `done`). */
interface LiveLog {
  readonly closed: boolean;
  append(draft: EventDraft, at: number): unknown;
}

/** A tool's progress report, appended at `clock.now()` as a live event of step `index` (none once the log closed). */
export function appendToolProgress(
  log: LiveLog,
  clock: { now(): number },
  index: number,
  actId: string,
  tool: string,
  update: ToolProgress,
): void {
  if (log.closed) return;
  const at = clock.now();
  const draft = toolProgressDraft(index, actId, tool, update, at);
  if (draft !== undefined) log.append(draft, at);
}

/** A named part of a tool call, appended as a live event of step `index` (none once the log closed). */
export function appendToolSpan(
  log: LiveLog,
  index: number,
  actId: string,
  tool: string,
  name: string,
  startedAt: number,
  endedAt: number,
  ok: boolean,
): void {
  if (log.closed) return;
  log.append(toolSpanDraft(index, actId, tool, name, startedAt, endedAt, ok), endedAt);
}
