/**
 * zod, loaded on first need instead of at `import('reins')` (it is about half of that import's
 * cost). Core works on the schemas users pass in (their own zod objects: `safeParse`,
 * `toJSONSchema()`, `.strict()`) without importing zod itself; the module is needed only for
 * `decisionSchema` and for a schema that lacks the `toJSONSchema()` method. Runs start the
 * load when they start (`preloadZod`); an app that defines tools has usually loaded zod itself
 * already, so the import then costs nothing.
 */
import type * as ZodModule from 'zod';

export type Zod = typeof ZodModule;

let loaded: Zod | undefined;
let loading: Promise<Zod> | undefined;

let onLoad: ((zod: Zod) => void)[] = [];

export function loadZod(): Promise<Zod> {
  loading ??= import('zod').then((module) => {
    loaded = module;
    for (const callback of onLoad) callback(module);
    onLoad = [];
    return module;
  });
  return loading;
}

/** Calls `callback` once zod is loaded (now, if it is); does not start the load. */
export function whenZodLoaded(callback: (zod: Zod) => void): void {
  if (loaded !== undefined) callback(loaded);
  else onLoad.push(callback);
}

/** The module if loaded (synchronous use), else `undefined`. */
export function zodNow(): Zod | undefined {
  return loaded;
}

/** Starts loading (a run does, when it starts); one check once it is loaded. */
export function preloadZod(): void {
  if (loading === undefined) void loadZod().catch(() => undefined);
}
