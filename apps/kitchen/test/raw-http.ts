import { request as httpRequest, type Agent } from 'node:http';

export interface RawReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A request with node:http, so a test can set `Host` itself (fetch always sends the URL's). */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {} });
    req.on('error', reject);
    req.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** The headers every response carries, and its Cache-Control / CSP, for one comparison. */
export function guardHeaders(headers: RawReply['headers']) {
  return {
    nosniff: headers['x-content-type-options'],
    frame: headers['x-frame-options'],
    referrer: headers['referrer-policy'],
    frameAncestors: String(headers['content-security-policy'] ?? '').includes("frame-ancestors 'none'"),
    cache: headers['cache-control'],
  };
}

export interface TimedReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** From sending to the end of the body. */
  readonly ms: number;
}

export interface TimedRequestOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  /** The client socket's address (e.g. `127.0.0.2`: Linux routes all of 127/8 to loopback). */
  readonly localAddress?: string;
  readonly agent?: Agent;
  /** Fails the request (rejects) after this long. Default 30 000. */
  readonly timeoutMs?: number;
}

/** One request over node:http (so the test picks the source address and the connection pool). */
export function timedRequest(url: string, options: TimedRequestOptions = {}): Promise<TimedReply> {
  const started = performance.now();
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: options.method ?? 'GET',
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
      agent: options.agent ?? false,
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer in ${options.timeoutMs ?? 30_000} ms: ${url}`)),
      options.timeoutMs ?? 30_000,
    );
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: text,
          ms: performance.now() - started,
        });
      });
    });
    req.end(body);
  });
}

/** The q-quantile (0..1) of `values`, nearest-rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}
