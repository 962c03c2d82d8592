import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpResponse {
  readonly status: number;
  header(name: string): string | null;
  readonly body: AsyncIterable<Uint8Array>;
  /**
   * The body as text. Past `maxBytes` reading stops at once, the connection is closed and
   * what arrived so far (more than `maxBytes`) is returned: callers compare to tell a cut reply.
   */
  text(maxBytes?: number): Promise<string>;
}

/** One POST; injectable so adapters can be tested or routed through another client. */
export type HttpPost = (
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  signal: AbortSignal,
) => Promise<HttpResponse>;

/**
 * A POST over node:http(s) that destroys its socket the moment `signal` aborts, before or
 * after the response started. (Node 20's fetch keeps an aborted request's socket open until
 * its keep-alive timeout, ~4 s: a cancelled run must not hold a connection.)
 */
export const nodeHttpPost: HttpPost = (url, headers, body, signal) =>
  new Promise<HttpResponse>((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => resolve(wrap(res)),
    );
    const onAbort = (): void => {
      req.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    req.on('close', () => signal.removeEventListener('abort', onAbort));
    req.on('error', reject);
    req.end(body);
  });

function wrap(res: IncomingMessage): HttpResponse {
  return {
    status: res.statusCode ?? 0,
    header: (name) => {
      const value = res.headers[name.toLowerCase()];
      return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
    },
    body: res,
    text: async (maxBytes = Number.POSITIVE_INFINITY) => {
      const parts: Buffer[] = [];
      let size = 0;
      for await (const part of res) {
        parts.push(part as Buffer);
        size += (part as Buffer).length;
        if (size > maxBytes) {
          res.destroy(); // enough to explain an error; the rest is not worth a connection
          break;
        }
      }
      return Buffer.concat(parts).toString('utf8');
    },
  };
}

/** A delay a timer can honour: a whole number of ms in [0, 2³¹−1] (Node throws otherwise). */
export function timerMs(ms: number): number {
  if (!Number.isFinite(ms)) return 2_147_483_647;
  return Math.min(Math.max(0, Math.ceil(ms)), 2_147_483_647);
}
