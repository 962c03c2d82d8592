import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { z } from 'zod';
import { defineTool, ToolError, type Principal, type RunEvent } from 'reins';
import {
  createReinsServer,
  serve,
  type ReinsServer,
  type ReinsServerOptions,
  type RunningServer,
} from '@reins/server';

export const act = (action: string, input: Record<string, unknown>, thought = 'acting'): string =>
  JSON.stringify({ thought, action, input });
export const final = (text: string, thought = 'done'): string => JSON.stringify({ thought, final: text });

/** `Authorization: Bearer user:<id>` → principal `<id>`; anything else → unauthenticated. */
export const bearerAuth = (request: Request): Principal | undefined => {
  const match = /^Bearer user:([\w-]+)$/.exec(request.headers.get('authorization') ?? '');
  return match?.[1] === undefined ? undefined : { id: match[1] };
};
export const as = (user: string): Record<string, string> => ({ authorization: `Bearer user:${user}` });
/** `as(user)` for a write (POST, DELETE): every write must send the JSON content type, body or not. */
export const writeAs = (user: string): Record<string, string> => ({
  ...as(user),
  'content-type': 'application/json',
});

/** A tool that adds two numbers and counts its calls; `{a: -1}` fails with NOT_FOUND. */
export function countingAdd() {
  const calls: { a: number; b: number; principal: string }[] = [];
  const tool = defineTool({
    name: 'add',
    description: 'Add two numbers.',
    input: z.object({ a: z.number(), b: z.number() }),
    output: z.object({ sum: z.number() }),
    readOnly: true,
    run: (input, ctx) => {
      calls.push({ ...input, principal: ctx.principal.id });
      if (input.a < 0) throw new ToolError('NOT_FOUND', 'no such number');
      return { sum: input.a + input.b };
    },
  });
  return { tool, calls };
}

/** A pino destination keeping each line as written and parsed (lines are there once a log call returns). */
export function lineSink() {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line.trim() === '') continue;
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { stream, lines, raw };
}

/** Log lines captured in memory (pino JSON), for assertions. */
export function memoryLogger(level = 'debug') {
  const { stream, lines, raw } = lineSink();
  const logger = pino(
    { level, redact: { paths: ['authorization', 'headers.authorization'], censor: '[REDACTED]' } },
    stream,
  );
  return { logger, lines, raw };
}

export interface Started {
  readonly server: ReinsServer;
  readonly http: RunningServer;
  readonly url: string;
  close(): Promise<void>;
}

export async function start(
  options: Partial<ReinsServerOptions> & Pick<ReinsServerOptions, 'agents'>,
): Promise<Started> {
  const server = createReinsServer({
    authenticate: bearerAuth,
    logger: memoryLogger('silent').logger,
    ...options,
  });
  const http = await serve(server.app, { port: 0, host: '127.0.0.1' });
  return {
    server,
    http,
    url: http.url,
    close: async () => {
      await server.close();
      await http.close();
    },
  };
}

export interface SseFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly comment?: string;
  /** Every raw line of the frame, to check there is exactly one `data:` line. */
  readonly lines: readonly string[];
}

export function parseFrame(block: string): SseFrame {
  const lines = block.split('\n');
  const frame: { id?: string; event?: string; data?: string; comment?: string; lines: string[] } = { lines };
  for (const line of lines) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    else if (line.startsWith('id: ')) frame.id = line.slice(4);
    else if (line.startsWith('event: ')) frame.event = line.slice(7);
    else if (line.startsWith('data: '))
      frame.data = frame.data === undefined ? line.slice(6) : `${frame.data}\n${line.slice(6)}`;
  }
  return frame;
}

export interface SseClient {
  readonly response: IncomingMessage;
  readonly frames: SseFrame[];
  /** Run events (frames with an id), parsed. */
  readonly events: RunEvent[];
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  /** Resolves at the first frame for which `predicate` holds. */
  waitFor(predicate: (frame: SseFrame) => boolean): Promise<SseFrame>;
  /** Drops the connection (the client going away). */
  destroy(): void;
}

/** Opens an SSE request with node:http, so tests control reading and disconnecting. */
export function openSse(
  url: string,
  options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = httpRequest(url, {
      method: options.method ?? 'POST',
      headers: {
        accept: 'text/event-stream',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
    });
    req.on('error', reject);
    req.on('response', (response) => {
      const frames: SseFrame[] = [];
      const events: RunEvent[] = [];
      const waiters: { predicate: (f: SseFrame) => boolean; resolve: (f: SseFrame) => void }[] = [];
      let buffer = '';
      let endResolve: () => void = () => {};
      const ended = new Promise<void>((r) => (endResolve = r));
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = parseFrame(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
          frames.push(frame);
          if (frame.id !== undefined && frame.data !== undefined)
            events.push(JSON.parse(frame.data) as RunEvent);
          for (const w of [...waiters]) {
            if (w.predicate(frame)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(frame);
            }
          }
        }
      });
      response.on('end', () => endResolve());
      response.on('close', () => endResolve());
      resolve({
        response,
        frames,
        events,
        ended,
        waitFor: (predicate) =>
          new Promise((res) => {
            const seen = frames.find(predicate);
            if (seen !== undefined) return res(seen);
            waiters.push({ predicate, resolve: res });
          }),
        destroy: () => req.destroy(),
      });
    });
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export const shape = (events: readonly RunEvent[]): string[] =>
  events.map((e) => (e.type === 'step' ? `step:${e.phase}` : e.type));

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A tool that changes something and counts its executions across "processes" (servers). */
export function orderTool(placed: string[]) {
  return defineTool({
    name: 'place_order',
    description: 'Orders groceries.',
    input: z.object({ item: z.string() }),
    output: z.object({ orderId: z.string() }),
    readOnly: false,
    run: ({ item }) => {
      placed.push(item);
      return { orderId: `o-${placed.length}` };
    },
  });
}
