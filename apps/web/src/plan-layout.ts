import type { PlanVersion } from './run-events.js';

/** Each step's column: 0 for steps without dependencies, else one past its deepest dependency. */
export function layers(plan: PlanVersion): Map<string, number> {
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const depth = new Map<string, number>();
  const visit = (id: string, seen: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 0; // a cycle (the planner refuses these; draw it anyway)
    seen.add(id);
    const deps = byId.get(id)?.dependsOn.filter((d) => byId.has(d)) ?? [];
    const d = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((x) => visit(x, seen)));
    depth.set(id, d);
    return d;
  };
  for (const step of plan.steps) visit(step.id, new Set());
  return depth;
}
