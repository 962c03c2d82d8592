import type { ErrorCode } from '../errors.js';
import type { RunEvent } from '../events.js';
import type { Observation } from '../observation.js';
import { needsApproval, type AnyTool } from '../tool.js';

// The small rules of one step that need no loop state: which calls run alone, what a
// refused call observes, which observations a run has made.

/**
 * Whether a call must wait for the calls before it and run alone: it may change something, or
 * it may pause the run for approval — itself or through its fallback.
 */
export function runsAlone(registry: ReadonlyMap<string, AnyTool>, name: string): boolean {
  const tool = registry.get(name);
  if (tool === undefined) return false;
  if (!tool.readOnly || needsApproval(tool)) return true;
  const backup = tool.fallback === undefined ? undefined : registry.get(tool.fallback.tool);
  return backup !== undefined && (!backup.readOnly || needsApproval(backup));
}

/** An observation for a call the runtime refused before any tool ran. */
export function refusal(actId: string, tool: string, code: ErrorCode, message: string): Observation {
  const layer = code === 'INVALID_PARAMETER' ? 'input' : 'guard';
  return {
    actId,
    tool,
    status: 'rejected',
    error: { code, message, layer },
    source: 'runtime',
    durationMs: 0,
  };
}

/** The observations of a run so far, in log order (read once, when an answer is finalized). */
export function observationsOf(events: readonly RunEvent[]): Observation[] {
  const found: Observation[] = [];
  for (const event of events) {
    if (event.type === 'step' && event.phase === 'observe') found.push(event.observation);
  }
  return found;
}
