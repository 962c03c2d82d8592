import type { RunEvent } from '../events.js';

const MAX = 240;

/** One run event as a line (or two) of the live trace; `undefined` for events not shown. */
export function formatEvent(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'start':
      return `run ${event.runId} · model ${event.model}${event.demo ? ' (DEMO: no model configured, answers are rule-based)' : ''} · tools ${event.tools.join(', ') || 'none'} · max ${event.limits.maxSteps} steps${event.maxStepsAuto === undefined ? '' : ` (auto: ${event.maxStepsAuto.reason})`}, model call ≤ ${event.timeouts.modelTimeoutMs} ms, deadline ${event.limits.deadlineMs} ms${event.inputCleaned === undefined ? '' : ` · input cleaned: ${event.inputCleaned.markers.join(' ')}`}`;
    case 'step':
      switch (event.phase) {
        case 'reason': {
          const head = `[${event.index}] Reason  (${ms(event.durationMs)}, ${event.parse.ok ? event.parse.via : `unparsed: ${event.parse.failure}`}${event.toolsOffered ? '' : ', no tools'}${event.route === undefined ? '' : `, ${event.model}: ${event.route}`})`;
          const d = event.decision;
          if (d === undefined) return `${head} ${clip(event.raw)}`;
          const thought = d.thought === '' ? '' : ` ${clip(d.thought)}`;
          const next =
            d.kind === 'action'
              ? `→ ${d.action} ${clip(JSON.stringify(d.input))}`
              : d.kind === 'actions'
                ? `→ ${d.actions.length} calls: ${clip(d.actions.map((a) => a.action).join(', '))}`
                : d.kind === 'ask'
                  ? '→ ask the user'
                  : '→ final answer';
          return `${head}${thought}\n    ${next}`;
        }
        case 'act':
          return `[${event.index}] Act     ${event.planStepId === undefined ? '' : `${event.planStepId}: `}${event.tool} ${clip(JSON.stringify(event.input))}  (act ${event.actId})`;
        case 'plan': {
          const head = `[${event.index}] Plan v${event.version} (${event.reason}) ${event.validation.ok ? 'valid' : 'INVALID'}`;
          const steps = event.plan.steps.map(
            (s) =>
              `    ${s.id}: ${s.action} ${clip(JSON.stringify(s.input))}${s.dependsOn.length === 0 ? '' : ` after ${s.dependsOn.join(', ')}`}`,
          );
          const problems = event.validation.problems.map((p) => `    ! ${p.code}: ${clip(p.message)}`);
          return [head, ...steps, ...problems].join('\n');
        }
        case 'observe': {
          const o = event.observation;
          const body = o.status === 'ok' ? JSON.stringify(o.result) : `${o.error?.code}: ${o.error?.message}`;
          return `[${event.index}] Observe ${event.planStepId === undefined ? '' : `${event.planStepId}: `}${o.status} (${ms(o.durationMs)}) ${clip(body ?? '')}`;
        }
        case 'progress':
          if (event.source === 'model') return undefined; // streamed text: the reason line follows
          if (event.source === 'node') return undefined; // node traces: for spans, not the terminal
          if (event.source === 'tool_span') {
            return `[${event.index}] …       ${event.tool} › ${clip(event.name)} ${event.ok ? 'ok' : 'failed'} (${ms(event.durationMs)})`;
          }
          return `[${event.index}] …       ${event.tool} ${event.progress}${event.total === undefined ? '' : `/${event.total}`}${event.message === undefined ? '' : ` ${clip(event.message)}`}`;
      }
      return undefined;
    case 'message': {
      const label = event.intent === 'ask' ? 'Question' : event.intent === 'notice' ? 'Notice' : 'Answer';
      return `${label}${event.format === 'raw' ? ' (raw: the model reply was not valid structured output)' : ''}: ${event.text}`;
    }
    case 'clarify': {
      const options = event.candidates.map((c, i) => `    ${i + 1}. ${c.label} (${c.value})`);
      return [`Question: ${event.question}`, ...options].join('\n');
    }
    case 'approval':
      return `Approval needed: ${event.tool} ${clip(JSON.stringify(event.input))}`;
    case 'error':
      return `Error ${event.code}: ${event.message}`;
    case 'done':
      return `done: ${event.status}${event.stopReason ? ` (${event.stopReason})` : ''} · ${event.steps} model step(s) · ${event.usage.inputTokens}+${event.usage.outputTokens} tokens · ${ms(event.durationMs)}`;
  }
}

function ms(value: number): string {
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > MAX ? `${flat.slice(0, MAX)}…` : flat;
}
