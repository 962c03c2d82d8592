import {
  context,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';
import type { ObserveStep, RunEvent } from 'reins';
import { isPause } from './run-feed.js';
import type { RunTraceIds } from './run-trace-ids.js';
import type { TraceParent } from './trace-parent.js';

/** How a run's trace is named: the trace id chosen when it was admitted, and the ids' source. */
export interface RunTraceChoice {
  readonly traceId?: string | undefined;
  readonly traceIds?: RunTraceIds | undefined;
  /** The caller's span (its `traceparent`): the run span is its child, in its trace. */
  readonly parent?: TraceParent | undefined;
}

/** The ids of a run's `reins.run` span, for its record and its log lines. */
export interface RunSpanIds {
  readonly traceId: string;
  readonly spanId: string;
}

/**
 * Builds the run's spans from its events, with the events' own timestamps as start and end
 * times: `reins.run` → `reins.step` (one per model step) → `reins.model_call` and
 * `reins.tool_call`. Nothing here times anything itself, so the spans say exactly what the
 * run log says. With no OpenTelemetry SDK registered the API's tracer is a no-op.
 */
export class RunSpans {
  readonly #tracer: Tracer;
  #run: Span | undefined;
  /** The run span has ended (at the run's end, or detached). */
  #ended = false;
  #step: Span | undefined;
  #stepIndex = 0;
  #lastEnd = 0;
  readonly #tools = new Map<string, Span>();
  readonly #approvals = new Map<string, Span>();
  readonly #choice: RunTraceChoice;

  constructor(tracer: Tracer, choice: RunTraceChoice = {}) {
    this.#tracer = tracer;
    this.#choice = choice;
  }

  /** The run span's ids once it has started; `undefined` before, and when nothing traces (no SDK). */
  get ids(): RunSpanIds | undefined {
    const context = this.#run?.spanContext();
    // Remote: no SDK, and the API's no-op span carries the caller's ids (not a span of this run).
    if (context === undefined || !trace.isSpanContextValid(context) || context.isRemote === true)
      return undefined;
    return { traceId: context.traceId, spanId: context.spanId };
  }

  observe(event: RunEvent): void {
    if (this.#run === undefined && event.type !== 'start') this.#resume(event);
    switch (event.type) {
      case 'start':
        this.#run = this.#startRun({
          startTime: event.at,
          attributes: {
            'reins.run_id': event.runId,
            'reins.agent': event.agent,
            'reins.model': event.model,
            'reins.max_steps': event.limits.maxSteps,
          },
        });
        return;
      case 'step':
        return this.#onStep(event);
      case 'error':
        this.#run?.setStatus({ code: SpanStatusCode.ERROR, message: `${event.code}: ${event.message}` });
        this.#run?.setAttribute('reins.error_code', event.code);
        return;
      case 'approval':
        this.#approvals.set(
          event.actId,
          this.#tracer.startSpan(
            'reins.approval',
            {
              startTime: event.at,
              attributes: {
                'reins.run_id': event.runId,
                'reins.step': event.index,
                'reins.act_id': event.actId,
                'reins.tool': event.tool,
              },
            },
            this.#parent(this.#step),
          ),
        );
        return;
      case 'done': {
        if (isPause(event.status)) {
          // Not the end: the run waits for its user, then goes on in the same log.
          this.#run?.addEvent('reins.paused', { 'reins.status': event.status }, event.at);
          return;
        }
        this.#endOpen(event.at); // approvals cancelled while waiting, tools mid-call
        const run = this.#run;
        if (run === undefined) return;
        this.#ended = true;
        run.setAttribute('reins.status', event.status);
        run.setAttribute('reins.steps', event.steps);
        if (event.stopReason !== undefined) run.setAttribute('reins.stop_reason', event.stopReason);
        run.end(event.at);
        return;
      }
      default:
        return;
    }
  }

  #onStep(event: Extract<RunEvent, { type: 'step' }>): void {
    if (event.phase === 'progress') {
      // A named part of a tool call (`ctx.span`): a child of that call's span, at its own times.
      if (event.source !== 'tool_span') return;
      const span = this.#tracer.startSpan(
        `reins.tool_call.${event.name}`,
        {
          startTime: event.startedAt,
          attributes: {
            'reins.run_id': event.runId,
            'reins.act_id': event.actId,
            'reins.tool': event.tool,
            'reins.span': event.name,
          },
        },
        this.#parent(this.#tools.get(event.actId) ?? this.#step),
      );
      if (!event.ok) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(event.endedAt);
      return;
    }
    if (event.index !== this.#stepIndex) {
      this.#endStep(this.#lastEnd);
      this.#stepIndex = event.index;
      this.#step = this.#tracer.startSpan(
        'reins.step',
        {
          startTime: event.startedAt,
          attributes: { 'reins.run_id': event.runId, 'reins.step': event.index },
        },
        this.#parent(this.#run),
      );
    }
    this.#lastEnd = Math.max(this.#lastEnd, event.endedAt);
    const parent = this.#parent(this.#step);
    switch (event.phase) {
      case 'reason': {
        const span = this.#tracer.startSpan(
          'reins.model_call',
          {
            startTime: event.startedAt,
            attributes: {
              'reins.run_id': event.runId,
              'reins.step': event.index,
              'reins.model': event.model,
              'reins.tokens.input': event.usage.inputTokens,
              'reins.tokens.output': event.usage.outputTokens,
              'reins.parse_ok': event.parse.ok,
            },
          },
          parent,
        );
        span.end(event.endedAt);
        return;
      }
      case 'act': {
        const span = this.#tracer.startSpan(
          'reins.tool_call',
          {
            startTime: event.startedAt,
            attributes: {
              'reins.run_id': event.runId,
              'reins.step': event.index,
              'reins.act_id': event.actId,
              'reins.tool': event.tool,
            },
          },
          parent,
        );
        this.#tools.set(event.actId, span);
        return;
      }
      case 'observe': {
        this.#endApproval(event);
        const span = this.#tools.get(event.actId);
        if (span === undefined) return;
        this.#tools.delete(event.actId);
        const { status, error } = event.observation;
        span.setAttribute('reins.status', status);
        if (error !== undefined) span.setAttribute('reins.error_code', error.code);
        if (status !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: error?.code ?? status });
        span.end(event.endedAt);
        return;
      }
    }
  }

  /**
   * A run rebuilt from its log (after a restart, or by another worker) is watched from where its
   * history ends: with its trace id stored, what it does now goes in the same trace, under a
   * `reins.run` span of this stretch (`reins.resumed`). Without one, the steps are roots as before.
   */
  #resume(event: RunEvent): void {
    const { traceId, traceIds } = this.#choice;
    if (traceId === undefined || traceIds === undefined) return;
    this.#run = this.#startRun({
      startTime: event.type === 'step' ? event.startedAt : event.at,
      attributes: { 'reins.run_id': event.runId, 'reins.resumed': true },
    });
  }

  /**
   * A `reins.run` span: the child of the caller's span when the run was started with one, else
   * a root with the trace id chosen at admission (or the SDK's own).
   */
  #startRun(options: SpanOptions): Span {
    const { traceId, traceIds, parent } = this.#choice;
    if (parent !== undefined) {
      const caller = trace.setSpanContext(context.active(), {
        traceId: parent.traceId,
        spanId: parent.spanId,
        traceFlags: parent.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
        isRemote: true,
      });
      return this.#tracer.startSpan('reins.run', options, caller);
    }
    const start = (): Span => this.#tracer.startSpan('reins.run', options);
    return traceId === undefined || traceIds === undefined ? start() : traceIds.withTraceId(traceId, start);
  }

  /**
   * This process lets go of the run before its end — a shutdown leaving its stored log to be
   * resumed, a worker of the shared mode handing it on at a pause, its conversation deleted:
   * its open spans end at `at`, the run span marked `reins.detached` (no status: what happens
   * next is in the stretch that takes the run over, if any). Nothing after this is traced.
   */
  detach(at: number): void {
    const run = this.#run;
    if (run === undefined || this.#ended) return;
    this.#ended = true;
    this.#endOpen(at);
    run.setAttribute('reins.detached', true);
    run.end(Math.max(at, this.#lastEnd));
  }

  #endOpen(at: number): void {
    for (const span of this.#approvals.values()) span.end(at);
    this.#approvals.clear();
    for (const span of this.#tools.values()) span.end(at);
    this.#tools.clear();
    this.#endStep(at);
  }

  /** The wait for the user ends when the answer (or the expiry) came. */
  #endApproval(event: ObserveStep): void {
    const span = this.#approvals.get(event.actId);
    if (span === undefined) return;
    this.#approvals.delete(event.actId);
    const outcome = event.observation.approval;
    if (outcome !== undefined) span.setAttribute('reins.approval', outcome.kind);
    span.end(outcome?.at ?? event.startedAt);
  }

  #endStep(at: number): void {
    this.#step?.end(Math.max(at, this.#lastEnd));
    this.#step = undefined;
  }

  #parent(span: Span | undefined) {
    return span === undefined ? context.active() : trace.setSpan(context.active(), span);
  }
}
