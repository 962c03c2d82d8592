// The suite's tool names that a Reins tool can express, as Reins tools: they are served
// through `executeAction` like any other (strict input, output schema, PII masking).
import { setTimeout as sleep } from 'node:timers/promises';
import { defineTool, ToolError } from 'reins';
import { z } from 'zod';

export const IMAGE =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
export const AUDIO = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const NO_INPUT = z.strictObject({});
const media = z.object({ data: z.string(), mimeType: z.string() });

/** @param {string} name @param {string} description @param {z.ZodType} output @param {() => unknown} run */
function fixed(name, description, output, run) {
  return defineTool({ name, description, input: NO_INPUT, output, readOnly: true, run });
}

export const reinsTools = [
  fixed(
    'test_simple_text',
    'Tests simple text content response',
    z.string(),
    () => 'This is a simple text response for testing.',
  ),
  fixed('test_image_content', 'Tests image content response', media, () => ({
    data: IMAGE,
    mimeType: 'image/png',
  })),
  fixed('test_audio_content', 'Tests audio content response', media, () => ({
    data: AUDIO,
    mimeType: 'audio/wav',
  })),
  fixed(
    'test_embedded_resource',
    'Tests embedded resource content response',
    z.object({ text: z.string() }),
    () => ({
      text: 'This is an embedded resource content.',
    }),
  ),
  fixed(
    'test_multiple_content_types',
    'Tests response with multiple content types (text, image, resource)',
    z.object({
      text: z.string(),
      image: z.string(),
      json: z.object({ test: z.string(), value: z.number() }),
    }),
    () => ({ text: 'Multiple content types test:', image: IMAGE, json: { test: 'data', value: 123 } }),
  ),
  fixed('test_error_handling', 'Tests error response handling', z.string(), () => {
    throw new ToolError('SERVICE_UNAVAILABLE', 'This tool intentionally returns an error for testing');
  }),
  defineTool({
    name: 'test_tool_with_progress',
    description: 'Tests tool that reports progress notifications',
    input: NO_INPUT,
    output: z.string(),
    readOnly: true,
    run: async (_input, ctx) => {
      for (const progress of [0, 50, 100]) {
        ctx.progress?.({ progress, total: 100, message: `Completed step ${progress} of 100` });
        if (progress !== 100) await sleep(50, undefined, { signal: ctx.signal });
      }
      return 'Progress test completed';
    },
  }),
];

/** How those results are shown as MCP content (the bridge's `present` option). */
export const present = {
  /** @param {any} r -- the checked result of the tool above */
  test_image_content: (r) => [{ type: 'image', data: r.data, mimeType: r.mimeType }],
  /** @param {any} r -- the checked result of the tool above */
  test_audio_content: (r) => [{ type: 'audio', data: r.data, mimeType: r.mimeType }],
  /** @param {any} r -- the checked result of the tool above */
  test_embedded_resource: (r) => [
    { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: r.text } },
  ],
  /** @param {any} r -- the checked result of the tool above */
  test_multiple_content_types: (r) => [
    { type: 'text', text: r.text },
    { type: 'image', data: r.image, mimeType: 'image/png' },
    {
      type: 'resource',
      resource: {
        uri: 'test://mixed-content-resource',
        mimeType: 'application/json',
        text: JSON.stringify(r.json),
      },
    },
  ],
};
