import { createServer, Socket } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from '@reins/server';

/** A pino logger whose JSON lines are kept in `lines` (debug and up: every request line too). */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== ''),
      );
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

/** A TCP proxy in front of the machine's Redis that a test can kill (the real one keeps running). */
export async function redisProxy(target = { host: '127.0.0.1', port: 6379 }) {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `redis://127.0.0.1:${port}`,
    kill: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Reads an SSE body into its events (`event:` name and parsed `data:`). */
export function parseSse(text: string): { event: string; data: Record<string, unknown> }[] {
  const out: { event: string; data: Record<string, unknown> }[] = [];
  for (const block of text.split('\n\n')) {
    let event = 'message';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data += line.slice(5).trim();
    }
    if (data !== '') out.push({ event, data: JSON.parse(data) as Record<string, unknown> });
  }
  return out;
}
