import type { ToolSpec } from '../model.js';
import { needsApproval, type AnyTool } from '../tool.js';
import { inputJsonSchema } from '../util/zod-duck.js';

const specCache = new WeakMap<AnyTool, ToolSpec>();

/** The model-facing description of a tool, generated from its input schema (cached per tool). */
export function toolSpec(tool: AnyTool): ToolSpec {
  let spec = specCache.get(tool);
  if (spec === undefined) {
    const inputSchema = inputJsonSchema(tool.input, `tool ${tool.name}`);
    spec = Object.freeze({
      name: tool.name,
      description: tool.description,
      inputSchema,
      readOnly: tool.readOnly,
    });
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

/** A tool set as a run needs it: by name, as model-facing specs, and the names. */
export interface ToolSet {
  readonly registry: ReadonlyMap<string, AnyTool>;
  readonly specs: readonly ToolSpec[];
  readonly names: readonly string[];
  /** Some tool of the set waits for approval (so its runs can pause). */
  readonly needsApproval: boolean;
}

const toolSets = new WeakMap<readonly AnyTool[], ToolSet>();

/**
 * The tool set of an array of tools, built once per array (apps pass the same array to
 * every run). An array changed after its first run is rebuilt, as its length or members differ.
 */
export function toolSet(tools: readonly AnyTool[]): ToolSet {
  const known = toolSets.get(tools);
  if (
    known !== undefined &&
    known.specs.length === tools.length &&
    tools.every((t) => known.registry.get(t.name) === t)
  ) {
    return known;
  }
  const specs = Object.freeze(tools.map(toolSpec));
  const set: ToolSet = {
    registry: toolRegistry(tools),
    specs,
    names: Object.freeze(specs.map((s) => s.name)),
    needsApproval: tools.some(needsApproval),
  };
  toolSets.set(tools, set);
  return set;
}
