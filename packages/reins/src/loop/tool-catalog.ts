import { z } from 'zod';
import type { ToolSpec } from '../model.js';
import type { AnyTool } from '../tool.js';

const specCache = new WeakMap<AnyTool, ToolSpec>();

/** The model-facing description of a tool, generated from its input schema (cached per tool). */
export function toolSpec(tool: AnyTool): ToolSpec {
  let spec = specCache.get(tool);
  if (spec === undefined) {
    const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<
      string,
      unknown
    >;
    spec = Object.freeze({ name: tool.name, description: tool.description, inputSchema });
    specCache.set(tool, spec);
  }
  return spec;
}

/** Name → tool, refusing duplicate names (a programmer mistake). */
export function toolRegistry(tools: readonly AnyTool[]): ReadonlyMap<string, AnyTool> {
  const registry = new Map<string, AnyTool>();
  for (const tool of tools) {
    if (registry.has(tool.name)) throw new TypeError(`duplicate tool name ${JSON.stringify(tool.name)}`);
    registry.set(tool.name, tool);
  }
  return registry;
}
