import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ModelRequest } from 'reins';

export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

/** A local HTTP server on 127.0.0.1 that answers like a provider and counts open connections. */
export async function fakeProvider(answer: (received: Received, res: ServerResponse) => void) {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(raw || '{}'),
      };
      received.push(entry);
      answer(entry, res);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    received,
    openConnections: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const json = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** An OpenAI Chat Completions response, as in the API reference. */
export const completion = (
  content: string,
  usage = { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
) => ({
  id: 'chatcmpl-123',
  object: 'chat.completion',
  created: 1_764_470_000,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content, refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage,
  system_fingerprint: 'fp_1',
});

export const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-123',
  object: 'chat.completion.chunk',
  created: 1_764_470_000,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});

export const waitFor = async (condition: () => boolean, ms = 2_000): Promise<void> => {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

/** A minimal model request (one user message, no tools), with `extra` over it. */
export const modelRequest = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'q' }],
  tools: [],
  signal: new AbortController().signal,
  step: 1,
  finalStep: false,
  ...extra,
});
