import { describe, expect, it } from 'vitest';
import { RunAbort } from '../src/loop/run-abort.js';

describe('RunAbort', () => {
  it('behaves like an AbortSignal for listeners: once, on abort, none after removal or after the fact', () => {
    const abort = new RunAbort();
    const calls: string[] = [];
    const kept = (): void => void calls.push('kept');
    const removed = (): void => void calls.push('removed');
    abort.addEventListener('abort', kept);
    abort.addEventListener('abort', removed);
    abort.removeEventListener('abort', removed);
    abort.abort('first');
    abort.abort('second');
    abort.addEventListener('abort', () => calls.push('late'));
    expect(calls).toEqual(['kept']);
    expect(abort).toMatchObject({ aborted: true, reason: 'first' });
  });

  it('makes a real AbortSignal on demand that follows the run, before or after the abort', () => {
    const early = new RunAbort();
    const signal = early.signal;
    expect(signal.aborted).toBe(false);
    early.abort('stop');
    expect(signal).toMatchObject({ aborted: true, reason: 'stop' });

    const late = new RunAbort();
    late.abort('gone');
    expect(late.signal).toMatchObject({ aborted: true, reason: 'gone' });
    expect(late.signal).toBe(late.signal);
  });
});
