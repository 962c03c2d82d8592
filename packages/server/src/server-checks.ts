import type { AnyTool, ToolPolicies } from 'reins';
import type { DurableRuns } from './durable-runs.js';
import type { HealthCheck } from './health.js';
import type { LimitStore } from './limit-store.js';
import type { RunRegistry } from './run-registry.js';
import type { ReinsServerOptions } from './server-options.js';
import type { SharedMode } from './shared/shared-mode.js';

export interface ServerChecksOptions {
  readonly durable: DurableRuns | undefined;
  readonly registry: RunRegistry;
  /** The shared limit store (Redis, or one given); undefined: in-process counters. */
  readonly limitStore: LimitStore | undefined;
  readonly agents: ReinsServerOptions['agents'];
  readonly policies: ToolPolicies;
  readonly shared: SharedMode | undefined;
  /** The app's own checks (`healthChecks`). */
  readonly extra: Readonly<Record<string, HealthCheck>>;
}

/** A write this recent proves the run store works (see the `store` check). */
const RECENT_WRITE_MS = 5_000;

/** The server's own `/health` checks (`store`, `redis`, `breakers`, `queue`), then the app's. */
export function serverChecks(o: ServerChecksOptions): Map<string, HealthCheck> {
  const { durable, registry, limitStore } = o;
  return new Map<string, HealthCheck>([
    [
      'store',
      durable === undefined
        ? () => ({ status: 'up', kind: 'memory', runs: registry.size })
        : async () => {
            // A store busy with writes that took one within the last few seconds (none failing
            // since) is up without a query: under load a query waits behind the runs' own
            // writes, and a busy store must not read as a down one.
            const ago = durable.busyWriteAgoMs();
            if (ago !== undefined && ago < RECENT_WRITE_MS)
              return { status: 'up', kind: 'durable', lastWriteMsAgo: Math.round(ago), runs: registry.size };
            return {
              status: 'up',
              kind: 'durable',
              unfinished: (await durable.store.unfinished()).length,
              runs: registry.size,
            };
          },
    ],
    [
      'redis',
      limitStore === undefined
        ? () => ({ status: 'disabled', detail: 'in-process counters' })
        : () => limitStore.ping(),
    ],
    ['breakers', breakerCheck(o.agents, o.policies)],
    ...(o.shared === undefined ? [] : [['queue', queueCheck(o.shared)] as const]),
    ...Object.entries(o.extra),
  ]);
}

/** The breaker of every tool of the static agents: `down` while one is open (its calls fail fast). */
function breakerCheck(agents: ReinsServerOptions['agents'], policies: ToolPolicies): HealthCheck {
  const tools = new Map<string, AnyTool>();
  for (const definition of Object.values(agents)) {
    if (typeof definition === 'function') continue; // built per caller: its tools are not known here
    for (const tool of definition.tools ?? []) tools.set(tool.name, tool);
  }
  return () => {
    const states = Object.fromEntries(
      [...tools].map(([name, tool]) => [name, policies.guardFor(tool).breakerState]),
    );
    const open = Object.entries(states)
      .filter(([, state]) => state !== 'closed')
      .map(([name]) => name);
    return open.length === 0
      ? { status: 'up', tools: states }
      : { status: 'down', detail: `breaker not closed: ${open.join(', ')}`, tools: states };
  };
}

/** The shared mode's queue: its depth (what workers are scaled on) and what this worker holds. */
function queueCheck(shared: SharedMode): HealthCheck {
  return async () => ({
    status: 'up',
    role: shared.role,
    ...(await shared.depth()),
    ...(shared.worker === undefined ? {} : { holding: shared.worker.holding }),
  });
}
