// The conformance fixture: the suite's names served by the Reins MCP server bridge over
// Streamable HTTP (both revisions). Run from the repo after `npm run build`:
//   node packages/mcp/conformance/server.mjs [port]   → prints the MCP URL on stdout
import { randomBytes } from 'node:crypto';
import { createRequestStateCodec, InMemoryServerEventBus } from '@modelcontextprotocol/server';
import { createMcpToolServer, startMcpHttp } from '../dist/index.js';
import { registerExtras } from './mcp-extras.mjs';
import { present, reinsTools } from './reins-tools.mjs';

const bus = new InMemoryServerEventBus();
const codec = createRequestStateCodec({ key: randomBytes(32), ttlSeconds: 600 });
const cache = { ttlMs: 0, cacheScope: /** @type {const} */ ('private') };

const server = createMcpToolServer({
  name: 'reins-conformance-fixture',
  version: '0.1.0',
  tools: reinsTools,
  present,
  serverOptions: {
    capabilities: {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
    },
    cacheHints: {
      'tools/list': cache,
      'prompts/list': cache,
      'resources/list': cache,
      'resources/templates/list': cache,
      'resources/read': cache,
    },
    requestState: { verify: (state, ctx) => codec.verify(state, ctx) },
  },
  extend: (mcp, context) => registerExtras(mcp, context, { bus, codec }),
});

const running = await startMcpHttp(server, {
  authenticate: 'none', // the suite sends no credentials; auth has its own tests
  port: Number(process.argv[2] ?? 0),
  bus,
});
console.log(`${running.url}/mcp`);
const stop = () => void running.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
