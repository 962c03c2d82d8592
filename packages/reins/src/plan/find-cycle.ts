/**
 * Topological order of steps by their dependencies (Kahn), or the steps of one cycle, in
 * order, when there is none. `edges` maps a step to the steps it depends on (known ids only).
 */
export function topologicalOrder(
  ids: readonly string[],
  edges: ReadonlyMap<string, readonly string[]>,
): { readonly order: string[] } | { readonly cycle: string[] } {
  const waitingOn = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const id of ids) {
    const deps = edges.get(id) ?? [];
    waitingOn.set(id, deps.length);
    for (const dep of deps) {
      const list = dependents.get(dep) ?? [];
      list.push(id);
      dependents.set(dep, list);
    }
  }
  const ready = ids.filter((id) => waitingOn.get(id) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    const id = ready.shift() as string;
    order.push(id);
    for (const next of dependents.get(id) ?? []) {
      const left = (waitingOn.get(next) ?? 0) - 1;
      waitingOn.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  if (order.length === ids.length) return { order };
  const placed = new Set(order);
  return {
    cycle: oneCycle(
      ids.filter((id) => !placed.has(id)),
      edges,
    ),
  };
}

/** Walks dependencies from a step left over by the sort until a step repeats: that loop is a cycle. */
function oneCycle(left: readonly string[], edges: ReadonlyMap<string, readonly string[]>): string[] {
  const remaining = new Set(left);
  const path: string[] = [];
  const at = new Map<string, number>();
  let here = left[0] as string;
  while (!at.has(here)) {
    at.set(here, path.length);
    path.push(here);
    // Every step left over waits on another step left over, so this always finds one.
    here = (edges.get(here) ?? []).find((dep) => remaining.has(dep)) as string;
  }
  // The walk follows "depends on"; the cycle is reported in execution direction, from its
  // earliest-declared step.
  const cycle = path.slice(at.get(here)).reverse();
  const first = cycle.indexOf(left.find((id) => cycle.includes(id)) as string);
  return [...cycle.slice(first), ...cycle.slice(0, first)];
}
