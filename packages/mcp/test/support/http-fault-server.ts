import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';

/**
 * A Streamable HTTP MCP server for the bridge's HTTP fault tests, in the test process:
 * `createMcpHandler` (both revisions; 2025-era requests stateless) behind a hand-written
 * node:http adapter, so a test can kill the listener with its open sockets, bring it back on
 * the same port, and cut a response stream mid-call. Listens on 127.0.0.1 only.
 *
 * Tools: `slow` ({ ms }: waits, reporting progress 4 times), `hang` (never answers), `drop`
 * (sends one progress notification, then the adapter destroys the socket of that SSE
 * response), `echo` ({ text }).
 */
export interface HttpFaultServer {
  readonly url: string;
  readonly port: number;
  /** Like a crash: stops listening and destroys every open socket. */
  kill(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  /** Requests answered so far (POSTs with a body). */
  readonly requests: number;
  /** The `Mcp-Param-*` headers (names in lower case) of each `tools/call` POST, oldest first. */
  readonly callHeaders: Record<string, string>[];
  close(): Promise<void>;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('cancelled'));
    });
  });
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'reins-http-fault-fixture', version: '1.0.0' });
  const progress = async (
    ctx: { mcpReq: { _meta?: { progressToken?: string | number }; notify: (n: never) => Promise<void> } },
    i: number,
  ) => {
    const token = ctx.mcpReq._meta?.progressToken;
    if (token === undefined) return;
    await ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: { progressToken: token, progress: i, total: 4, message: `step ${i}` },
    } as never);
  };
  server.registerTool(
    'slow',
    { description: 'Waits, reporting progress.', inputSchema: z.object({ ms: z.number().min(0) }) },
    async ({ ms }, ctx) => {
      for (let i = 1; i <= 4; i++) {
        await sleep(ms / 4, ctx.mcpReq.signal);
        await progress(ctx as never, i);
      }
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    },
  );
  server.registerTool(
    'hang',
    { description: 'Never answers.', inputSchema: z.object({}) },
    () => new Promise(() => {}),
  );
  server.registerTool(
    'drop',
    { description: 'Its response stream is cut.', inputSchema: z.object({}) },
    async (_args, ctx) => {
      await progress(ctx as never, 1);
      await sleep(60_000, ctx.mcpReq.signal);
      return { content: [{ type: 'text', text: 'unreachable' }] };
    },
  );
  server.registerTool(
    'region',
    {
      description: 'Names its region (SEP-2243: mirrored into the Mcp-Param-Region header).',
      inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), note: z.string() }),
    },
    ({ region }) => ({ content: [{ type: 'text', text: region }] }),
  );
  server.registerTool(
    'echo',
    {
      description: 'Echoes.',
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true },
    },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startHttpFaultServer(): Promise<HttpFaultServer> {
  const handler = createMcpHandler(() => mcpServer(), { keepAliveMs: 0 });
  let requests = 0;
  const callHeaders: Record<string, string>[] = [];

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    }
    const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers,
      signal: aborted.signal,
      ...(body === undefined || body.length === 0 ? {} : { body }),
    });
    if (body !== undefined && body.length > 0) {
      requests++;
      if (body.toString('utf8').includes('"method":"tools/call"')) {
        const params: Record<string, string> = {};
        for (const [name, value] of headers) if (name.startsWith('mcp-param-')) params[name] = value;
        callHeaders.push(params);
      }
    }
    const dropAfterFirstChunk = body?.toString('utf8').includes('"name":"drop"') === true;
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    if (response.body === null) {
      res.end();
      return;
    }
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
        if (dropAfterFirstChunk) {
          // Let the chunk reach the client, then cut the connection under the open stream.
          setTimeout(() => res.socket?.destroy(), 50);
          await reader.cancel().catch(() => undefined);
          return;
        }
      }
      res.end();
    } catch {
      res.destroy();
    }
  }

  let http: Server = createServer((req, res) => void serve(req, res).catch(() => res.destroy()));
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const address = http.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  const port = address.port;
  let listening = true;

  const kill = async (): Promise<void> => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => http.close(() => resolve()));
    http.closeAllConnections();
    await closed;
  };

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    get requests() {
      return requests;
    },
    callHeaders,
    kill,
    async restart() {
      if (listening) return;
      http = createServer((req, res) => void serve(req, res).catch(() => res.destroy()));
      http.listen(port, '127.0.0.1');
      await once(http, 'listening');
      listening = true;
    },
    async close() {
      await kill();
      await handler.close();
    },
  };
}
