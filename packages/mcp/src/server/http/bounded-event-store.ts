import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * One 2025-era session's SSE events, kept so a client whose response stream broke can
 * resume it (`GET` with `Last-Event-ID`) and get the rest — the tool's result included —
 * without calling the tool again. In memory and bounded: the oldest events go first, and a
 * client resuming from an event no longer kept is refused (it fails the call instead of
 * getting a gap). Event ids are `<stream id>_<sequence>`; stream ids come from the SDK.
 */
export class BoundedEventStore implements EventStore {
  readonly #events = new Map<string, { readonly streamId: string; readonly message: JSONRPCMessage }>();
  readonly #maxEvents: number;
  #sequence = 0;

  constructor(maxEvents = 1_000) {
    if (!Number.isInteger(maxEvents) || maxEvents < 1)
      throw new TypeError('maxEvents must be a positive integer');
    this.#maxEvents = maxEvents;
  }

  get size(): number {
    return this.#events.size;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const eventId = `${streamId}_${++this.#sequence}`;
    this.#events.set(eventId, { streamId, message });
    while (this.#events.size > this.#maxEvents) {
      const oldest = this.#events.keys().next().value;
      if (oldest === undefined) break;
      this.#events.delete(oldest);
    }
    return Promise.resolve(eventId);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.#events.get(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (last === undefined) throw new Error('unknown or expired event id');
    let after = false;
    for (const [eventId, event] of [...this.#events]) {
      if (eventId === lastEventId) after = true;
      // The priming event (an empty message) carries no data to replay.
      else if (after && event.streamId === last.streamId && Object.keys(event.message).length > 0) {
        await send(eventId, event.message);
      }
    }
    return last.streamId;
  }
}
