import { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';

export type Negotiation = 'auto' | 'legacy';

export function newClient(mode: Negotiation): Client {
  return new Client({ name: 'nutrition-e2e', version: '0.0.0' }, { versionNegotiation: { mode } });
}

/** The structured content of a successful call (and a check that the text block says the same). */
export function structured(result: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> {
  expect(result.isError).not.toBe(true);
  const content = result.content as { type: string; text?: string }[];
  expect(content[0]?.type).toBe('text');
  expect(JSON.parse(content[0]?.text ?? 'null')).toEqual(result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
}

/** The `{code, message}` of a failed call. */
export function toolError(result: Awaited<ReturnType<Client['callTool']>>): {
  code: string;
  message: string;
} {
  expect(result.isError).toBe(true);
  const content = result.content as { type: string; text?: string }[];
  return (JSON.parse(content[0]?.text ?? 'null') as { error: { code: string; message: string } }).error;
}

/** The same checks over any transport and either protocol revision. */
export async function exerciseNutritionTools(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['get_food', 'search_foods']);
  for (const tool of tools) {
    expect(tool.annotations?.readOnlyHint).toBe(true);
    expect(tool.outputSchema).toBeDefined();
    expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
  }

  const search = structured(
    await client.callTool({ name: 'search_foods', arguments: { query: '猪肉', limit: 3 } }),
  );
  expect(search).toMatchObject({ matchedAlias: '猪肉', representativeCode: 'O048', source: 'IFCT 2017' });
  const candidates = search['candidates'] as { code: string; energyKcal: number; provenance: string }[];
  expect(candidates.map((c) => c.code)).toEqual(['O048', 'O049', 'O050']);
  expect(candidates[0]).toMatchObject({ energyKcal: 237.3, provenance: 'mcp_exact' });

  const food = structured(await client.callTool({ name: 'get_food', arguments: { name: '西红柿' } }));
  expect(food).toMatchObject({
    code: 'D075',
    matchedAlias: '西红柿',
    provenance: 'mcp_exact',
    source: 'IFCT 2017',
    per100g: { energyKj: 79, energyKcal: 18.9 },
  });
  expect(structured(await client.callTool({ name: 'get_food', arguments: { code: 'O025' } }))).toMatchObject({
    name: 'Beef, shoulder',
  });

  const empty = structured(await client.callTool({ name: 'search_foods', arguments: { query: '豆腐' } }));
  expect(empty).toMatchObject({ candidates: [], representativeCode: null });
  expect(toolError(await client.callTool({ name: 'get_food', arguments: { name: '豆腐' } }))).toMatchObject({
    code: 'NOT_FOUND',
  });

  // Bad input is an error result with a code, and the server keeps serving.
  const invalid = [
    { name: 'search_foods', arguments: { query: '猪肉', space_id: 'other-family' } },
    { name: 'search_foods', arguments: { query: 'x'.repeat(101) } },
    { name: 'search_foods', arguments: { query: '   ' } },
    { name: 'search_foods', arguments: { query: '猪肉', limit: 21 } },
    { name: 'get_food', arguments: { code: 'O048', name: '猪肉' } },
    { name: 'get_food', arguments: {} },
    { name: 'get_food', arguments: { code: 'DROP TABLE' } },
  ];
  for (const call of invalid) {
    expect(toolError(await client.callTool(call)).code, JSON.stringify(call)).toBe('INVALID_PARAMETER');
  }
  expect(structured(await client.callTool({ name: 'get_food', arguments: { code: 'O048' } }))).toMatchObject({
    code: 'O048',
  });
}
