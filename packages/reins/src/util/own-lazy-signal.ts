/**
 * A descriptor for an own, enumerable `signal` accessor: a spread copies it (as its value),
 * yet the signal is computed only when first read. Defined per instance with
 * `Object.defineProperty` — a prototype getter would be lost by `{ ...object }`.
 */
export function ownLazySignal<T>(read: (self: T) => AbortSignal): PropertyDescriptor {
  return {
    enumerable: true,
    get(this: T): AbortSignal {
      return read(this);
    },
  };
}
