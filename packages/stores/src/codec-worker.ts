// The codec thread of a store (`threadCodecHost`): holds the codec state of each run the store
// is writing and encodes their events, so the event loop of the store's thread does not.
import { parentPort, workerData } from 'node:worker_threads';
import type { RunEvent } from 'reins';
import { PromptTexts, RunCodec } from './codec/index.js';
import type { CodecReply, CodecRequest } from './codec-protocol.js';

const port = parentPort;
if (port === null) throw new Error('codec-worker: not started as a worker thread');
const texts = (workerData as { texts?: boolean } | undefined)?.texts === true ? new PromptTexts() : undefined;
const states = new Map<string, RunCodec>();

function encode(id: number, runId: string, events: readonly RunEvent[]): CodecReply {
  const codec = states.get(runId);
  if (codec === undefined) return { id, ok: false, message: `codec: no state held for run ${runId}` };
  const used = new Map<string, string>();
  try {
    const bodies = events.map((event) => codec.encode(event, used));
    return { id, ok: true, bodies, usedTexts: [...used] };
  } catch (error) {
    states.delete(runId); // an event may have gone through before the one that failed
    return { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

port.on('message', (request: CodecRequest) => {
  switch (request.type) {
    case 'start':
      states.set(request.runId, new RunCodec(texts));
      break;
    case 'resume': {
      for (const [hash, json] of request.texts) texts?.hold(hash, json);
      const codec = new RunCodec(texts);
      try {
        request.bodies.forEach((body, seq) => codec.decode(body, request.runId, seq));
        states.set(request.runId, codec);
      } catch {
        states.delete(request.runId); // the store decoded them already: its next encode is told
      }
      break;
    }
    case 'drop':
      states.delete(request.runId);
      break;
    case 'encode':
      port.postMessage(encode(request.id, request.runId, request.events as unknown as readonly RunEvent[]));
      break;
  }
});
