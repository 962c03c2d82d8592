import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { BoundedEventStore } from '../src/server/http/bounded-event-store.js';

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { n },
});

async function replay(store: BoundedEventStore, after: string): Promise<[string, unknown][]> {
  const sent: [string, unknown][] = [];
  await store.replayEventsAfter(after, { send: async (id, message) => void sent.push([id, message]) });
  return sent;
}

describe('BoundedEventStore', () => {
  it('replays the events of the same stream after the given one, skipping priming events', async () => {
    const store = new BoundedEventStore();
    const priming = await store.storeEvent('s1', {} as JSONRPCMessage);
    const first = await store.storeEvent('s1', note(1));
    await store.storeEvent('s2', note(99));
    const second = await store.storeEvent('s1', note(2));
    expect(await store.getStreamIdForEventId(first)).toBe('s1');
    expect(await replay(store, priming)).toEqual([
      [first, note(1)],
      [second, note(2)],
    ]);
    expect(await replay(store, first)).toEqual([[second, note(2)]]);
  });

  it('keeps at most maxEvents: a resume from an evicted event is refused, not answered with a gap', async () => {
    const store = new BoundedEventStore(2);
    const first = await store.storeEvent('s1', note(1));
    await store.storeEvent('s1', note(2));
    await store.storeEvent('s1', note(3));
    expect(store.size).toBe(2);
    expect(await store.getStreamIdForEventId(first)).toBeUndefined();
    await expect(replay(store, first)).rejects.toThrow(/unknown or expired/);
    expect(() => new BoundedEventStore(0)).toThrow(TypeError);
  });
});
