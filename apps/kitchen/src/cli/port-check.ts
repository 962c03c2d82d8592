import { createServer } from 'node:net';

/** The port the server should listen on is taken: one line for the operator, exit 1. */
export class PortInUseError extends Error {
  override name = 'PortInUseError';
  constructor(readonly port: number) {
    super(`port ${port} is in use; set PORT`);
  }
}

/** A listen error as the operator's line when it is a busy port; otherwise the error itself. */
export function portError(error: unknown, port: number): unknown {
  return (error as { code?: unknown } | null)?.code === 'EADDRINUSE' ? new PortInUseError(port) : error;
}

/**
 * Fails fast, before the database opens (PGlite takes seconds), when the port is taken. A port
 * freed or taken in between is still caught when the server itself listens (`portError`).
 */
export function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error) => reject(portError(error, port)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
