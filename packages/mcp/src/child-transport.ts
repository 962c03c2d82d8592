import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import {
  SdkError,
  SdkErrorCode,
  deserializeMessage,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { McpDeps } from './options.js';

export interface ChildParams {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>> | undefined;
  readonly cwd: string | undefined;
  /** SIGTERM → SIGKILL delay when the server is stopped (`killGraceMs`); 1 s when not given. */
  readonly killGraceMs?: number;
}

/** The server wrote something on stdout that is not one JSON-RPC message per line. */
export class MalformedMessageError extends Error {
  override readonly name = 'MalformedMessageError';
}

const MAX_LINE_CHARS = 16 * 1024 * 1024;
const STDERR_TAIL_CHARS = 2_000;

/**
 * MCP over a child process's stdin/stdout, one JSON-RPC message per line. Unlike the SDK's
 * stdio transport it exposes the process (so a server that ignores cancellation can be
 * signalled), reports a malformed line as an error instead of skipping it (a server that
 * breaks framing cannot be trusted to answer), keeps the tail of stderr for diagnostics,
 * and lets observers see every message in both directions.
 *
 * Having `pid` and `stderr` makes the SDK treat it as stdio (version probing in place).
 */
export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Sees every message written to the server. */
  onOutbound?: (message: JSONRPCMessage) => void;
  /** Sees every well-formed message from the server, before the client does. */
  onInbound?: (message: JSONRPCMessage) => void;

  readonly #params: ChildParams;
  readonly #deps: McpDeps;
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  #line = '';
  #stderrTail = '';
  #closed = false;

  constructor(params: ChildParams, deps: McpDeps) {
    this.#params = params;
    this.#deps = deps;
  }

  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  get stderr(): Readable | null {
    return this.#child?.stderr ?? null;
  }

  /** The last ~2,000 characters the server wrote on stderr. */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('ChildProcessTransport already started');
    const child = this.#deps.spawn(this.#params.command, this.#params.args, {
      env: { ...getDefaultEnvironment(), ...this.#params.env },
      cwd: this.#params.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
    });
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('close', () => resolve()));
    const decoder = new StringDecoder('utf8');
    child.stdout?.on('data', (chunk: Buffer) => this.#read(decoder.write(chunk)));
    child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderrTail = (this.#stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    child.stdin?.on('error', (error) => this.onerror?.(error));
    child.once('close', () => this.#finish());
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      // `on`, not `once`: a later 'error' (a failed kill) with no listener would be thrown.
      child.on('error', (error) => {
        reject(error); // after 'spawn' (or a first error) a no-op
        this.onerror?.(error);
        this.#finish();
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (this.#closed || stdin == null || !stdin.writable) {
      return Promise.reject(new SdkError(SdkErrorCode.SendFailed, 'the server process is gone'));
    }
    this.onOutbound?.(message);
    return new Promise((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (error) =>
        error == null ? resolve() : reject(new SdkError(SdkErrorCode.SendFailed, error.message)),
      );
    });
  }

  /** Ends stdin, gives the server `graceMs` to exit by itself, then stops it. */
  async close(graceMs = 200): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#exited === undefined) return this.#finish();
    child.stdin?.end();
    if (!(await this.#exitWithin(graceMs))) await this.terminate(this.#params.killGraceMs ?? 1_000);
  }

  /** SIGTERM, then SIGKILL after `killGraceMs`; resolves once the process is gone. */
  async terminate(killGraceMs: number): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    if (!(await this.#exitWithin(killGraceMs))) {
      child.kill('SIGKILL');
      await this.#exited;
    }
  }

  #exitWithin(ms: number): Promise<boolean> {
    const exited = this.#exited;
    if (exited === undefined) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = this.#deps.setTimer(() => resolve(false), ms);
      void exited.then(() => {
        this.#deps.clearTimer(timer);
        resolve(true);
      });
    });
  }

  #read(text: string): void {
    this.#line += text;
    let newline = this.#line.indexOf('\n');
    while (newline !== -1) {
      const line = this.#line.slice(0, newline).replace(/\r$/, '');
      this.#line = this.#line.slice(newline + 1);
      if (line.trim() !== '') this.#deliver(line);
      newline = this.#line.indexOf('\n');
    }
    if (this.#line.length > MAX_LINE_CHARS) {
      this.#line = '';
      this.onerror?.(new MalformedMessageError(`a message longer than ${MAX_LINE_CHARS} characters`));
    }
  }

  #deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch {
      const excerpt = JSON.stringify(line.slice(0, 80));
      this.onerror?.(new MalformedMessageError(`the server wrote a line that is not JSON-RPC: ${excerpt}`));
      return;
    }
    this.onInbound?.(message);
    this.onmessage?.(message);
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
