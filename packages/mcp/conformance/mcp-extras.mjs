// What the suite asks for that a Reins tool cannot express — server→client requests
// (sampling, elicitation, roots), multi-round `input_required` results, logging, list-change
// triggers, resources, prompts, completion — registered on the same server instances
// through the bridge's `extend` hook, with the SDK's own handlers.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  acceptedContent,
  inputRequired,
  ResourceNotFoundError,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { IMAGE } from './reins-tools.mjs';

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

/** @param {string} text */
const text = (text) => ({ content: [{ type: 'text', text }] });

/**
 * @param {import('@modelcontextprotocol/server').McpServer} server
 * @param {import('@modelcontextprotocol/server').McpRequestContext} context
 * @param {{ bus: import('@modelcontextprotocol/server').ServerEventBus,
 *           codec: import('@modelcontextprotocol/server').RequestStateCodec<any> }} shared
 */
export function registerExtras(server, context, { bus, codec }) {
  const legacy = context.era === 'legacy';
  /** @param {any} ctx */
  const clientCaps = (ctx) => ctx.mcpReq.envelope?.[CAPS] ?? server.server.getClientCapabilities() ?? {};
  const tool = server.registerTool.bind(server);
  const empty = { inputSchema: z.object({}) };

  // ----- 2025-era push-style tools (server→client requests on the session) -----
  tool('test_tool_with_logging', { description: 'Emits log messages', ...empty }, async (_a, ctx) => {
    for (const data of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
      await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data } });
      await sleep(50);
    }
    return text('Tool with logging executed successfully');
  });
  tool(
    'test_sampling',
    { description: 'Asks the client for an LLM completion', inputSchema: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const result = /** @type {any} */ (
        await ctx.mcpReq.requestSampling({
          messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
          maxTokens: 100,
        })
      );
      return text(`LLM response: ${result.content?.text ?? 'No response'}`);
    },
  );
  tool(
    'test_elicitation',
    { description: 'Asks the user for input', inputSchema: z.object({ message: z.string() }) },
    async ({ message }, ctx) => {
      const result = await ctx.mcpReq.elicitInput({
        message,
        requestedSchema: {
          type: 'object',
          properties: { response: { type: 'string', description: "User's response" } },
          required: ['response'],
        },
      });
      return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    },
  );
  tool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicitation with defaults', ...empty },
    async (_a, ctx) => {
      const result = await ctx.mcpReq.elicitInput({
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: {
              type: 'string',
              description: 'User status',
              enum: ['active', 'inactive', 'pending'],
              default: 'active',
            },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        },
      });
      return text(
        `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`,
      );
    },
  );
  tool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicitation with enums', ...empty },
    async (_a, ctx) => {
      const options = (/** @type {string} */ p, /** @type {string[]} */ titles) =>
        titles.map((title, i) => ({ const: `${p}${i + 1}`, title }));
      const result = await ctx.mcpReq.elicitInput({
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: {
              type: 'string',
              description: 'Select one option',
              enum: ['option1', 'option2', 'option3'],
            },
            titledSingle: {
              type: 'string',
              description: 'Select one option with titles',
              oneOf: options('value', ['First Option', 'Second Option', 'Third Option']),
            },
            legacyEnum: {
              type: 'string',
              description: 'Select one option (legacy)',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              description: 'Select multiple options',
              minItems: 1,
              maxItems: 3,
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              description: 'Select multiple options with titles',
              minItems: 1,
              maxItems: 3,
              items: { anyOf: options('value', ['First Choice', 'Second Choice', 'Third Choice']) },
            },
          },
          required: [],
        },
      });
      return text(
        `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`,
      );
    },
  );

  // ----- 2026-era tools -----
  tool(
    'test_logging_tool',
    { description: 'Logs (only at a level the request asked for)', ...empty },
    async (_a, ctx) => {
      await ctx.mcpReq.log('info', 'test_logging_tool ran');
      return text('logged');
    },
  );
  tool(
    'test_missing_capability',
    { description: 'Needs the sampling capability', ...empty },
    async (_a, ctx) => {
      const answer = /** @type {any} */ (ctx.mcpReq.inputResponses?.sample);
      if (answer?.content?.text !== undefined) return text(`The model said: ${answer.content.text}`);
      // Asking a client that did not declare `sampling`: the SDK answers -32021 at its seam.
      return inputRequired({
        inputRequests: {
          sample: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
            maxTokens: 20,
          }),
        },
      });
    },
  );
  tool(
    'test_streaming_elicitation',
    { description: 'Asks for input as an input_required result', ...empty },
    async (_a, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_name');
      if (typeof answer?.name === 'string') return text(`Hello, ${answer.name}!`);
      return inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: nameSchema }),
        },
      });
    },
  );
  tool('test_trigger_tool_change', { description: 'Publishes tools/list_changed', ...empty }, async () => {
    bus.publish({ kind: 'tools_list_changed' });
    return text('tools list change published');
  });
  tool(
    'test_trigger_prompt_change',
    { description: 'Publishes prompts/list_changed', ...empty },
    async () => {
      bus.publish({ kind: 'prompts_list_changed' });
      return text('prompts list change published');
    },
  );

  // ----- multi-round input_required (SEP-2322) -----
  tool(
    'test_input_required_result_elicitation',
    { description: 'MRTR: one elicitation', ...empty },
    async (_a, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_name');
      if (typeof answer?.name === 'string') return text(`Hello, ${answer.name}!`);
      return inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: nameSchema }),
        },
      });
    },
  );
  tool(
    'test_input_required_result_sampling',
    { description: 'MRTR: one sampling request', ...empty },
    async (_a, ctx) => {
      const answer = /** @type {any} */ (ctx.mcpReq.inputResponses?.capital_question);
      if (answer?.content?.text !== undefined) return text(`The model said: ${answer.content.text}`);
      return inputRequired({
        inputRequests: {
          capital_question: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
            maxTokens: 100,
          }),
        },
      });
    },
  );
  tool(
    'test_input_required_result_list_roots',
    { description: 'MRTR: roots/list', ...empty },
    async (_a, ctx) => {
      const answer = /** @type {any} */ (ctx.mcpReq.inputResponses?.client_roots);
      if (Array.isArray(answer?.roots))
        return text(`Roots: ${answer.roots.map((/** @type {any} */ r) => r.uri).join(', ')}`);
      return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    },
  );
  tool(
    'test_input_required_result_request_state',
    { description: 'MRTR: state round trip', ...empty },
    async (_a, ctx) => {
      const state = ctx.mcpReq.requestState();
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm');
      if (state?.step === 'confirm' && answer !== undefined) return text('state-ok: confirmed');
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: 'Please confirm',
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
          }),
        },
        requestState: await codec.mint({ step: 'confirm' }),
      });
    },
  );
  tool(
    'test_input_required_result_multiple_inputs',
    { description: 'MRTR: three requests', ...empty },
    async (_a, ctx) => {
      const r = ctx.mcpReq.inputResponses ?? {};
      if (
        ctx.mcpReq.requestState()?.step === 'all' &&
        ['user_name', 'greeting', 'client_roots'].every((k) => k in r)
      ) {
        return text('Every input answered; the call is complete.');
      }
      return inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: nameSchema }),
          greeting: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
            maxTokens: 50,
          }),
          client_roots: inputRequired.listRoots(),
        },
        requestState: await codec.mint({ step: 'all' }),
      });
    },
  );
  tool(
    'test_input_required_result_multi_round',
    { description: 'MRTR: two rounds', ...empty },
    async (_a, ctx) => {
      const step = ctx.mcpReq.requestState()?.step;
      if (step === 2 && acceptedContent(ctx.mcpReq.inputResponses, 'step2') !== undefined) {
        return text('Both rounds answered; the call is complete.');
      }
      if (step === 1 && acceptedContent(ctx.mcpReq.inputResponses, 'step1') !== undefined) {
        return inputRequired({
          inputRequests: {
            step2: inputRequired.elicit({
              message: 'Step 2: What is your favorite color?',
              requestedSchema: {
                type: 'object',
                properties: { color: { type: 'string' } },
                required: ['color'],
              },
            }),
          },
          requestState: await codec.mint({ step: 2 }),
        });
      }
      return inputRequired({
        inputRequests: {
          step1: inputRequired.elicit({ message: 'Step 1: What is your name?', requestedSchema: nameSchema }),
        },
        requestState: await codec.mint({ step: 1 }),
      });
    },
  );
  tool(
    'test_input_required_result_tampered_state',
    { description: 'MRTR: signed state', ...empty },
    async (_a, ctx) => {
      if (ctx.mcpReq.requestState()?.step === 'tamper-test')
        return text('Request state verified; the call is complete.');
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: 'Confirm?',
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
          }),
        },
        requestState: await codec.mint({ step: 'tamper-test' }),
      });
    },
  );
  tool(
    'test_input_required_result_capabilities',
    { description: 'MRTR: only declared capabilities', ...empty },
    async (_a, ctx) => {
      if (ctx.mcpReq.inputResponses !== undefined && Object.keys(ctx.mcpReq.inputResponses).length > 0) {
        return text('Declared-capability input answered.');
      }
      const caps = clientCaps(ctx);
      /** @type {Record<string, import('@modelcontextprotocol/server').InputRequest>} */
      const requests = {};
      if (caps.elicitation !== undefined)
        requests.user_name = inputRequired.elicit({
          message: 'What is your name?',
          requestedSchema: nameSchema,
        });
      if (caps.sampling !== undefined)
        requests.greeting = inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
          maxTokens: 50,
        });
      if (caps.roots !== undefined) requests.client_roots = inputRequired.listRoots();
      if (Object.keys(requests).length === 0) return text('The client declared no capability to ask with.');
      return inputRequired({ inputRequests: requests });
    },
  );

  // ----- resources -----
  server.registerResource(
    'static-text',
    'test://static-text',
    {
      title: 'Static Text Resource',
      description: 'A static text resource for testing',
      mimeType: 'text/plain',
    },
    async () => ({
      contents: [
        {
          uri: 'test://static-text',
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
      ],
    }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    {
      title: 'Static Binary Resource',
      description: 'A static binary resource (image)',
      mimeType: 'image/png',
    },
    async () => ({ contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: IMAGE }] }),
  );
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    {
      title: 'Resource Template',
      description: 'A template with parameter substitution',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const id = variables.id;
      return {
        contents: [
          {
            uri: uri.toString(),
            mimeType: 'application/json',
            text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
          },
        ],
      };
    },
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { title: 'Watched Resource', description: 'A resource clients may subscribe to', mimeType: 'text/plain' },
    async () => ({
      contents: [
        { uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content' },
      ],
    }),
  );
  void ResourceNotFoundError; // the SDK answers unknown URIs itself (-32602 with the uri)

  // ----- prompts -----
  server.registerPrompt(
    'test_simple_prompt',
    { title: 'Simple Test Prompt', description: 'A prompt without arguments' },
    async () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      title: 'Prompt With Arguments',
      description: 'A prompt with required arguments',
      argsSchema: z.object({
        arg1: z.string().describe('First test argument'),
        arg2: z.string().describe('Second test argument'),
      }),
    },
    async ({ arg1, arg2 }) => ({
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
        },
      ],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      title: 'Prompt With Embedded Resource',
      description: 'A prompt that includes an embedded resource',
      argsSchema: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }),
    },
    async ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_image',
    { title: 'Prompt With Image', description: 'A prompt with an image' },
    async () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: IMAGE, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    }),
  );
  server.registerPrompt(
    'test_input_required_result_prompt',
    { title: 'MRTR prompt', description: 'A prompt that asks for context first' },
    async (ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_context');
      if (typeof answer?.context === 'string') {
        return {
          messages: [{ role: 'user', content: { type: 'text', text: `Context: ${answer.context}` } }],
        };
      }
      return inputRequired({
        inputRequests: {
          user_context: inputRequired.elicit({
            message: 'What context should the prompt use?',
            requestedSchema: {
              type: 'object',
              properties: { context: { type: 'string' } },
              required: ['context'],
            },
          }),
        },
      });
    },
  );

  // ----- 2025-only protocol methods -----
  if (legacy) {
    server.server.setRequestHandler('resources/subscribe', async () => ({}));
    server.server.setRequestHandler('resources/unsubscribe', async () => ({}));
    server.server.setRequestHandler('logging/setLevel', async () => ({}));
  }
  server.server.setRequestHandler('completion/complete', async () => ({
    completion: { values: [], total: 0, hasMore: false },
  }));
}
