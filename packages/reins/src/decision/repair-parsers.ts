/**
 * The repair parsers (JSON5, jsonrepair), loaded on first need instead of at `import('reins')`:
 * most replies are clean JSON, and loading both costs a few ms of every process start.
 *
 * Contract: `parseStructured` stays synchronous. Clean JSON and extraction never need these.
 * A reply that needs the one repair before they are loaded is answered as not repaired, with
 * `repairPending: true`, and the load starts; a caller that can wait awaits
 * `loadRepairParsers()` and parses again (the loops do, see `repairMisses`). Runs start the
 * load when they start, so by the time a model has answered it is usually done.
 */
export interface RepairParsers {
  readonly json5: (text: string) => unknown;
  readonly jsonrepair: (text: string) => string;
}

let loaded: RepairParsers | undefined;
let loading: Promise<RepairParsers> | undefined;
let misses = 0;

/** Loads the repair parsers (once; every later call returns the same promise). */
export function loadRepairParsers(): Promise<RepairParsers> {
  loading ??= Promise.all([import('json5'), import('jsonrepair')]).then(([json5, repair]) => {
    loaded = { json5: json5.default.parse, jsonrepair: repair.jsonrepair };
    return loaded;
  });
  return loading;
}

/** Starts loading the parsers (a run does, when it starts); one check once they are loaded. */
export function preloadRepairParsers(): void {
  if (loading === undefined) void loadRepairParsers().catch(() => undefined);
}

/** The parsers if loaded; otherwise counts a miss, starts the load and returns `undefined`. */
export function repairParsers(): RepairParsers | undefined {
  if (loaded !== undefined) return loaded;
  misses++;
  void loadRepairParsers().catch(() => undefined); // a failed load is reported to whoever awaits it
  return undefined;
}

/** True once the parsers are loaded: a parse needing repair is then final. */
export function repairParsersReady(): boolean {
  return loaded !== undefined;
}

/**
 * How many parses wanted a repair before the parsers were loaded. Read it before a
 * synchronous parse and after: a change means the parse is worth repeating after
 * `loadRepairParsers()` (parsing is deterministic, so the repeat is exact).
 */
export function repairMisses(): number {
  return misses;
}

/**
 * `parse()`, repeated once the repair parsers are loaded when it wanted them before: the
 * result a synchronous parse with the parsers at hand would have given. Synchronous when
 * nothing was missing.
 */
export function withRepairParsers<T>(parse: () => T): T | Promise<T> {
  const before = misses;
  const result = parse();
  if (misses === before) return result;
  return loadRepairParsers().then(parse);
}
