import { api, authHeaders } from '../api.js';
import { h, replace } from '../dom.js';
import { t } from '../i18n.js';
import { planGraph } from '../plan-graph.js';
import { cancelRun, startRun } from '../run-client.js';
import { eventsFromFile } from '../run-log.js';
import { readSse } from '../sse.js';
import { arr, num, obj, str, type PlanVersion, type WireEvent } from '../run-events.js';
import { clarifyForm } from '../clarify.js';
import { RunView } from '../run-view.js';
import { errorLine, field } from './common.js';

/** What `GET /v1/agents` lists. */
export interface AgentInfo {
  readonly name: string;
  readonly kind: string;
  readonly models: readonly string[];
  readonly maxSteps: number;
}

function agentsFrom(data: unknown): AgentInfo[] {
  return arr(obj(data)?.['agents']).flatMap((raw) => {
    const a = obj(raw);
    const name = str(a?.['name']);
    if (a === undefined || name === '') return [];
    const models = arr(a['models']).filter((m): m is string => typeof m === 'string');
    return [{ name, kind: str(a['kind'], 'react'), models, maxSteps: num(a['maxSteps']) ?? 4 }];
  });
}

export function playgroundPage(): HTMLElement {
  const error = errorLine();
  const query = h('textarea', { name: 'query', required: true, placeholder: t().askPlaceholder });
  const agentSelect = h('select', { name: 'agent', 'data-testid': 'agent-picker' });
  const modelSelect = h('select', { name: 'model', 'data-testid': 'model-picker' });
  const maxSteps = h('input', {
    name: 'maxSteps',
    type: 'range',
    min: '1',
    max: '4',
    value: '4',
    'data-testid': 'max-steps',
  });
  const maxStepsOut = h('output', { for: 'pg-steps' }, '4');
  // 'auto': the server picks the limit from the question (the start event's `maxStepsAuto`).
  const autoSteps = h('input', { name: 'maxStepsAuto', type: 'checkbox', 'data-testid': 'max-steps-auto' });
  autoSteps.id = 'pg-steps-auto';
  const showMaxSteps = () => {
    maxSteps.disabled = autoSteps.checked;
    replace(maxStepsOut, autoSteps.checked ? 'auto' : maxSteps.value);
  };
  const runButton = h('button', { type: 'submit', 'data-testid': 'run' }, t().run);
  const stopButton = h(
    'button',
    { type: 'button', class: 'danger', disabled: true, 'data-testid': 'stop' },
    t().stop,
  );
  const output = h('div', { class: 'pg-output', 'data-testid': 'pg-output' });
  const graph = h('div', { class: 'pg-graph', 'data-testid': 'plan-graph', 'aria-label': t().planGraph });
  const downloadSlot = h('div', { class: 'row' });
  let agents: AgentInfo[] = [];
  let stop: (() => void) | undefined;
  stopButton.addEventListener('click', () => stop?.());

  const syncAgent = () => {
    const agent = agents.find((a) => a.name === agentSelect.value);
    replace(
      modelSelect,
      (agent?.models ?? []).map((m) => h('option', { value: m }, m)),
    );
    modelSelect.disabled = (agent?.models.length ?? 0) <= 1;
    const max = String(agent?.maxSteps ?? 4);
    maxSteps.max = max;
    maxSteps.value = max;
    showMaxSteps();
  };
  agentSelect.addEventListener('change', syncAgent);
  maxSteps.addEventListener('input', showMaxSteps);
  autoSteps.addEventListener('change', showMaxSteps);

  const loadAgents = async () => {
    const reply = await api<unknown>('GET', '/v1/agents');
    agents = reply.ok
      ? agentsFrom(reply.data)
      : [{ name: 'kitchen', kind: 'react', models: [], maxSteps: 4 }];
    if (!reply.ok && reply.error.status !== 404) error.show(reply.error);
    replace(
      agentSelect,
      agents.map((a) =>
        h('option', { value: a.name }, `${a.name} (${a.kind === 'plan' ? 'plan' : 'ReAct'})`),
      ),
    );
    syncAgent();
  };

  let currentRunId: string | undefined;
  const newView = (): RunView => {
    replace(graph);
    replace(downloadSlot);
    const status = new Map<string, string>();
    let plan: PlanVersion | undefined;
    const view: RunView = new RunView({
      detailed: true,
      onClarify: (event) => clarifyForm(event, view, () => currentRunId),
      onPlan: (p) => {
        plan = p;
        replace(graph, h('h3', {}, `${t().planGraph} v${p.version} (${p.reason})`), planGraph(p, status));
      },
    });
    // Colour plan steps as their acts / observations arrive.
    const push = view.push.bind(view);
    view.push = (event) => {
      push(event);
      const stepId = str(event['planStepId']);
      if (plan !== undefined && stepId !== '' && event.type === 'step') {
        const o = obj(event['observation']);
        status.set(stepId, event['phase'] === 'observe' ? str(o?.['status'], 'ok') : 'running');
        replace(
          graph,
          h('h3', {}, `${t().planGraph} v${plan.version} (${plan.reason})`),
          planGraph(plan, status),
        );
      }
    };
    replace(output, view.el);
    return view;
  };

  const offerDownload = (runId: string | undefined, events: readonly WireEvent[], record: unknown) => {
    const button = h(
      'button',
      { type: 'button', class: 'secondary', 'data-testid': 'download' },
      t().download,
    );
    button.addEventListener('click', async () => {
      let full = record;
      if (full === undefined && runId !== undefined) {
        const reply = await api<unknown>('GET', `/v1/runs/${encodeURIComponent(runId)}`);
        if (reply.ok) full = reply.data;
      }
      const blob = new Blob([JSON.stringify({ record: full ?? null, events }, null, 2)], {
        type: 'application/json',
      });
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob); // a blob: URL of our own JSON, not model text
      a.download = `run-${runId ?? 'replay'}.json`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    });
    replace(downloadSlot, button);
  };

  const run = async () => {
    const view = newView();
    const controller = new AbortController();
    let runId: string | undefined;
    currentRunId = undefined;
    stop = () => {
      stopButton.disabled = true;
      if (runId === undefined) controller.abort();
      else void cancelRun(runId);
    };
    runButton.disabled = true;
    stopButton.disabled = false;
    const outcome = await startRun(
      {
        agent: agentSelect.value,
        input: query.value,
        maxSteps: autoSteps.checked ? 'auto' : Number(maxSteps.value),
        ...(modelSelect.value === '' ? {} : { model: modelSelect.value }),
      },
      { onEvent: (e) => view.push(e), onRunId: (id) => (runId = currentRunId = id) },
      { signal: controller.signal },
    );
    if (outcome.error !== undefined) view.error(outcome.error.code, outcome.error.message);
    if (view.status === undefined) view.finish(outcome.error?.code === 'CANCELLED' ? 'cancelled' : 'error');
    runButton.disabled = false;
    stopButton.disabled = true;
    stop = undefined;
    if (view.events.length > 0) offerDownload(runId, view.events, outcome.record);
  };

  /** Plays a logged run back into a fresh view, paced like the original (each gap capped). */
  const replay = async (events: readonly WireEvent[], runId?: string) => {
    currentRunId = runId;
    const view = newView();
    let last: number | undefined;
    for (const event of events) {
      const at = num(event['at']);
      if (at !== undefined && last !== undefined)
        await new Promise((r) => setTimeout(r, Math.min(250, Math.max(0, at - last!))));
      last = at ?? last;
      view.push(event);
    }
    if (view.status === undefined) view.finish('unknown');
    offerDownload(runId, view.events, undefined);
  };

  const replayId = h('input', { name: 'runId', 'data-testid': 'replay-id' });
  const replayFile = h('input', { name: 'file', type: 'file', 'data-testid': 'replay-file' });
  replayFile.accept = 'application/json,.json';
  const replayForm = h(
    'form',
    {
      class: 'inline-form',
      'aria-label': t().replay,
      onsubmit: async (event) => {
        event.preventDefault();
        const file = replayFile.files?.[0];
        if (file !== undefined) {
          try {
            await replay(eventsFromFile(JSON.parse(await file.text())));
          } catch (e) {
            error.show({ code: 'INVALID_PARAMETER', message: String(e), status: 0 });
          }
          return;
        }
        const id = replayId.value.trim();
        if (id === '') return;
        const response = await fetch(`/v1/runs/${encodeURIComponent(id)}/events`, {
          headers: { accept: 'text/event-stream', ...authHeaders() },
        });
        if (!response.ok || response.body === null) {
          error.show({
            code: `HTTP_${response.status}`,
            message: response.statusText,
            status: response.status,
          });
          return;
        }
        error.show(null);
        const events: WireEvent[] = [];
        await readSse(response.body, (e) => events.push(e));
        await replay(events, id);
      },
    },
    h('h3', {}, t().replay),
    field('pg-replay-id', t().runId, replayId),
    field('pg-replay-file', t().replayFile, replayFile),
    h('button', { type: 'submit', class: 'secondary', 'data-testid': 'replay' }, t().load),
  );

  const form = h(
    'form',
    {
      class: 'stack-form',
      'aria-label': t().playground,
      onsubmit: (event) => {
        event.preventDefault();
        if (query.value.trim() !== '' && !runButton.disabled) void run();
      },
    },
    field('pg-query', t().query, query),
    field('pg-agent', t().agent, agentSelect),
    field('pg-model', t().model, modelSelect),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'pg-steps' }, t().maxSteps),
      h('div', { class: 'row' }, maxSteps, maxStepsOut),
      h('div', { class: 'row' }, autoSteps, h('label', { for: 'pg-steps-auto' }, t().autoSteps)),
    ),
    h('div', { class: 'row' }, runButton, stopButton),
  );
  maxSteps.id = 'pg-steps';
  void loadAgents();
  return h(
    'section',
    { class: 'panel playground', 'aria-labelledby': 'pg-title' },
    h('h2', { id: 'pg-title' }, t().playground),
    h(
      'div',
      { class: 'pg-grid' },
      h('div', { class: 'pg-left' }, form, replayForm, error.el),
      h('div', { class: 'pg-main' }, h('h3', {}, t().timeline), output, downloadSlot),
      h('div', { class: 'pg-right' }, graph),
    ),
  );
}
