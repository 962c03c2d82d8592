import { describe, expect, it } from 'vitest';
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { ToolCatalog } from '../src/catalog.js';

const options = {
  server: 'demo',
  prefix: 'demo_',
  toolTimeoutMs: 1_000,
  maxDescriptionLength: 500,
  maxBase64Bytes: 1_000,
};
const call = async (): Promise<never> => {
  throw new Error('not called here');
};
const tool = (name: string): McpTool => ({
  name,
  description: `the ${name} tool`,
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true },
});

// `get.weather` and `get_weather` are both `demo_get_weather` in Reins: neither is offered
// while both are listed. Once the server lists only one of them, that one is offered again
// (the clash was remembered with the definition, so the survivor stayed skipped for good).
describe('a tool skipped for a name clash', () => {
  it('is offered again once the other tool is gone, and skipped again if it comes back', () => {
    const catalog = new ToolCatalog(options, call, {});
    catalog.applyListing([tool('get.weather'), tool('get_weather')]);
    catalog.approve('get.weather');
    catalog.approve('get_weather');
    expect(catalog.tools().map((t) => t.name)).toEqual([]);
    expect(
      catalog
        .skipped()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['get.weather', 'get_weather']);

    catalog.applyListing([tool('get_weather')]);
    expect(catalog.tools().map((t) => t.name)).toEqual(['demo_get_weather']);
    expect(catalog.skipped()).toEqual([]);

    catalog.applyListing([tool('get.weather'), tool('get_weather')]);
    expect(catalog.tools()).toEqual([]);
    expect(catalog.skipped()).toHaveLength(2);
  });
});
