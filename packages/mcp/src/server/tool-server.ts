import {
  McpServer,
  type McpRequestContext,
  type McpServerFactory,
  type McpServerOptions,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ANONYMOUS, type AnyTool, type Principal, type RunDeps } from 'reins';
import { advertisedOnly, isObjectSchema } from './advertised-schema.js';
import { callThrough } from './call-through.js';
import type { PresentResult } from './observation-result.js';
import { principalFromAuthInfo } from './principal-auth-info.js';

export interface McpToolServerOptions {
  /** `serverInfo.name` / `version` as clients see them. */
  readonly name: string;
  readonly version: string;
  /** The Reins tools to serve. Read-only ones are served as they are; see `allowWrite`. */
  readonly tools: readonly AnyTool[];
  /**
   * Names of tools that change things (`readOnly: false`) which may be served anyway. A
   * non-read-only tool not named here is a programmer mistake (`TypeError`): exposing a
   * write over MCP is a decision, not a default.
   */
  readonly allowWrite?: readonly string[];
  /** Per tool name: how its checked result becomes content blocks (default: text/JSON). */
  readonly present?: Readonly<Record<string, PresentResult>>;
  /** A tool's timeout when it sets none. Default 30 s. */
  readonly defaultTimeoutMs?: number;
  readonly instructions?: string;
  /** Passed to every `McpServer` (capabilities are merged with the tools capability). */
  readonly serverOptions?: McpServerOptions;
  /**
   * Registers more on each server instance (resources, prompts, MCP-native tools) — for
   * what a Reins tool cannot express. What it registers does not go through `executeAction`.
   */
  readonly extend?: (server: McpServer, context: McpRequestContext) => void;
  readonly deps?: Partial<RunDeps>;
}

/** A tool set ready to serve: hand `factory(...)` to stdio or HTTP serving. */
export interface McpToolServer {
  readonly name: string;
  readonly version: string;
  /** The MCP names served, in order. */
  readonly toolNames: readonly string[];
  /**
   * The v2 SDK factory (`({ era }) => McpServer`), one instance per connection (stdio,
   * sessionful 2025 HTTP) or per request (2026 HTTP). The principal of a call is the one the
   * HTTP layer authenticated (carried in `authInfo`); without one, `fallback`.
   */
  factory(fallback?: Principal): McpServerFactory;
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };

/**
 * Serves chosen Reins tools as MCP tools. Every call runs through the core's
 * `executeAction` — strict input (stray keys, types, sizes) before the tool runs, its
 * timeout, output schema, business check and PII masking — with the authenticated
 * principal in `ctx` (never in arguments), MCP progress from `ctx.progress` and MCP
 * cancellation as `ctx.signal`. Throws `TypeError` for a bad tool set.
 */
export function createMcpToolServer(options: McpToolServerOptions): McpToolServer {
  const allowWrite = new Set(options.allowWrite ?? []);
  const names = new Set<string>();
  for (const tool of options.tools) {
    if (names.has(tool.name)) throw new TypeError(`duplicate tool name ${JSON.stringify(tool.name)}`);
    names.add(tool.name);
    if (!tool.readOnly && !allowWrite.has(tool.name)) {
      throw new TypeError(
        `tool ${JSON.stringify(tool.name)} is not read-only: name it in allowWrite to serve it over MCP`,
      );
    }
    if (!isObjectSchema(tool.input, 'input')) {
      throw new TypeError(`tool ${JSON.stringify(tool.name)}: an MCP tool's input must be an object schema`);
    }
  }
  for (const name of allowWrite) {
    if (!names.has(name))
      throw new TypeError(`allowWrite names ${JSON.stringify(name)}, which is not served`);
  }
  const registry: ReadonlyMap<string, AnyTool> = new Map(options.tools.map((t) => [t.name, t]));
  const structured = new Map(options.tools.map((t) => [t.name, isObjectSchema(t.output, 'output')]));
  const timeoutMs = options.defaultTimeoutMs ?? 30_000;

  function build(context: McpRequestContext, fallback: Principal): McpServer {
    const serverOptions = options.serverOptions ?? {};
    const server = new McpServer(
      { name: options.name, version: options.version },
      {
        ...serverOptions,
        ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
        capabilities: {
          ...serverOptions.capabilities,
          tools: { listChanged: false, ...serverOptions.capabilities?.tools },
        },
      },
    );
    for (const tool of options.tools) {
      const isStructured = structured.get(tool.name) === true;
      server.registerTool(
        tool.name,
        {
          description: tool.description,
          inputSchema: advertisedOnly(tool.input),
          ...(isStructured ? { outputSchema: advertisedOnly(tool.output) } : {}),
          annotations: tool.readOnly ? READ_ONLY : { readOnlyHint: false },
        },
        (args: unknown, ctx: ServerContext) =>
          callThrough(tool.name, args, ctx, {
            registry,
            principal: principalFromAuthInfo(ctx.http?.authInfo) ?? fallback,
            defaultTimeoutMs: timeoutMs,
            structured: isStructured,
            present: options.present?.[tool.name],
            deps: options.deps,
          }),
      );
    }
    options.extend?.(server, context);
    return server;
  }

  return {
    name: options.name,
    version: options.version,
    toolNames: [...names],
    factory:
      (fallback = ANONYMOUS) =>
      (context) =>
        build(context, fallback),
  };
}
