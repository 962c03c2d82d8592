import { afterAll, describe, expect, it } from 'vitest';
import { ToolError, type Model } from 'reins';
import { bridges, invoke, tool } from './helpers.js';

const fixture = bridges();
afterAll(() => fixture.closeAll());

// A raw JSON-RPC server (a compliant SDK server would not ask a client that never declared
// `sampling.tools` for tools): its one tool asks the client for sampling twice, first with
// `tools` (refused), then plainly, and reports both answers.
const SERVER = `
import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const waiting = new Map();
let next = 1000;
const ask = (params) => new Promise((resolve) => { const id = next++; waiting.set(id, resolve); send({ jsonrpc: '2.0', id, method: 'sampling/createMessage', params }); });
const question = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 };
createInterface({ input: process.stdin }).on('line', async (line) => {
  const m = JSON.parse(line);
  if (m.id !== undefined && m.method === undefined) return waiting.get(m.id)?.(m);
  if (m.method === 'initialize') return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } });
  if (m.method === 'tools/list') return send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'ask', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] } });
  if (m.method === 'tools/call') {
    const withTools = await ask({ ...question, tools: [{ name: 't', inputSchema: { type: 'object' } }] });
    const plain = await ask(question);
    const said = (r) => r.error ? 'refused: ' + r.error.message : 'answered: ' + r.result.content.text;
    return send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: said(withTools) + ' | ' + said(plain) }] } });
  }
  if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, result: {} });
});
`;

const model: Model = {
  name: 'm',
  call: () => Promise.resolve({ ok: true, text: 'hello', usage: { inputTokens: 1, outputTokens: 1 } }),
};

// A sampling request refused for asking for tools used to be charged first: the user's quota
// (`admit`, which counts the call) and the connection's budget were spent on a request that
// was never answered.
describe('a sampling request refused for what it asks', () => {
  it('costs neither the quota nor the connection budget', async () => {
    let admitted = 0;
    const bridge = await fixture.connect({
      transport: { kind: 'stdio', command: process.execPath, args: ['--input-type=module', '-e', SERVER] },
      protocol: 'legacy',
      sampling: { model, maxCalls: 1, admit: () => (admitted++, true) },
    });
    const result = await invoke(tool(bridge, 'ask'), {});
    if (result instanceof ToolError) throw result;
    expect(result).toMatch(/^refused: .*tools.* \| answered: hello$/);
    expect(admitted).toBe(1);
  });
});
