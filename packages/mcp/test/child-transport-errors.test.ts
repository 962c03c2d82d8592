import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ChildProcessTransport } from '../src/child-transport.js';
import { resolveOptions } from '../src/options.js';

/** A child process that never runs: streams and events only, driven by the test. */
function fakeChild(): ChildProcess {
  return Object.assign(new EventEmitter(), {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    pid: 4242,
    exitCode: null,
    signalCode: null,
    kill: () => true,
  }) as unknown as ChildProcess;
}

// The transport listened for the child's 'error' once: a second one (Node emits 'error' when
// killing or signalling a child fails) found no listener and was thrown out of the emitter.
describe('the stdio transport and its child process', () => {
  it('reports every error the child emits, and throws none', async () => {
    const child = fakeChild();
    const deps = {
      ...resolveOptions({ name: 'x', transport: { kind: 'stdio', command: 'x' } }).deps,
      spawn: () => child,
    };
    const transport = new ChildProcessTransport(
      { command: 'x', args: [], env: undefined, cwd: undefined },
      deps,
    );
    const errors: string[] = [];
    transport.onerror = (error) => errors.push(error.message);
    const started = transport.start();
    child.emit('spawn');
    await started;
    expect(() => child.emit('error', new Error('kill EPERM'))).not.toThrow();
    expect(() => child.emit('error', new Error('kill EPERM again'))).not.toThrow();
    expect(errors).toEqual(['kill EPERM', 'kill EPERM again']);
  });
});
