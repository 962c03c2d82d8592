/**
 * Secret blanking for log lines: the paths pino's `redact` option takes (`a.b`, `a["x-y"]`,
 * `*.key`), compiled once into a tree and applied to each line's object by a pino formatter.
 * A line holding no secret is returned as it is (no copy); one that does is copied only along
 * the path to the secret, so the caller's object is never changed. pino's own `redact`
 * (`@pinojs/redact`) parsed every path and cloned part of the object on every line: ~6% of
 * everything the kitchen server allocated under load, for lines that never hold a secret (see
 * docs/performance.md). As there, a line's own key whose value is `undefined` stays out of the
 * line, and a deeper one is blanked.
 */

/** One step of the compiled paths: blank here, or look further under these keys (or any key). */
interface PathNode {
  censor: boolean;
  readonly keys: Map<string, PathNode>;
  any: PathNode | undefined;
}

const newNode = (): PathNode => ({ censor: false, keys: new Map(), any: undefined });

/** `a.b`, `a["x-y"]`, `a['x']`, `*.key` → their segments; a malformed path throws (a programmer mistake). */
export function pathSegments(path: string): string[] {
  const malformed = (): Error => new Error(`redact path ${JSON.stringify(path)} is malformed`);
  const segments: string[] = [];
  let at = 0;
  while (at < path.length) {
    if (path[at] === '[') {
      const quote = path[at + 1];
      if (quote !== '"' && quote !== "'") throw malformed();
      const close = path.indexOf(`${quote}]`, at + 2);
      if (close === -1) throw malformed();
      segments.push(path.slice(at + 2, close));
      at = close + 2;
      continue;
    }
    if (segments.length > 0) {
      if (path[at] !== '.') throw malformed();
      at++;
    }
    let end = at;
    while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
    if (end === at) throw malformed();
    segments.push(path.slice(at, end));
    at = end;
  }
  if (segments.length === 0) throw malformed();
  return segments;
}

function compile(paths: readonly string[]): PathNode {
  const root = newNode();
  for (const path of paths) {
    let node = root;
    for (const segment of pathSegments(path)) {
      let next = segment === '*' ? node.any : node.keys.get(segment);
      if (next === undefined) {
        next = newNode();
        if (segment === '*') node.any = next;
        else node.keys.set(segment, next);
      }
      node = next;
    }
    node.censor = true;
  }
  return root;
}

type Container = Record<string, unknown> | unknown[];

/**
 * A function that returns `value` with every path blanked to `censor`: `value` itself when none
 * is present, else a copy of each object on the way to a secret (the rest shared).
 */
export function secretRedactor(paths: readonly string[], censor: string): <T>(value: T) => T {
  const root = compile(paths);
  const redactIn = (value: unknown, node: PathNode): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    const source = value as Container;
    let copy: Container | undefined;
    const put = (key: string, next: unknown): void => {
      copy ??= copyOf(source);
      Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
    };
    for (const [key, child] of node.keys) {
      if (!Object.hasOwn(source, key)) continue;
      const item = (source as Record<string, unknown>)[key];
      if (item === undefined && node === root) continue; // pino leaves it out of the line
      const next = child.censor ? censor : redactIn(item, child);
      if (next !== item) put(key, next);
    }
    const any = node.any;
    if (any !== undefined) {
      for (const key of Object.keys(source)) {
        const item = ((copy ?? source) as Record<string, unknown>)[key];
        if (item === undefined && node === root) continue;
        const next = any.censor ? censor : redactIn(item, any);
        if (next !== item) put(key, next);
      }
    }
    return copy ?? value;
  };
  return <T>(value: T): T => redactIn(value, root) as T;
}

/**
 * A copy to blank a key in: an array or a plain object by spreading; anything else (an `Error`
 * under `err`, a class instance) keeps its prototype and every own property, enumerable or not
 * (an own getter's value read on the original), so pino's error serializer still finds `message`
 * and `stack`, and a `toJSON` still applies.
 */
function copyOf(source: Container): Container {
  if (Array.isArray(source)) return [...source];
  const prototype: unknown = Object.getPrototypeOf(source);
  if (prototype === Object.prototype || prototype === null) return { ...source };
  const properties = Object.getOwnPropertyDescriptors(source);
  for (const key of Reflect.ownKeys(properties)) {
    const property = properties[key as keyof typeof properties] as PropertyDescriptor;
    // An own getter may read the original's internal slots (an Error's `stack` on Node 24): its value, read there.
    if (property.get !== undefined || property.set !== undefined) {
      properties[key as keyof typeof properties] = {
        value: (source as Record<PropertyKey, unknown>)[key],
        enumerable: property.enumerable ?? false,
        writable: true,
        configurable: true,
      };
    }
  }
  // On Node 24 an Error's `stack` may be a getter of Error.prototype reading the original's
  // internal slot: the copy gets the text itself.
  if (source instanceof Error) {
    properties['stack' as keyof typeof properties] = {
      value: source.stack,
      enumerable: false,
      writable: true,
      configurable: true,
    };
  }
  return Object.create(prototype as object, properties) as Container;
}
