import { h } from './dom.js';
import { familyRow } from './family-steps.js';
import { t } from './i18n.js';
import { modelText } from './model-text.js';
import { arr, brief, num, obj, planOf, pretty, str, summarize, type WireEvent } from './run-events.js';

/**
 * One row per reason / act / observe (and plan, clarify, approval, error) event, appended as
 * it arrives. `detailed` (the playground) adds each step's full input / output and timing;
 * the assistant shows the tool and a short observation. Text only, never a link: thoughts, tool
 * inputs and outputs go through the link rule (`model-text.ts`), so another site's address shows
 * as its host; the downloaded run (`{record, events}`) keeps every byte.
 */
export function timelineRow(event: WireEvent, detailed: boolean): HTMLElement | null {
  if (!detailed) return familyRow(event);
  const index = num(event['index']);
  const duration = num(event['durationMs']);
  const meta = [
    index === undefined ? '' : `#${index}`,
    duration === undefined ? '' : `${Math.round(duration)} ms`,
  ].filter((x) => x !== '');
  const row = (phase: string, status: string, head: string, body: string, full?: unknown) =>
    h(
      'li',
      { class: `step step-${phase} status-${status}`, 'data-phase': phase, 'data-status': status },
      h('span', { class: 'step-phase' }, modelText(head)),
      h('span', { class: 'step-body' }, modelText(body)),
      detailed && meta.length > 0 && h('span', { class: 'step-meta' }, meta.join(' · ')),
      detailed && full !== undefined && details(full),
    );

  if (event.type === 'step') {
    const phase = str(event['phase']);
    if (phase === 'reason') {
      const parse = obj(event['parse']);
      const decision = obj(event['decision']);
      if (parse?.['ok'] === false)
        return row('reason', 'error', t().thinking, `unparsed: ${str(parse['message'])}`, event['raw']);
      const thought = str(decision?.['thought']);
      return row(
        'reason',
        'ok',
        t().thinking,
        thought === '' ? str(decision?.['kind']) : thought,
        detailed ? decision : undefined,
      );
    }
    if (phase === 'act') {
      const tool = str(event['tool']);
      const stepId = str(event['planStepId']);
      return row(
        'act',
        'ok',
        `${t().calling} ${tool}`,
        (stepId === '' ? '' : `[${stepId}] `) + brief(event['input'], 100),
        event['input'],
      );
    }
    if (phase === 'observe') {
      const o = obj(event['observation']) ?? {};
      const status = str(o['status'], 'ok');
      const error = obj(o['error']);
      const degraded = obj(o['degraded']);
      const text =
        status === 'ok'
          ? detailed
            ? brief(o['result'], 200)
            : summarize(o['result'])
          : `${str(error?.['code'], status)}: ${str(error?.['message'])}`;
      const label = degraded === undefined ? '' : ` (${t().degraded}: ${str(degraded['fallback'])})`;
      return row(
        'observe',
        status,
        `${t().observed} ${str(o['tool'])}`,
        text + label,
        status === 'ok' ? o['result'] : o['error'],
      );
    }
    const plan = planOf(event);
    if (plan !== undefined) {
      return row(
        'plan',
        'ok',
        `${t().planGraph} v${plan.version}`,
        `${plan.reason}: ${plan.steps.map((s) => `${s.id}=${s.action}`).join(', ')}`,
        event['plan'],
      );
    }
    if (phase === 'progress') {
      const source = str(event['source']);
      if (!detailed || source === 'model') return null;
      const status = event['ok'] === false ? 'error' : 'ok';
      // A composable node of a plan run (planner, validator, executor, router) and its time.
      if (source === 'node') return row('node', status, t().node, str(event['node'], '?'));
      const name = str(event['name']) || str(event['message']);
      const progress = num(event['progress']);
      const total = num(event['total']);
      const amount =
        progress === undefined ? '' : total === undefined ? `${progress}` : `${progress}/${total}`;
      return row(
        'progress',
        status,
        str(event['tool'], source),
        [name, amount].filter((x) => x !== '').join(' '),
      );
    }
    return row(phase || 'step', 'ok', phase || 'step', brief(event, 120), detailed ? event : undefined);
  }
  if (event.type === 'approval')
    return row('approval', 'waiting', str(event['tool']), brief(event['input'], 100), event['input']);
  if (event.type === 'clarify') {
    const candidates = arr(event['candidates']).map((c) => str(obj(c)?.['label']) || str(obj(c)?.['value']));
    return row(
      'clarify',
      'waiting',
      t().question,
      `${str(event['question'])} ${candidates.length > 0 ? `(${candidates.join(' / ')})` : ''}`,
    );
  }
  if (event.type === 'start') {
    // `maxSteps: 'auto'`: the limit the server chose from the question, and why.
    const auto = obj(event['maxStepsAuto']);
    const chosen = num(auto?.['chosen']);
    if (auto === undefined || chosen === undefined) return null;
    return row('start', 'ok', t().autoStepsChosen, `${chosen} — ${str(auto['reason'])}`);
  }
  if (event.type === 'error')
    return row('error', 'error', t().error, `${str(event['code'])}: ${str(event['message'])}`);
  if (event.type === 'done' && detailed) {
    return row(
      'done',
      str(event['status']),
      t().status,
      `${str(event['status'])}${str(event['stopReason']) === '' ? '' : ` (${str(event['stopReason'])})`}`,
    );
  }
  return null;
}

function details(value: unknown): HTMLElement {
  return h(
    'details',
    {},
    h('summary', {}, `${t().input} / ${t().output}`),
    h('pre', {}, modelText(pretty(value))),
  );
}
