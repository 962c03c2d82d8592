/**
 * Whether a failure of a `pg` call means "PostgreSQL cannot answer now" (refused, unreachable,
 * timed out, restarting, out of connections) rather than "this statement is wrong". Returns a
 * short reason for the first kind, `undefined` for everything else (a bug or a constraint:
 * those stay what they are).
 *
 * `pg` reports its own deadlines and lost connections as plain `Error`s with fixed messages
 * (no codes), so those are matched by message; socket errors by their `code`; server errors by
 * their SQLSTATE class.
 */
export function pgUnavailableReason(thrown: unknown): string | undefined {
  for (let error = thrown, depth = 0; error instanceof Error && depth < 4; depth++) {
    const reason = ownReason(error);
    if (reason !== undefined) return reason;
    error = error.cause;
  }
  return undefined;
}

// Socket errors (node:net, dns) on connect or mid-query.
const SOCKET_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection broken',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EHOSTDOWN: 'host down',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EADDRNOTAVAIL: 'address not available',
};

// SQLSTATE codes and classes: 08 connection exception, 53 insufficient resources (53300 too many
// connections), 57P01-03 shutdown / crash / starting up, 57014 statement timeout (the server is
// too slow to answer within the deadline), 58 system error (I/O).
const SQLSTATE: Readonly<Record<string, string>> = {
  '57P01': 'the server is shutting down',
  '57P02': 'the server crashed',
  '57P03': 'the server is starting up',
  '57014': 'the statement timed out',
  '53300': 'too many connections',
};
const SQLSTATE_CLASSES: Readonly<Record<string, string>> = {
  '08': 'connection failure',
  '53': 'the server is out of resources',
  '58': 'server system error',
};

// `pg` and `pg-pool`'s own messages (v8): deadlines, lost connections, a closed pool.
const MESSAGES: readonly (readonly [RegExp, string])[] = [
  [/^timeout exceeded when trying to connect$/, 'no connection within the connect timeout'],
  [/^Connection terminated due to connection timeout$/, 'no connection within the connect timeout'],
  [/^timeout expired$/, 'no connection within the connect timeout'],
  [/^Query read timeout$/, 'no answer within the query timeout'],
  [/^Connection terminated( unexpectedly)?$/, 'connection lost'],
  [/^Client has encountered a connection error and is not queryable$/, 'connection lost'],
  [/^Client was closed and is not queryable$/, 'connection closed'],
  [/^Cannot use a pool after calling end on the pool$/, 'the pool is closed (shutting down)'],
];

function ownReason(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    const socket = SOCKET_CODES[code];
    if (socket !== undefined) return socket;
    if (/^[0-9A-Z]{5}$/.test(code)) return SQLSTATE[code] ?? SQLSTATE_CLASSES[code.slice(0, 2)];
  }
  for (const [pattern, reason] of MESSAGES) if (pattern.test(error.message)) return reason;
  // Several addresses tried (localhost → ::1 and 127.0.0.1), all failed: `AggregateError`.
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const reason = inner instanceof Error ? ownReason(inner) : undefined;
      if (reason !== undefined) return reason;
    }
  }
  return undefined;
}
