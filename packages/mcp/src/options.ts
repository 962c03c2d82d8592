import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { defaultDeps } from 'reins';
import {
  checkRoots,
  type ClientRequestOptions,
  type McpElicitationHandler,
  type McpRoot,
  type McpSamplingOptions,
} from './client-requests.js';
import type { McpHttpAuth } from './http-auth.js';

/** How to reach the server: a child process speaking stdio, or a Streamable HTTP endpoint. */
export type McpTransportOptions =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args?: readonly string[];
      /** Added to a minimal inherited environment (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | {
      readonly kind: 'http';
      readonly url: string | URL;
      readonly headers?: Readonly<Record<string, string>>;
      /** OAuth or a bearer token (see `McpHttpAuth`). Default: none. */
      readonly auth?: McpHttpAuth;
    };

/** Which MCP revision to speak: probe (`auto`, the default), 2025-era only, or one pinned revision. */
export type ProtocolChoice = 'auto' | 'legacy' | { readonly pin: string };

export interface ReconnectOptions {
  /** First wait after a lost connection or a failed attempt. Default 200 ms. */
  readonly initialDelayMs?: number;
  /** Longest wait between attempts. Default 10 s. */
  readonly maxDelayMs?: number;
  /** Connection attempts per episode before the server is reported `down`. Default 5. */
  readonly maxAttempts?: number;
}

/** Side effects, injectable so tests can fake them. */
export interface McpDeps {
  spawn(command: string, args: readonly string[], options: SpawnOptions): ChildProcess;
  now(): number;
  setTimer(callback: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export interface ConnectMcpOptions {
  /** A label for status and error messages, e.g. `nutrition`. */
  readonly name: string;
  readonly transport: McpTransportOptions;
  /** Prepended to every imported tool name, e.g. `nutrition_`. */
  readonly prefix?: string;
  readonly protocol?: ProtocolChoice;
  /** Longest wait for an answer (or a progress notification) per call. Default 10 s. */
  readonly callTimeoutMs?: number;
  /** The imported tools' Reins `timeoutMs`: the whole call, retry included. Default 30 s. */
  readonly toolTimeoutMs?: number;
  /** Longest wait for connecting and listing the tools. Default 5 s. */
  readonly connectTimeoutMs?: number;
  /** stdio: how long a cancelled call's server has to show it stopped. Default 2 s. */
  readonly cancelGraceMs?: number;
  /** stdio: SIGTERM → SIGKILL delay when a server is stopped. Default 1 s. */
  readonly killGraceMs?: number;
  readonly reconnect?: ReconnectOptions;
  /** Tool descriptions are cut to this many characters. Default 1,000. */
  readonly maxDescriptionLength?: number;
  /** Bound for base64 inputs (`contentEncoding: base64`, `format: byte`), in decoded bytes. Default 1 MiB. */
  readonly maxBase64Bytes?: number;
  /**
   * Approved fingerprints from an earlier run (`fingerprints()`). Without them, the first
   * listing is trusted as it is; with them, tools not named here wait for approval too.
   */
  readonly pinned?: Readonly<Record<string, string>>;
  /** Roots advertised to the server (`roots/list`); change them with `bridge.setRoots`. Default: none, not advertised. */
  readonly roots?: readonly McpRoot[];
  /** Answer `sampling/createMessage` with this model, bounded. Default: not advertised. */
  readonly sampling?: McpSamplingOptions;
  /**
   * Answer `elicitation/create` (form mode). Default: not advertised. `'decline'` advertises
   * it and always declines: an imported tool is called by a model, not by a person, and
   * nobody may be impersonated; pass a handler only where a real user answers.
   */
  readonly elicitation?: McpElicitationHandler | 'decline';
  readonly deps?: Partial<McpDeps>;
}

export interface ResolvedOptions {
  readonly name: string;
  readonly transport: McpTransportOptions;
  readonly prefix: string;
  readonly protocol: ProtocolChoice;
  readonly callTimeoutMs: number;
  readonly toolTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly cancelGraceMs: number;
  readonly killGraceMs: number;
  readonly reconnect: Required<ReconnectOptions>;
  readonly maxDescriptionLength: number;
  readonly maxBase64Bytes: number;
  readonly pinned: Readonly<Record<string, string>> | undefined;
  readonly clientRequests: ClientRequestOptions;
  readonly deps: McpDeps;
}

const DEFAULT_DEPS: McpDeps = {
  spawn: (command, args, options) => spawn(command, [...args], options),
  now: () => Date.now(),
  setTimer: defaultDeps.setTimer,
  clearTimer: defaultDeps.clearTimer,
};

/** Fills defaults; throws `TypeError` on programmer mistakes (they are not runtime conditions). */
export function resolveOptions(options: ConnectMcpOptions): ResolvedOptions {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(options.name)) {
    throw new TypeError(`server name ${JSON.stringify(options.name)} must be 1-64 of [A-Za-z0-9_.-]`);
  }
  const prefix = options.prefix ?? '';
  if (prefix !== '' && !/^[A-Za-z][A-Za-z0-9_-]{0,31}$/.test(prefix)) {
    throw new TypeError(`prefix ${JSON.stringify(prefix)} must start with a letter and use [A-Za-z0-9_-]`);
  }
  const t = options.transport;
  if (t.kind === 'stdio' && t.command.trim() === '') throw new TypeError('stdio transport needs a command');
  if (t.kind === 'http') {
    const url = new URL(t.url); // throws on a malformed URL
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`not an HTTP URL: ${url}`);
  }
  const toolTimeoutMs = positive('toolTimeoutMs', options.toolTimeoutMs, 30_000);
  return {
    name: options.name,
    transport: t,
    prefix,
    protocol: options.protocol ?? 'auto',
    // Never longer than the tool's own Reins timeout.
    callTimeoutMs: Math.min(positive('callTimeoutMs', options.callTimeoutMs, 10_000), toolTimeoutMs),
    toolTimeoutMs,
    connectTimeoutMs: positive('connectTimeoutMs', options.connectTimeoutMs, 5_000),
    cancelGraceMs: positive('cancelGraceMs', options.cancelGraceMs, 2_000),
    killGraceMs: positive('killGraceMs', options.killGraceMs, 1_000),
    reconnect: {
      initialDelayMs: positive('reconnect.initialDelayMs', options.reconnect?.initialDelayMs, 200),
      maxDelayMs: positive('reconnect.maxDelayMs', options.reconnect?.maxDelayMs, 10_000),
      maxAttempts: positive('reconnect.maxAttempts', options.reconnect?.maxAttempts, 5),
    },
    maxDescriptionLength: positive('maxDescriptionLength', options.maxDescriptionLength, 1_000),
    maxBase64Bytes: positive('maxBase64Bytes', options.maxBase64Bytes, 1024 * 1024),
    pinned: options.pinned,
    clientRequests: {
      roots: options.roots === undefined ? undefined : checkRoots(options.roots),
      sampling: options.sampling === undefined ? undefined : checkSampling(options.sampling),
      elicitation: options.elicitation,
    },
    deps: { ...DEFAULT_DEPS, ...options.deps },
  };
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`${name} must be a positive number`);
  return value;
}

function checkSampling(sampling: McpSamplingOptions): McpSamplingOptions {
  positive('sampling.maxTokens', sampling.maxTokens, 1);
  positive('sampling.maxCalls', sampling.maxCalls, 1);
  positive('sampling.timeoutMs', sampling.timeoutMs, 1);
  return sampling;
}
