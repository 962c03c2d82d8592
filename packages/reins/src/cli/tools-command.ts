import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyTool } from '../tool.js';
import { approveDefinitions, readApprovedTools, writeApprovedTools } from '../drift/approved-file.js';
import { compareToolDefinitions, formatDriftReport } from '../drift/compare.js';
import { currentDefinitions, type ToolDefinitionSource, type ToolSet } from '../drift/check.js';
import type { ToolDefinitionSnapshot } from '../drift/definition.js';
import type { ToolsCommand } from './args.js';

/** Where the command writes (the CLI's `CliIo` fits). */
export interface ToolsIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** A loaded tool set and how to let go of it (MCP connections). */
export interface LoadedToolSet extends ToolSet {
  close?(): Promise<void> | void;
}

/** A module that cannot give a tool set: exit status 2. */
export class ToolModuleError extends Error {
  readonly code = 'INVALID_PARAMETER';
}

/**
 * `reins tools check | approve`. Check: 0 when the definitions in use are the approved ones, 1
 * on drift or without an approved set; approve: writes the set (0). 2: a module or file that
 * cannot be read.
 */
export async function toolsCommand(command: ToolsCommand, io: ToolsIo): Promise<number> {
  let set: LoadedToolSet;
  try {
    set =
      command.module === undefined
        ? { tools: (await import('./example-tools.js')).exampleTools() }
        : await loadToolModule(command.module);
  } catch (thrown) {
    io.err(`reins: INVALID_PARAMETER: ${(thrown as Error).message}\n`);
    return 2;
  }
  try {
    return await checkOrApprove(command, set, io);
  } finally {
    await set.close?.();
  }
}

/** The same for an app that builds its own tool set (e.g. `kitchen tools check`). */
export async function checkOrApprove(
  command: Pick<ToolsCommand, 'action' | 'approved' | 'json'>,
  set: ToolSet,
  io: ToolsIo,
): Promise<number> {
  let approved: ToolDefinitionSnapshot[] | undefined;
  try {
    approved = await readApprovedTools(command.approved);
  } catch (thrown) {
    io.err(`reins: INVALID_PARAMETER: ${(thrown as Error).message}\n`);
    return 2;
  }
  const { definitions, unchecked } = await currentDefinitions(set);
  const report = compareToolDefinitions(approved ?? [], definitions, unchecked);
  if (command.action === 'approve') {
    const next = approveDefinitions(
      approved ?? [],
      definitions,
      unchecked.map((u) => u.source),
    );
    let changed: boolean;
    try {
      changed = await writeApprovedTools(command.approved, next);
    } catch (thrown) {
      io.err(`reins: INVALID_PARAMETER: cannot write ${command.approved}: ${(thrown as Error).message}\n`);
      return 2;
    }
    if (command.json) io.out(`${JSON.stringify({ approved: next.length, changed, report }, null, 2)}\n`);
    else {
      for (const line of formatDriftReport(report)) io.out(`${line}\n`);
      io.out(
        changed
          ? `approved ${next.length} tool definitions: wrote ${command.approved} (commit it)\n`
          : `approved ${next.length} tool definitions: ${command.approved} was already up to date\n`,
      );
    }
    return 0;
  }
  if (command.json)
    io.out(`${JSON.stringify({ approvedFile: approved !== undefined, ...report }, null, 2)}\n`);
  else {
    if (approved === undefined)
      io.out(`no approved set at ${command.approved}: every tool counts as added\n`);
    for (const line of formatDriftReport(report)) io.out(`${line}\n`);
    if (!report.clean)
      io.out(`review the changes, then run \`tools approve\` and commit ${command.approved}\n`);
  }
  return report.clean && approved !== undefined ? 0 : 1;
}

/**
 * The tool set a module exports: `default` (or `tools`) is an array of tools, a `{ tools,
 * sources, close }` object, or a function returning either (awaited).
 */
export async function loadToolModule(file: string): Promise<LoadedToolSet> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  } catch (thrown) {
    throw new ToolModuleError(`cannot load --module ${file}: ${(thrown as Error).message}`, {
      cause: thrown,
    });
  }
  let exported = module['default'] ?? module['tools'];
  if (typeof exported === 'function') exported = await (exported as () => unknown)();
  const set = Array.isArray(exported) ? { tools: exported } : exported;
  if (!isToolSet(set)) {
    throw new ToolModuleError(
      `--module ${file} must export (default or \`tools\`) an array of tools, { tools, sources }, or a function returning one`,
    );
  }
  return set;
}

function isToolSet(value: unknown): value is LoadedToolSet {
  if (typeof value !== 'object' || value === null) return false;
  const { tools, sources } = value as { tools?: unknown; sources?: unknown };
  const toolsOk = tools === undefined || (Array.isArray(tools) && tools.every(isTool));
  const sourcesOk = sources === undefined || (Array.isArray(sources) && sources.every(isSource));
  return toolsOk && sourcesOk && (tools !== undefined || sources !== undefined);
}

function isTool(value: unknown): value is AnyTool {
  const t = value as Partial<AnyTool> | null;
  return typeof t === 'object' && t !== null && typeof t.name === 'string' && typeof t.run === 'function';
}

function isSource(value: unknown): value is ToolDefinitionSource {
  const s = value as Partial<ToolDefinitionSource> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.source === 'string' &&
    typeof s.toolDefinitions === 'function'
  );
}
