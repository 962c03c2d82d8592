/** Where the stores' tables live: an optional schema and a name prefix (default `reins_`). */
export interface SqlStoreOptions {
  /** A schema of its own (must exist); default: the connection's search path. */
  readonly schema?: string;
  /** Prepended to every table and index name (default `reins_`). */
  readonly prefix?: string;
}

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface SqlNames {
  /** A table's qualified name (`schema.prefix_name`). */
  table(name: string): string;
  /** An index's name (unqualified: an index lives in its table's schema). */
  index(name: string): string;
}

/**
 * The checked names of the stores' tables. Names go into SQL text, so each part must be a
 * plain lower-case identifier; values are always parameters.
 */
export function sqlNames(options: SqlStoreOptions = {}, who = 'sql store'): SqlNames {
  const prefix = options.prefix ?? 'reins_';
  const check = (name: string): string => {
    if (!NAME.test(name)) throw new TypeError(`${who}: ${JSON.stringify(name)} is not a plain identifier`);
    return name;
  };
  if (prefix !== '') check(prefix);
  const schema = options.schema === undefined ? '' : `${check(options.schema)}.`;
  return {
    table: (name) => `${schema}${check(prefix + name)}`,
    index: (name) => check(prefix + name),
  };
}
