import { describe, expect, it } from 'vitest';
import { runAgent, type ActStep, type RunEvent, type RunRecord } from 'reins';
import { act, countingTools, final, kinds, recordingSink, stepModel } from './fixtures.js';

const SCRIPT = [
  act('lookup', { q: 'eggs' }),
  act('place_order', { item: 'eggs' }),
  act('charge', { cents: 300 }),
  final('ordered eggs, charged 3.00'),
];

/** The original run, to its end, with its stored log. */
async function original() {
  const counted = countingTools();
  const { sink, stored } = recordingSink();
  const run = runAgent({
    query: 'order eggs',
    model: stepModel(SCRIPT),
    tools: counted.tools,
    runId: 'run-1',
    durable: { sink },
  });
  const record = await run.result;
  return { record, stored, counted };
}

/** The run rebuilt from `history` (a crash after those events were stored), to its end. */
async function resumed(history: readonly RunEvent[], model = stepModel(SCRIPT)) {
  const counted = countingTools();
  const { sink, stored } = recordingSink();
  stored.push(...structuredClone(history));
  const run = runAgent({
    query: 'order eggs',
    model,
    tools: counted.tools,
    runId: 'run-1',
    durable: { sink },
    history,
  });
  const record: RunRecord = await run.result;
  return { run, record, stored, counted, model };
}

const actsIn = (events: readonly RunEvent[]) =>
  events.filter((e): e is ActStep => e.type === 'step' && e.phase === 'act');
const observed = (events: readonly RunEvent[], actId: string) =>
  events.some((e) => e.type === 'step' && e.phase === 'observe' && e.actId === actId);

describe('a ReAct run rebuilt from its log after a crash (any crash point)', () => {
  it('never repeats a completed act, repeats only safe interrupted acts, and otherwise stops outcome_unknown', async () => {
    const { record: full, stored: log } = await original();
    expect(full.status).toBe('success');
    for (let cut = 1; cut < log.length; cut++) {
      const history = log.slice(0, cut);
      const { record, stored, counted, model } = await resumed(history);
      const before = actsIn(history);
      const interrupted = before.filter((a) => !observed(history, a.actId));
      const unsafe = interrupted.find((a) => a.tool === 'place_order');
      // Each act of the history: completed → not run again; interrupted → again only if safe.
      for (const a of before) {
        const again = counted.executions.get(`${a.tool}:${a.actId}`) ?? 0;
        const safe = a.tool !== 'place_order';
        expect(again, `cut ${cut}: ${a.tool}`).toBe(
          !observed(history, a.actId) && safe && unsafe === undefined ? 1 : 0,
        );
      }
      if (unsafe !== undefined) {
        expect(record.status, `cut ${cut}`).toBe('stopped');
        expect(record.stop_reason).toBe('outcome_unknown');
        expect(counted.total('place_order')).toBe(0);
      } else {
        expect(record.status, `cut ${cut}`).toBe('success');
        expect(record.final_answer).toBe(full.final_answer);
        // Across the crash, the mutating tool ran exactly once in all.
        const orderedBefore = before.some((a) => a.tool === 'place_order') ? 1 : 0;
        expect(orderedBefore + counted.total('place_order')).toBe(1);
      }
      // The model is asked only for the steps the history had not recorded.
      const recordedSteps = history.filter((e) => e.type === 'step' && e.phase === 'reason').length;
      expect(model.steps[0] ?? Infinity, `cut ${cut}`).toBeGreaterThan(recordedSteps);
      // One log: the history's events unchanged, then the new ones, seq without gaps or repeats.
      expect(stored.slice(0, cut)).toEqual(history);
      expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i));
      expect(kinds(stored).filter((k) => k === 'start')).toHaveLength(1);
      expect(stored.at(-1)?.type).toBe('done');
    }
  });

  it('an interrupted mutating act stops the run with a notice for a person, and an observation saying so', async () => {
    const { stored: log } = await original();
    const orderAct = actsIn(log).find((a) => a.tool === 'place_order') as ActStep;
    const history = log.slice(0, log.indexOf(orderAct) + 1);
    const { record, stored } = await resumed(history);
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('outcome_unknown');
    const observation = stored.find(
      (e) => e.type === 'step' && e.phase === 'observe' && e.actId === orderAct.actId,
    );
    expect(observation).toMatchObject({
      observation: { status: 'error', error: { code: 'OUTCOME_UNKNOWN' } },
    });
    expect(record.final_answer).toMatch(/person should check/);
  });

  it('an interrupted idempotent act runs again with the same act id (its idempotency key)', async () => {
    const { stored: log } = await original();
    const chargeAct = actsIn(log).find((a) => a.tool === 'charge') as ActStep;
    const history = log.slice(0, log.indexOf(chargeAct) + 1);
    const { record, counted } = await resumed(history);
    expect(record.status).toBe('success');
    expect([...counted.executions.keys()]).toEqual([`charge:${chargeAct.actId}`]);
  });

  it('a resumed run keeps the deadline its history had not used', async () => {
    const { stored: log } = await original();
    const start = log[0] as RunEvent & { limits: { deadlineMs: number } };
    // The history says the run had been going for the whole deadline: it stops at once on resume.
    const late = log
      .slice(0, 3)
      .map((e, i) => (i === 2 ? { ...e, at: start.at + start.limits.deadlineMs + 1 } : e));
    const { record, counted } = await resumed(late, stepModel(SCRIPT, 100));
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('deadline');
    // The replay reached where the run was (its interrupted read-only act ran again) before the limit ended it.
    expect(counted.total('lookup')).toBe(1);
  });
});
