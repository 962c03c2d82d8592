import { afterEach, describe, expect, it } from 'vitest';
import { keptPrompts, type RunEvent } from 'reins';
import { scriptModel } from 'reins/testing';
import { act, as, countingAdd, final, openSse, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** One SSE run of `agent`; the events as the client parsed them (JSON) and what the model was sent. */
async function sseRun(serverRecord: boolean | undefined, agentRecord: boolean | undefined) {
  const { tool } = countingAdd();
  const model = scriptModel([act('add', { a: 1, b: 2 }), final('3')]);
  running = await start({
    agents: {
      helper: { model, tools: [tool], ...(agentRecord === undefined ? {} : { recordPrompts: agentRecord }) },
    },
    ...(serverRecord === undefined ? {} : { recordPrompts: serverRecord }),
  });
  const client = await openSse(`${running.url}/v1/runs`, {
    body: { agent: 'helper', input: 'what is 1 + 2? mail me at li.lei@example.com' },
    headers: as('alice'),
  });
  await client.ended;
  return { events: client.events as RunEvent[], model };
}

describe('kept prompts over the server (the prompt debugger)', () => {
  it('streams each reason step’s exact prompt by default, masked, rebuilt by keptPrompts', async () => {
    const { events, model } = await sseRun(undefined, undefined);
    const kept = keptPrompts(events);
    expect(kept.map((k) => k.messages.map((m) => m.role))).toEqual(
      model.calls.map((c) => c.messages.map((m) => m.role)),
    );
    expect(kept[1]?.messages.map((m) => m.content)).toEqual(
      model.calls[1]?.messages.map((m) => m.content.replace('li.lei@example.com', 'l***@example.com')),
    );
    expect(kept[0]?.messages[1]?.content).toContain('what is 1 + 2? mail me at l***@example.com');
  });

  it('keeps none when the server says recordPrompts: false; an agent’s own setting wins', async () => {
    const off = await sseRun(false, undefined);
    expect(keptPrompts(off.events)).toEqual([]);
    await running?.close();
    const agentOn = await sseRun(false, true);
    expect(keptPrompts(agentOn.events)).toHaveLength(2);
    await running?.close();
    const agentOff = await sseRun(undefined, false);
    expect(keptPrompts(agentOff.events)).toEqual([]);
  });
});
