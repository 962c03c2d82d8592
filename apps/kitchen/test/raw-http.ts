import { request as httpRequest } from 'node:http';

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
