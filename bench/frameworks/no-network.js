// @ts-check
/**
 * Preloaded into every framework child (`node --import`): any connection to a host other than
 * loopback throws, so a framework that phones home (telemetry, tracing export) fails the bench
 * loudly instead of timing the network.
 */
import net from 'node:net';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const connect = net.Socket.prototype.connect;
/** @this {net.Socket} @param {...unknown} args */
net.Socket.prototype.connect = function (...args) {
  const first = /** @type {{ host?: string, path?: string } | number | string | undefined} */ (args[0]);
  const options = Array.isArray(first) ? first[0] : first;
  const host =
    typeof options === 'object' && options !== null
      ? options.path !== undefined
        ? 'localhost'
        : (options.host ?? 'localhost')
      : typeof args[1] === 'string'
        ? args[1]
        : 'localhost';
  if (!LOOPBACK.has(host)) throw new Error(`bench/frameworks: network access to ${host} refused`);
  // @ts-expect-error -- forwarding the overloads unchanged
  return connect.apply(this, args);
};
