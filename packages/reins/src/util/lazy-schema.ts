/**
 * A stand-in for a zod schema that reins exports as a value but builds on first use, so
 * `import('reins')` does not load zod. Property reads, calls and `instanceof` go to the built
 * schema, so parsing and composing work; zod's own functions that key on the schema's
 * identity (`z.toJSONSchema`) need the schema itself, which is why exports also rebind to it
 * once zod is loaded. Built from reins' lazily loaded zod: using it before zod is loaded (no
 * run has started, no `await loadLazyParts()`) is a programmer mistake and throws, saying so.
 */
import { zodNow, type Zod } from './lazy-zod.js';

export function lazyZodSchema<T extends object>(name: string, build: (zod: Zod) => T): T {
  let built: T | undefined;
  const schema = (): T => {
    if (built !== undefined) return built;
    const zod = zodNow();
    if (zod === undefined) {
      throw new Error(
        `${name} is built with zod, which reins loads on first need: await loadLazyParts() before using it outside a run`,
      );
    }
    built = build(zod);
    return built;
  };
  // The target only stands in: the traps answer from the built schema. Own-key traps are left
  // to the empty target (the proxy invariants forbid reporting keys it lacks), so spreading
  // the proxy gives `{}`; zod reads schemas by property, which works.
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(schema(), key),
    set: (_target, key, value) => Reflect.set(schema(), key, value),
    has: (_target, key) => Reflect.has(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}
