import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** One span as OTLP/HTTP JSON carries it (ids in hex), with its attributes flattened. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly service: unknown;
}

export interface OtlpReceiver {
  /** What to set `OTEL_EXPORTER_OTLP_ENDPOINT` to. */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  readonly requests: {
    readonly path: string;
    readonly contentType: string | undefined;
    readonly headers: IncomingHttpHeaders;
  }[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: OtlpAttribute[];
}
interface OtlpRequest {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

const valueOf = (v: OtlpValue): unknown =>
  v.stringValue ??
  (v.intValue === undefined ? undefined : Number(v.intValue)) ??
  v.doubleValue ??
  v.boolValue;

const flatten = (attributes: OtlpAttribute[] = []): Record<string, unknown> =>
  Object.fromEntries(attributes.map((a) => [a.key, valueOf(a.value)]));

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 (what a collector listens to on 4318): it takes
 * `POST /v1/traces` with a JSON body, keeps the spans decoded, and answers as a collector does.
 */
export async function otlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'][number][] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', contentType: req.headers['content-type'], headers: req.headers });
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest;
      for (const rs of body.resourceSpans ?? []) {
        const service = flatten(rs.resource?.attributes)['service.name'];
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId === '' ? undefined : s.parentSpanId,
              name: s.name,
              attributes: flatten(s.attributes),
              service,
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A test file's cleanups, run after each test, newest first: returns what adds one. */
export function cleanupAfterEach(): (cleanup: () => Promise<void>) => void {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return (cleanup) => {
    cleanups.push(cleanup);
  };
}

/** A receiver that `defer` closes after the test. */
export async function receiverClosedBy(defer: (cleanup: () => Promise<void>) => void): Promise<OtlpReceiver> {
  const receiver = await otlpReceiver();
  defer(() => receiver.close());
  return receiver;
}
