/**
 * The key of an object's internal state when it is seen through `withOwnSignal`: hidden from
 * its own keys, so a spread or `Object.keys` shows nothing of the run.
 */
export const INTERNAL: unique symbol = Symbol('reins.internal');

/**
 * `target` seen with an own, enumerable `signal` accessor: a spread (`{ ...target }`) copies
 * it as its value, so a wrapper that copies a model request or a tool context keeps a real
 * signal; yet the signal is made only when first read (an `AbortSignal` costs ~2–4 µs on
 * Node 20, and most models and tools never look). The accessor is the target's prototype
 * getter `signal`, reported as own by one shared proxy handler: a proxy costs ~40 ns, an own
 * accessor defined on every object ~200 ns (see bench/). The getter and methods run with the
 * proxy as `this`, so they read `this[INTERNAL]`, never `#private` fields.
 */
export function withOwnSignal<T extends { readonly signal: AbortSignal }>(target: T): T {
  return new Proxy(target, OWN_SIGNAL as ProxyHandler<T>);
}

/**
 * `withOwnSignal`, and the prototype getter `onDelta` reported as own too: a model request's
 * delta callback is made only when read (most models never stream), ~56 bytes and an
 * allocation per step saved.
 */
export function withOwnSignalAndDelta<T extends { readonly signal: AbortSignal; readonly onDelta: unknown }>(
  target: T,
): T {
  return new Proxy(target, OWN_SIGNAL_AND_DELTA as ProxyHandler<T>);
}

/** A proxy handler reporting the prototype getters `lazy` as own, enumerable accessors. */
function ownLazy(lazy: readonly string[]): ProxyHandler<object> {
  return {
    ownKeys(target) {
      const keys = Reflect.ownKeys(target);
      // A frozen target cannot report keys it does not have (a proxy invariant): seen as it is.
      if (!Object.isExtensible(target)) return keys;
      const at = keys.indexOf(INTERNAL);
      if (at !== -1) keys.splice(at, 1);
      for (const key of lazy) if (!keys.includes(key)) keys.push(key);
      return keys;
    },
    getOwnPropertyDescriptor(target, key) {
      const own = Reflect.getOwnPropertyDescriptor(target, key);
      if (own !== undefined && key !== INTERNAL) return own;
      if (!Object.isExtensible(target)) return own;
      if (typeof key !== 'string' || !lazy.includes(key)) return undefined;
      const getter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(target), key)?.get;
      return { get: getter, set: undefined, enumerable: true, configurable: true };
    },
  };
}

const OWN_SIGNAL = ownLazy(['signal']);
const OWN_SIGNAL_AND_DELTA = ownLazy(['signal', 'onDelta']);
