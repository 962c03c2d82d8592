import { describe, expect, it } from 'vitest';
import type { ChatMessage } from 'reins';
import { readSeen } from '../src/assistant/demo/seen.js';
import { localDate } from '../src/domain/local-date.js';

// The demo model runs on every step of every run: the date and the observations it reads back
// are remembered (for the rest of the minute; per message object), and must stay what a fresh
// read would give.

describe('localDate', () => {
  it('turns the day at local midnight, within the minute it was asked for', () => {
    // 15:59:59Z is 23:59:59 in Shanghai (UTC+8); 16:00:00Z is the next day there.
    expect(localDate(new Date('2026-12-03T15:59:01Z'), 'Asia/Shanghai')).toBe('2026-12-03');
    expect(localDate(new Date('2026-12-03T15:59:59Z'), 'Asia/Shanghai')).toBe('2026-12-03');
    expect(localDate(new Date('2026-12-03T16:00:00Z'), 'Asia/Shanghai')).toBe('2026-12-04');
    expect(localDate(new Date('2026-12-03T16:00:00Z'), 'UTC')).toBe('2026-12-03');
    // Back in time (a clock stepped back): asked again, not taken from the later minute.
    expect(localDate(new Date('2026-12-03T15:59:30Z'), 'Asia/Shanghai')).toBe('2026-12-03');
  });

  it('keeps zones apart, with offsets that are not whole hours', () => {
    const at = new Date('2026-12-03T18:40:00Z');
    expect(localDate(at, 'Asia/Kolkata')).toBe('2026-12-04'); // 00:10 at UTC+5:30
    expect(localDate(at, 'America/St_Johns')).toBe('2026-12-03'); // 15:10 at UTC-3:30
    expect(localDate(at, 'Asia/Kathmandu')).toBe('2026-12-04'); // 00:25 at UTC+5:45
  });
});

describe('readSeen', () => {
  const system: ChatMessage = { role: 'system', content: 'system' };
  const user: ChatMessage = { role: 'user', content: 'question' };
  const observation = (tool: string, body: unknown): ChatMessage => ({
    role: 'user',
    content: `Observation (tool ${tool}, act a1): ${JSON.stringify(body)}`,
  });

  it('reads each message once and gives the same observations on every later step', () => {
    const fridge = observation('fridge_items', { status: 'ok', result: { items: [], total: 0 } });
    const failed = observation('meal_plan', { status: 'error', error: { code: 'TIMEOUT' } });
    const said: ChatMessage = { role: 'assistant', content: '{"action":"meal_plan"}' };
    const first = readSeen([system, user, said, fridge]);
    const second = readSeen([system, user, said, fridge, said, failed]);
    expect(first.all).toEqual([{ tool: 'fridge_items', ok: true, result: { items: [], total: 0 } }]);
    expect(second.all).toEqual([
      { tool: 'fridge_items', ok: true, result: { items: [], total: 0 } },
      { tool: 'meal_plan', ok: false, code: 'TIMEOUT' },
    ]);
    expect(second.failed('meal_plan')).toBe('TIMEOUT');
    expect(second.fridgeTotal()).toBe(0);
    // A later step's list does not leak into an earlier step's (each read builds its own).
    expect(first.all).toHaveLength(1);
    expect(first.tools.has('meal_plan')).toBe(false);
  });

  it('two messages with the same text are each read', () => {
    const body = { status: 'ok', result: { items: [], total: 2 } };
    const seen = readSeen([
      system,
      user,
      observation('fridge_items', body),
      observation('fridge_items', body),
    ]);
    expect(seen.all).toHaveLength(2);
  });

  it('an observation cut for the prompt is TRUNCATED', () => {
    const cut: ChatMessage = {
      role: 'user',
      content: 'Observation (tool fridge_items, act a1): {"status":"ok","res',
    };
    expect(readSeen([system, user, cut]).all).toEqual([
      { tool: 'fridge_items', ok: false, code: 'TRUNCATED' },
    ]);
  });
});
