// Client-mode conformance: our client bridge (`connectMcp`) driven by the suite. The suite
// runs `node client.mjs <server-url>` with MCP_CONFORMANCE_SCENARIO set (and, with a spec
// version, MCP_CONFORMANCE_PROTOCOL_VERSION). It connects, lists the tools, calls each one
// with inputs made from its schema, and closes — what a Reins run does with imported tools.
import { connectMcp } from '../dist/index.js';
import { toolSpec } from 'reins';
import { HeadlessOAuthProvider } from './oauth-provider.mjs';

const url = process.argv.at(-1) ?? '';
const revision = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
const protocol = revision === undefined ? 'auto' : revision === '2026-07-28' ? { pin: revision } : 'legacy';

/** A value that satisfies a JSON-Schema-ish property (the first enum value, a default, or a plain one). */
function sample(/** @type {any} */ schema) {
  if (schema === null || typeof schema !== 'object') return 'test';
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return sampleObject(schema);
    default:
      return 'test';
  }
}

function sampleObject(/** @type {any} */ schema) {
  /** @type {Record<string, unknown>} */
  const value = {};
  for (const key of schema?.required ?? []) value[key] = sample(schema.properties?.[key]);
  return value;
}

/** A model that answers every sampling request the same way (the suite checks the round trip). */
const samplingModel = {
  name: 'conformance-model',
  call: async () => ({
    ok: true,
    text: 'This is a response from the conformance client.',
    usage: { inputTokens: 1, outputTokens: 9 },
  }),
};

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const suiteContext = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
/** Authorization scenarios: OAuth through the bridge's `auth` option (pre-registered client when the suite gives one). */
const provider = scenario.startsWith('auth/')
  ? new HeadlessOAuthProvider(
      typeof suiteContext.client_id === 'string'
        ? { client_id: suiteContext.client_id, client_secret: suiteContext.client_secret }
        : undefined,
    )
  : undefined;
const auth =
  provider === undefined ? undefined : { provider, authorizationCallback: () => provider.callback() };

const bridge = await connectMcp({
  name: 'conformance',
  transport: { kind: 'http', url, ...(auth === undefined ? {} : { auth }) },
  protocol,
  roots: [{ uri: 'file:///tmp/reins-conformance', name: 'conformance' }],
  sampling: { model: samplingModel, maxTokens: 256, maxCalls: 5 },
  // The suite plays the user: accept, with the form's defaults (checked against its schema).
  elicitation: () => ({ action: 'accept', content: {} }),
});
const status = bridge.status();
console.error(
  `connected: ${status.status} ${status.protocolVersion ?? ''} tools=${status.tools} ${status.lastError ?? ''}`,
);
const controller = new globalThis.AbortController();
const ctx = {
  principal: { id: 'conformance' },
  runId: 'conformance',
  actId: 'act',
  signal: controller.signal,
};
// Some scenarios name the calls to make (`toolCalls` in MCP_CONFORMANCE_CONTEXT, e.g. the
// SEP-2243 header values of `http-custom-headers`); other tools get inputs from their schema.
/** @type {Map<string, unknown[]>} */
const scripted = new Map();
for (const call of suiteContext.toolCalls ?? []) {
  scripted.set(call.name, [...(scripted.get(call.name) ?? []), call.arguments ?? {}]);
}
for (const tool of bridge.tools()) {
  const spec = /** @type {any} */ (toolSpec(tool));
  for (const input of scripted.get(tool.name) ?? [sampleObject(spec.inputSchema)]) {
    const parsed = tool.input.safeParse(input);
    try {
      const output = await tool.run(parsed.success ? parsed.data : input, ctx);
      console.error(`${tool.name}: ok ${JSON.stringify(output).slice(0, 200)}`);
    } catch (thrown) {
      console.error(`${tool.name}: ${/** @type {any} */ (thrown).code ?? 'error'} ${String(thrown)}`);
    }
  }
}
for (const skipped of bridge.skippedTools()) console.error(`skipped ${skipped.name}: ${skipped.reason}`);
await bridge.close();
