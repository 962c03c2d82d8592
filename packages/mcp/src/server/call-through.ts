import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { defaultDeps, executeAction, type ActEnv, type AnyTool, type Principal, type RunDeps } from 'reins';
import { observationResult, type PresentResult } from './observation-result.js';

export interface CallThroughOptions {
  readonly registry: ReadonlyMap<string, AnyTool>;
  readonly principal: Principal;
  readonly defaultTimeoutMs: number;
  readonly structured: boolean;
  readonly present: PresentResult | undefined;
  readonly deps: Partial<RunDeps> | undefined;
}

/**
 * One `tools/call` as one Reins act: the MCP request's cancellation (a
 * `notifications/cancelled`, or a closed 2026 response stream) is the act's signal, the
 * tool's `ctx.progress` becomes `notifications/progress` when the request carries a
 * progress token, and the checked observation becomes the result.
 */
export async function callThrough(
  toolName: string,
  args: unknown,
  ctx: ServerContext,
  options: CallThroughOptions,
): Promise<CallToolResult> {
  const deps = options.deps === undefined ? defaultDeps : { ...defaultDeps, ...options.deps };
  const progressToken = ctx.mcpReq._meta?.progressToken;
  const sent: Promise<void>[] = [];
  const env: ActEnv = {
    registry: options.registry,
    principal: options.principal,
    runId: `mcp:${String(ctx.mcpReq.id)}`,
    signal: ctx.mcpReq.signal,
    defaultTimeoutMs: options.defaultTimeoutMs,
    deps,
    progress:
      progressToken === undefined
        ? undefined
        : {
            toolProgress: (_actId, _tool, update) => {
              const notified = ctx.mcpReq
                .notify({
                  method: 'notifications/progress',
                  params: {
                    progressToken,
                    progress: update.progress,
                    ...(update.total === undefined ? {} : { total: update.total }),
                    ...(update.message === undefined ? {} : { message: update.message }),
                  },
                })
                .catch(() => undefined); // the stream may be gone (cancelled): nothing to tell
              sent.push(notified);
            },
          },
  };
  const observation = await executeAction({ actId: deps.newId(), tool: toolName, input: args ?? {} }, env);
  // Progress goes out before the result: a client drops progress that arrives after it.
  await Promise.all(sent);
  return observationResult(observation, { structured: options.structured, present: options.present });
}
