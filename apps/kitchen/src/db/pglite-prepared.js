// Prepared statements for the worker thread that owns the embedded database (`pglite-worker.js`).
// Plain JavaScript for the same reason as the worker: it runs in a worker thread.
import { parse, protocol } from '@electric-sql/pglite';

/** @import { PGlite } from '@electric-sql/pglite' */
/** @typedef {Awaited<ReturnType<PGlite['execProtocolStream']>>} BackendMessages */

const { serialize } = protocol;

/** The statements prepared: any other may change the schema (`mayChangeSchema`). */
const DML = /^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;

/**
 * PostgreSQL's "cached plan must not change result type": the table changed under a prepared
 * statement. Raised while planning, before the statement ran (its code, 0A000, is shared by
 * other "not supported" errors, which are not this).
 * @param {unknown} error
 */
export function planChanged(error) {
  const { code, message } = /** @type {{ code?: unknown; message?: unknown }} */ (error ?? {});
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change');
}

/** Names given so far, in this thread. */
let named = 0;

/**
 * @typedef {object} Statement
 * @property {string} name  the statement's name in the database session
 * @property {readonly number[]} types  its parameters' type OIDs, as PostgreSQL inferred them
 */

/** @param {readonly Uint8Array[]} parts */
function concat(parts) {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * PGlite's `query` parses, describes and plans its text at every call, in five protocol round
 * trips into the database. Here a DML text is prepared once by name (parse and describe), then
 * every call binds, describes its portal and executes it in one round trip; the rows come out
 * exactly as `query` would give them (PGlite's own serializers and result parser). A kitchen
 * read took ~550 µs of the database thread through `query`, ~230 µs prepared (in-memory, with
 * its index). The caller holds PGlite's locks as `query` does (`run`'s contract).
 *
 * Not prepared (the caller runs them with `query`): statements other than SELECT, INSERT,
 * UPDATE, DELETE and WITH, and any text past the first `max` ones. Any other statement may
 * change the schema, so it makes every prepared statement be prepared again (`forget`): their
 * old names are closed with the next prepare.
 */
export class PreparedStatements {
  /** @type {Map<string, Statement>} */
  #statements = new Map();
  /** Names of forgotten statements, closed in the session with the next prepare. @type {string[]} */
  #stale = [];
  #max;
  #db;

  /** @param {PGlite} db @param {number} [max] */
  constructor(db, max = 256) {
    this.#db = db;
    this.#max = max;
  }

  /** Whether `sql` runs prepared (else the caller runs it with `query`). @param {string} sql */
  accepts(sql) {
    return this.#statements.has(sql) || (this.#statements.size < this.#max && DML.test(sql));
  }

  /** How many texts are prepared now. */
  get size() {
    return this.#statements.size;
  }

  /**
   * Runs `sql` (one `accepts` took) with `params`; resolves to its rows. The caller holds
   * PGlite's locks as its `query` does (the transaction lock outside a transaction, the query
   * lock always). A statement whose table changed under it is prepared again: at once outside a
   * transaction (nothing ran), at its next call inside one (the error aborted the transaction).
   * @param {string} sql @param {readonly unknown[]} params @param {boolean} [inTransaction]
   * @returns {Promise<unknown[]>}
   */
  async run(sql, params, inTransaction = false) {
    try {
      try {
        return await this.#execute(await this.#prepared(sql), params);
      } catch (error) {
        if (!planChanged(error)) throw error;
        this.#forgetOne(sql);
        if (inTransaction) throw error;
        return await this.#execute(await this.#prepared(sql), params);
      }
    } catch (error) {
      // As PGlite's own errors do: the statement that failed.
      if (error instanceof Error && !('query' in error)) Object.assign(error, { query: sql });
      throw error;
    }
  }

  /** Whether `sql` may change the schema: anything but DML (then call `forget`). @param {string} sql */
  static mayChangeSchema(sql) {
    return !DML.test(sql);
  }

  /** A statement that may change the schema ran: every text is prepared again at its next call. */
  forget() {
    for (const { name } of this.#statements.values()) this.#stale.push(name);
    this.#statements.clear();
  }

  /** @param {string} sql */
  #forgetOne(sql) {
    const statement = this.#statements.get(sql);
    if (statement === undefined) return;
    this.#stale.push(statement.name);
    this.#statements.delete(sql);
  }

  /** @param {string} sql @returns {Promise<Statement>} */
  async #prepared(sql) {
    const known = this.#statements.get(sql);
    if (known !== undefined) return known;
    const name = `reins_p${++named}`; // unique in the process: two instances may share a session
    const closes = this.#stale.map((stale) => serialize.close({ type: 'S', name: stale }));
    this.#stale = [];
    const messages = await this.#send([
      ...closes,
      serialize.parse({ name, text: sql }),
      serialize.describe({ type: 'S', name }),
      serialize.sync(),
    ]);
    const description = messages.find((m) => m.name === 'parameterDescription');
    const types =
      description === undefined
        ? []
        : /** @type {{ dataTypeIDs: number[] }} */ (/** @type {unknown} */ (description)).dataTypeIDs;
    /** @type {Statement} */
    const statement = { name, types };
    this.#statements.set(sql, statement);
    return statement;
  }

  /** @param {Statement} statement @param {readonly unknown[]} params */
  async #execute(statement, params) {
    const db = this.#db;
    // As PGlite's `query` serializes them: by the parameter's type, else the value's own text.
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[statement.types[i] ?? 0];
      return serializer !== undefined ? serializer(value) : String(value);
    });
    const messages = await this.#send([
      serialize.bind({ statement: statement.name, values }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    const [result] = parse.parseResults(messages, db.parsers);
    return result?.rows ?? [];
  }

  /**
   * One round trip; the Sync at its end brings the session back after an error, which rejects
   * (PGlite's `DatabaseError`, with PostgreSQL's fields).
   * @param {readonly Uint8Array[]} parts @returns {Promise<BackendMessages>}
   */
  #send(parts) {
    return this.#db.execProtocolStream(concat(parts), { syncToFs: false });
  }
}
