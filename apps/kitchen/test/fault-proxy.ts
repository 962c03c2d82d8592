import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'blackhole';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL), switchable between three
 * conditions a client meets on a bad day:
 * - `pass`: bytes flow both ways;
 * - `refuse`: the listener is closed (a new connection gets ECONNREFUSED) and every open
 *   connection is destroyed (the server "went away");
 * - `blackhole`: connections are accepted and kept open, and nothing flows either way on new or
 *   existing ones — no answer, no FIN, no RST (a hung server or a dropped network path).
 * Back to `pass`: the listener reopens on the same port; held connections flow again.
 */
export interface FaultProxy {
  readonly port: number;
  readonly mode: ProxyMode;
  set(mode: ProxyMode): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  readonly client: Socket;
  upstream: Socket | undefined;
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const pairs = new Set<Pair>();
  let mode: ProxyMode = 'pass';
  let server: Server | undefined;

  const forget = (pair: Pair): void => {
    pairs.delete(pair);
    pair.client.destroy();
    pair.upstream?.destroy();
  };
  // Not pipe(): its back-pressure handling may resume a source that `blackhole` paused.
  const forward = (from: Socket, to: Socket): void => {
    from.on('data', (chunk: Buffer) => {
      if (mode === 'blackhole') {
        from.pause();
        from.unshift(chunk); // kept, not lost: it flows if the path comes back
        return;
      }
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => mode !== 'blackhole' && from.resume());
      }
    });
  };
  const wire = (pair: Pair): void => {
    const upstream = connect(target.port, target.host);
    pair.upstream = upstream;
    forward(pair.client, upstream);
    forward(upstream, pair.client);
    upstream.on('error', () => forget(pair));
    upstream.on('close', () => forget(pair));
  };
  const accept = (client: Socket): void => {
    const pair: Pair = { client, upstream: undefined };
    pairs.add(pair);
    client.on('error', () => forget(pair));
    client.on('close', () => forget(pair));
    if (mode === 'blackhole')
      client.pause(); // accepted, never forwarded, never closed
    else wire(pair);
  };
  const listen = (port: number): Promise<Server> =>
    new Promise((resolve, reject) => {
      const s = createServer(accept);
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve(s));
    });

  server = await listen(0);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const port = address.port;

  const closeListener = async (): Promise<void> => {
    const s = server;
    server = undefined;
    if (s !== undefined) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  return {
    port,
    get mode() {
      return mode;
    },
    set: async (next) => {
      if (next === mode) return;
      mode = next;
      if (next === 'refuse') {
        for (const pair of [...pairs]) forget(pair);
        await closeListener();
      } else if (next === 'blackhole') {
        server ??= await listen(port);
        for (const pair of pairs) {
          pair.client.pause();
          pair.upstream?.pause();
        }
      } else {
        server ??= await listen(port);
        for (const pair of pairs) {
          if (pair.upstream === undefined) wire(pair);
          pair.client.resume();
          pair.upstream?.resume();
        }
      }
    },
    close: async () => {
      for (const pair of [...pairs]) forget(pair);
      await closeListener();
    },
  };
}
