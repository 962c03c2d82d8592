import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError, type Model, type ModelRequest, type Principal } from 'reins';
import { connectMcp, type ConnectMcpOptions, type McpBridge } from '@reins/mcp';
import { invoke, tool } from './helpers.js';
import { buildMcp, stop } from './support/tool-server-process.js';

// Server→client requests answered by the client bridge: sampling, elicitation, roots. The
// peer is the conformance fixture (our server bridge with the suite's tools): on 2025-11-25
// it sends `sampling/createMessage` / `elicitation/create` mid-call; on 2026-07-28 it answers
// with `input_required` results that the client fulfils and retries.
const FIXTURE = fileURLToPath(new URL('../conformance/server.mjs', import.meta.url));
let server: ChildProcess | undefined;
let url = '';
const open: McpBridge[] = [];

beforeAll(async () => {
  buildMcp();
  server = spawn(process.execPath, [FIXTURE, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(server.stdout!, 'data')) as [Buffer];
  url = line.toString().trim();
});
afterAll(async () => {
  await Promise.all(open.splice(0).map((b) => b.close()));
  await stop(server);
});

/** A model that records its requests and answers `text`. */
function recordingModel(text: string): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    name: 'recording',
    requests,
    call: (request) => {
      requests.push(request);
      return Promise.resolve({
        ok: true,
        text,
        usage: { inputTokens: 3, outputTokens: Math.ceil(text.length / 4) },
      });
    },
  };
}

async function connect(protocol: ConnectMcpOptions['protocol'], options: Partial<ConnectMcpOptions>) {
  const bridge = await connectMcp({
    name: 'conformance',
    transport: { kind: 'http', url },
    protocol,
    ...options,
  });
  open.push(bridge);
  return bridge;
}

describe('sampling', () => {
  it('2025-11-25: answers a mid-call sampling request with the Reins model, charged to the caller', async () => {
    const model = recordingModel('Paris.');
    const admitted: Principal[] = [];
    const bridge = await connect('legacy', {
      sampling: { model, admit: (principal) => (admitted.push(principal), true) },
    });
    expect(await invoke(tool(bridge, 'test_sampling'), { prompt: 'Capital of France?' })).toBe(
      'LLM response: Paris.',
    );
    expect(model.requests.map((r) => r.messages)).toEqual([
      [{ role: 'user', content: 'Capital of France?' }],
    ]);
    expect(admitted).toEqual([{ id: 'tester' }]);
  });

  it('2026-07-28: fulfils an input_required sampling request and retries the call', async () => {
    const model = recordingModel('Paris.');
    const bridge = await connect({ pin: '2026-07-28' }, { sampling: { model } });
    expect(await invoke(tool(bridge, 'test_input_required_result_sampling'), {})).toBe(
      'The model said: Paris.',
    );
    expect(model.requests).toHaveLength(1);
  });

  it('is bounded: the reply is cut at maxTokens, the connection budget and the quota refuse', async () => {
    const model = recordingModel('x'.repeat(4_000));
    let quotaLeft = 1;
    const bridge = await connect('legacy', {
      sampling: { model, maxTokens: 10, maxCalls: 2, admit: () => quotaLeft-- > 0 },
    });
    const sampling = tool(bridge, 'test_sampling');
    expect(await invoke(sampling, { prompt: 'long' })).toBe(`LLM response: ${'x'.repeat(40)}`);
    const overQuota = await invoke(sampling, { prompt: 'again' });
    expect(overQuota).toBeInstanceOf(ToolError);
    expect((overQuota as ToolError).message).toMatch(/quota/);
    quotaLeft = 5;
    expect(await invoke(sampling, { prompt: 'third' })).toMatch(/^LLM response: x+$/);
    const overBudget = await invoke(sampling, { prompt: 'fourth' });
    expect((overBudget as ToolError).message).toMatch(/budget/);
    expect(model.requests).toHaveLength(2); // refused requests never reach the model
  });

  it('is not advertised without a model: the server cannot sample', async () => {
    const bridge = await connect('legacy', {});
    const refused = await invoke(tool(bridge, 'test_sampling'), { prompt: 'hi' });
    expect(refused).toBeInstanceOf(ToolError);
    expect((refused as ToolError).message).toMatch(/sampling/i);
  });
});

describe('elicitation', () => {
  it('a handler answers with content checked against the requested schema', async () => {
    const seen: unknown[] = [];
    const bridge = await connect('legacy', {
      elicitation: (request, ctx) => {
        seen.push([request.message, ctx?.principal.id]);
        return { action: 'accept', content: { response: 'yes' } };
      },
    });
    expect(await invoke(tool(bridge, 'test_elicitation'), { message: 'Proceed?' })).toBe(
      'User response: action=accept, content={"response":"yes"}',
    );
    expect(seen).toEqual([['Proceed?', 'tester']]);
  });

  it('content that does not fit the schema is sent as decline, never as-is', async () => {
    const bridge = await connect('legacy', {
      elicitation: () => ({ action: 'accept', content: { response: 42, extra: 'smuggled' } }),
    });
    expect(await invoke(tool(bridge, 'test_elicitation'), { message: 'Proceed?' })).toBe(
      'User response: action=decline, content={}',
    );
  });

  it("'decline' advertises elicitation and declines every request (no user is impersonated)", async () => {
    const bridge = await connect('legacy', { elicitation: 'decline' });
    expect(await invoke(tool(bridge, 'test_elicitation'), { message: 'Proceed?' })).toBe(
      'User response: action=decline, content={}',
    );
  });

  it('2026-07-28: fulfils an input_required elicitation; a required field left empty is declined', async () => {
    const ada = await connect(
      { pin: '2026-07-28' },
      { elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }) },
    );
    expect(await invoke(tool(ada, 'test_input_required_result_elicitation'), {})).toBe('Hello, Ada!');
    const empty = await connect(
      { pin: '2026-07-28' },
      { elicitation: () => ({ action: 'accept', content: {} }) },
    );
    // `name` is required and has no default: the empty answer does not fit → declined, and
    // the server keeps asking until the SDK's round limit.
    expect(await invoke(tool(empty, 'test_input_required_result_elicitation'), {})).toBeInstanceOf(ToolError);
  });
});

describe('roots', () => {
  it('2026-07-28: lists the advertised roots, and setRoots changes them', async () => {
    const bridge = await connect(
      { pin: '2026-07-28' },
      { roots: [{ uri: 'file:///srv/recipes', name: 'recipes' }] },
    );
    const listRoots = tool(bridge, 'test_input_required_result_list_roots');
    expect(await invoke(listRoots, {})).toBe('Roots: file:///srv/recipes');
    await bridge.setRoots([{ uri: 'file:///srv/menus' }, { uri: 'file:///srv/plans' }]);
    expect(await invoke(listRoots, {})).toBe('Roots: file:///srv/menus, file:///srv/plans');
  });

  it('2025-11-25: setRoots notifies the server; only file:// roots are accepted', async () => {
    const bridge = await connect('legacy', { roots: [] });
    await bridge.setRoots([{ uri: 'file:///srv/recipes' }]);
    await expect(bridge.setRoots([{ uri: 'https://example.com' }])).rejects.toThrow(TypeError);
    const without = await connect('legacy', {});
    await expect(without.setRoots([])).rejects.toThrow(TypeError);
  });
});
