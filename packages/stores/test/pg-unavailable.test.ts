import { createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { pgUnavailableReason } from '@reins/stores';

// Issue 16.13: which `pg` failures mean "the database cannot answer now" (→ 503) and which are
// bugs or refusals of the statement itself (→ stay what they are). Every case is an error the
// real driver produced against this machine's PostgreSQL, a closed port or a silent listener.

const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };

async function thrownBy(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

/** A listener that accepts and never says anything (a hung server). */
async function silentListener(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const listener = await silentListener();
  await listener.close();
  return listener.port;
}

const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.end().catch(() => undefined);
});
const pool = (options: pg.PoolConfig): pg.Pool => {
  const made = new pg.Pool(options);
  made.on('error', () => undefined);
  pools.push(made);
  return made;
};

describe('pgUnavailableReason', () => {
  it('refused: nothing listens', async () => {
    const port = await closedPort();
    const error = await thrownBy(() => pool({ ...PG, port }).query('SELECT 1'));
    expect(pgUnavailableReason(error)).toBe('connection refused');
  });

  it('a server that never answers: the connect deadline (pool) and the client’s own', async () => {
    const silent = await silentListener();
    try {
      const viaPool = await thrownBy(() =>
        pool({ ...PG, port: silent.port, connectionTimeoutMillis: 200 }).query('SELECT 1'),
      );
      expect(pgUnavailableReason(viaPool)).toBe('no connection within the connect timeout');
      const client = new pg.Client({ ...PG, port: silent.port, connectionTimeoutMillis: 200 });
      client.on('error', () => undefined);
      expect(pgUnavailableReason(await thrownBy(() => client.connect()))).toMatch(
        /connect timeout|connection/,
      );
    } finally {
      await silent.close();
    }
  });

  it('a full pool past its connect deadline', async () => {
    const one = pool({ ...PG, max: 1, connectionTimeoutMillis: 200 });
    const held = await one.connect();
    try {
      const error = await thrownBy(() => one.query('SELECT 1'));
      expect(pgUnavailableReason(error)).toBe('no connection within the connect timeout');
    } finally {
      held.release();
    }
  });

  it('the client’s read deadline; the server’s statement timeout (57014)', async () => {
    const read = await thrownBy(() => pool({ ...PG, query_timeout: 100 }).query('SELECT pg_sleep(2)'));
    expect(pgUnavailableReason(read)).toBe('no answer within the query timeout');
    const statement = await thrownBy(() =>
      pool({ ...PG, statement_timeout: 100 }).query('SELECT pg_sleep(2)'),
    );
    expect((statement as { code?: string }).code).toBe('57014');
    expect(pgUnavailableReason(statement)).toBe('the statement timed out');
  });

  it('the connection is killed by the server (57P01 admin shutdown / connection lost)', async () => {
    const victim = new pg.Client(PG);
    victim.on('error', () => undefined);
    await victim.connect();
    const pid = ((await victim.query('SELECT pg_backend_pid() AS pid')).rows[0] as { pid: number }).pid;
    const sleeping = thrownBy(() => victim.query('SELECT pg_sleep(5)'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await pool(PG).query('SELECT pg_terminate_backend($1)', [pid]);
    const error = await sleeping;
    expect(pgUnavailableReason(error)).toMatch(/shutting down|connection lost/);
    // The client is unusable afterwards, and says so in a way that is recognised too.
    expect(pgUnavailableReason(await thrownBy(() => victim.query('SELECT 1')))).toMatch(/connection/);
    await victim.end().catch(() => undefined);
  });

  it('a closed pool (shutting down)', async () => {
    const closed = new pg.Pool(PG);
    await closed.end();
    expect(pgUnavailableReason(await thrownBy(() => closed.query('SELECT 1')))).toBe(
      'the pool is closed (shutting down)',
    );
  });

  it('server codes by SQLSTATE class: 53300 too many connections, 08006, 57P03', () => {
    const withCode = (code: string) => Object.assign(new Error('x'), { code });
    expect(pgUnavailableReason(withCode('53300'))).toBe('too many connections');
    expect(pgUnavailableReason(withCode('08006'))).toBe('connection failure');
    expect(pgUnavailableReason(withCode('57P03'))).toBe('the server is starting up');
    expect(pgUnavailableReason(new Error('wrapped', { cause: withCode('ECONNRESET') }))).toBe(
      'connection reset',
    );
  });

  it('statement errors and bugs are not outages', async () => {
    const db = pool(PG);
    expect(pgUnavailableReason(await thrownBy(() => db.query('SELEC 1')))).toBeUndefined(); // 42601
    expect(pgUnavailableReason(await thrownBy(() => db.query('SELECT 1/0')))).toBeUndefined(); // 22012
    expect(
      pgUnavailableReason(await thrownBy(() => db.query('SELECT * FROM no_such_table'))),
    ).toBeUndefined();
    expect(
      pgUnavailableReason(new TypeError("Cannot read properties of undefined (reading 'id')")),
    ).toBeUndefined();
    expect(pgUnavailableReason('a string')).toBeUndefined();
    expect(pgUnavailableReason(Object.assign(new Error('x'), { code: 'EPERM' }))).toBeUndefined();
  });
});
