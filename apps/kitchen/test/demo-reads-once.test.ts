import { describe, expect, it } from 'vitest';
import type { ChatMessage } from 'reins';
import { z } from 'zod';
import { parsedResult, readSeen } from '../src/assistant/demo/seen.js';
import type { Db } from '../src/db/db.js';
import { localDate } from '../src/domain/local-date.js';
import { resolveEnv } from '../src/services/env.js';

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

  it('keeps zones apart, with offsets that are not whole hours, each turning at its own midnight', () => {
    // Kolkata is UTC+5:30: its day turns at 18:30:00Z, with the date of 18:29:59Z already kept.
    expect(localDate(new Date('2026-12-03T18:29:59Z'), 'Asia/Kolkata')).toBe('2026-12-03');
    expect(localDate(new Date('2026-12-03T18:30:00Z'), 'Asia/Kolkata')).toBe('2026-12-04');
    const at = new Date('2026-12-03T18:40:00Z');
    expect(localDate(at, 'Asia/Kolkata')).toBe('2026-12-04'); // 00:10 at UTC+5:30
    expect(localDate(at, 'America/St_Johns')).toBe('2026-12-03'); // 15:10 at UTC-3:30
    expect(localDate(at, 'Asia/Kathmandu')).toBe('2026-12-04'); // 00:25 at UTC+5:45
    // Monrovia was UTC−0:44:30 until 1972: its day turned at 00:44:30Z, mid-minute.
    expect(localDate(new Date('1970-06-01T00:44:29Z'), 'Africa/Monrovia')).toBe('1970-05-31');
    expect(localDate(new Date('1970-06-01T00:44:30Z'), 'Africa/Monrovia')).toBe('1970-06-01');
  });

  it('an unknown zone is a RangeError, from the services as they are made', () => {
    expect(() => localDate(new Date(), 'Mars/Olympus_Mons')).toThrow(RangeError);
    const db = {} as Db; // not used: the zone is checked before anything asks the database
    expect(() => resolveEnv({ db, timeZone: 'Mars/Olympus_Mons' })).toThrow(RangeError);
    const clock = () => new Date('2026-12-03T16:00:00Z');
    expect(resolveEnv({ db, timeZone: 'Asia/Shanghai', clock }).today()).toBe('2026-12-04');
  });
});

describe('readSeen', () => {
  const system: ChatMessage = { role: 'system', content: 'system' };
  const user: ChatMessage = { role: 'user', content: 'question' };
  const observation = (tool: string, body: unknown): ChatMessage => ({
    role: 'user',
    content: `Observation (tool ${tool}, act a1): ${JSON.stringify(body)}`,
  });

  /** `message` with its text read through a getter that counts the reads. */
  const counted = (message: ChatMessage): { message: ChatMessage; reads: () => number } => {
    let reads = 0;
    const { content } = message;
    const copy = { ...message };
    Object.defineProperty(copy, 'content', {
      get: () => {
        reads++;
        return content;
      },
    });
    return { message: copy, reads: () => reads };
  };

  it('reads a message once however many steps are sent it again', () => {
    const fridge = counted(observation('fridge_items', { status: 'ok', result: { items: [], total: 3 } }));
    const said: ChatMessage = { role: 'assistant', content: '{"action":"fridge_items"}' };
    let messages: ChatMessage[] = [system, user, said, fridge.message];
    for (let step = 0; step < 5; step++) {
      expect(readSeen(messages).fridgeTotal()).toBe(3);
      messages = [
        ...messages,
        said,
        observation('meal_plan', { status: 'error', error: { code: 'TIMEOUT' } }),
      ];
    }
    expect(fridge.reads()).toBe(1);
  });

  it('gives the same observations on every later step', () => {
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

  it('parses a result once per schema, on this step and the later ones', () => {
    const fridge = observation('fridge_items', {
      status: 'ok',
      result: {
        items: [
          {
            id: 'i1',
            name: '鸡蛋',
            quantity: 6,
            unit: '个',
            location: 'fridge',
            expiresOn: null,
            daysLeft: null,
          },
        ],
        total: 1,
      },
    });
    const first = readSeen([system, user, fridge]);
    const items = first.fridge();
    expect(items).toHaveLength(1);
    expect(first.fridge()).toBe(items); // not parsed (copied) again
    expect(readSeen([system, user, fridge, user]).fridge()).toBe(items);

    let parses = 0;
    const counting = z.object({ total: z.number() }).transform((v) => {
      parses++;
      return v.total;
    });
    const strict = z.object({ total: z.string() });
    const [seen] = first.all;
    if (seen === undefined) throw new Error('no observation');
    expect(parsedResult(seen, counting)).toBe(1);
    expect(parsedResult(seen, counting)).toBe(1);
    expect(parses).toBe(1);
    expect(parsedResult(seen, strict)).toBeUndefined(); // another schema: its own parse, a failure kept too
    expect(parsedResult(seen, strict)).toBeUndefined();
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
