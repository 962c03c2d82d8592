import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkPlannerShape } from '../src/plan/planner-shape.js';
import { checkScriptReply } from '../src/models/script-reply.js';

// The planner reply and the scripted reply were zod schemas; they are checked by hand now so
// that `import('reins')` loads no zod. These are the schemas they replaced, as the reference:
// the same verdict, the same value, and for the planner (whose messages go back to the model)
// the same messages.

const STEP_ID = /^[A-Za-z][\w-]{0,31}$/;
const zodPlannerReply = z.strictObject({
  thought: z.string().optional(),
  reasoning: z.unknown().optional(),
  steps: z
    .array(
      z.strictObject({
        id: z
          .string()
          .regex(STEP_ID, 'a step id is a letter then letters, digits, _ or - (≤ 32)')
          .refine((id) => id !== 'task', '"task" is reserved (task.<action>.output…)'),
        action: z.string().trim().min(1).max(64),
        input: z.record(z.string(), z.unknown()).default({}),
        dependsOn: z.array(z.string()).max(50).default([]),
      }),
    )
    .min(1)
    .max(100)
    .optional(),
  ask: z.string().trim().min(1).optional(),
});

const zodToolCall = z.strictObject({
  id: z.string().optional(),
  name: z.string(),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
});
const zodUsage = z.strictObject({ inputTokens: z.number(), outputTokens: z.number() }).optional();
const zodDelay = z.number().int().nonnegative().optional();
const zodScriptReply = z.union([
  z.string(),
  z.strictObject({
    text: z.string(),
    delayMs: zodDelay,
    usage: zodUsage,
    toolCalls: z.array(zodToolCall).optional(),
  }),
  z.strictObject({
    toolCalls: z.array(zodToolCall),
    text: z.string().optional(),
    delayMs: zodDelay,
    usage: zodUsage,
  }),
  z.strictObject({ error: z.string().min(1), delayMs: zodDelay, message: z.string().optional() }),
]);

function samePath(a: readonly PropertyKey[] | undefined, b: readonly PropertyKey[]): boolean {
  return a !== undefined && a.length === b.length && a.every((key, i) => key === b[i]);
}

/** An object with each key present (a value from its list) or absent; `rare` keys seldom. */
function shaped(
  fields: Record<string, fc.Arbitrary<unknown>>,
  rare: Record<string, fc.Arbitrary<unknown>> = {},
): fc.Arbitrary<Record<string, unknown>> {
  const seldom = Object.fromEntries(
    Object.entries(rare).map(([key, value]) => [
      key,
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary: value, weight: 1 }),
    ]),
  );
  return fc.tuple(fc.record(fields, { requiredKeys: [] }), fc.record(seldom)).map(([common, extra]) => ({
    ...common,
    ...Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined)),
  }));
}

/** Mostly a value of the shape, sometimes a wrong one: so valid replies are common and every rule is hit. */
function mostly(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: odd, weight: 1 });
}

const odd = fc.constantFrom<unknown>(
  null,
  5,
  -1,
  1.5,
  NaN,
  Infinity,
  true,
  [],
  'x',
  {},
  undefined,
  new Map(),
  Object.create(null),
);
const text = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    ' act ',
    'a'.repeat(64),
    ` ${'a'.repeat(64)} `,
    'a'.repeat(65),
    '😀'.repeat(64),
    '😀'.repeat(65),
  ),
  fc.string({ unit: 'binary', maxLength: 70 }),
);
const record = mostly(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }));
const arrayOf = (item: fc.Arbitrary<unknown>, max: number): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: fc.array(item, { maxLength: 3 }), weight: 6 },
    { arbitrary: fc.constant(Array.from({ length: max + 1 }, () => 'a')), weight: 1 },
    { arbitrary: odd, weight: 1 },
  );

const step = mostly(
  shaped(
    {
      id: mostly(fc.constantFrom('s1', 'a-b_c', 'task', '1x', 'a'.repeat(32), 'a'.repeat(33), '')),
      action: mostly(text),
      input: record,
      dependsOn: arrayOf(mostly(fc.constant('s1')), 50),
    },
    { extra: odd },
  ),
);
const plannerReply = fc.oneof(
  {
    arbitrary: shaped(
      {
        thought: mostly(fc.string()),
        reasoning: fc.jsonValue(),
        steps: arrayOf(step, 100),
        ask: mostly(text),
      },
      { zed: odd },
    ),
    weight: 9,
  },
  { arbitrary: fc.anything(), weight: 1 },
);

const toolCall = mostly(
  shaped(
    {
      id: mostly(fc.constant('c1')),
      name: mostly(fc.constant('lookup')),
      arguments: fc.oneof(fc.constant('{"a":1}'), record),
    },
    { extra: odd },
  ),
);
const count = mostly(fc.constantFrom(0, 5, -1, 1.5, 2 ** 60, -(2 ** 60), NaN, Infinity));
const scriptReply = fc.oneof(
  {
    arbitrary: shaped(
      {
        text: mostly(fc.string()),
        toolCalls: arrayOf(toolCall, 3),
        delayMs: count,
        usage: mostly(
          shaped({ inputTokens: mostly(fc.nat()), outputTokens: mostly(fc.nat()) }, { extra: odd }),
        ),
      },
      { error: mostly(fc.constantFrom('', 'timeout')), message: mostly(fc.string()), extra: odd },
    ),
    weight: 5,
  },
  {
    arbitrary: shaped(
      { error: mostly(fc.constantFrom('', 'timeout')), delayMs: count, message: mostly(fc.string()) },
      { text: mostly(fc.string()), extra: odd },
    ),
    weight: 3,
  },
  { arbitrary: fc.anything(), weight: 1 },
);

describe('the hand-written checks that replaced zod schemas agree with them', () => {
  it('planner reply: same verdict, value and messages', () => {
    fc.assert(
      fc.property(plannerReply, (value) => {
        const reference = zodPlannerReply.safeParse(value);
        const checked = checkPlannerShape(value);
        if (reference.success) {
          expect(checked).toEqual({ ok: true, value: reference.data });
        } else {
          // zod 4.6 also judges the length of a non-string it has refused as a string (`action: []`
          // gets "expected string, received array" and "expected array to have >=1 items"); the
          // hand check stops at the first.
          const issues = reference.error.issues.filter(
            (issue, i, all) =>
              !(all[i - 1]?.code === 'invalid_type' && samePath(all[i - 1]?.path, issue.path)),
          );
          const message = issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
          expect(checked).toEqual({ ok: false, message: message.join('; ') });
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('planner reply: a `__proto__` key is refused at the top and in a step, and dropped from an input', () => {
    const value: unknown = JSON.parse(
      '{"steps":[{"id":"a","action":"b","__proto__":1,"input":{"__proto__":{"x":1},"k":2}}],"__proto__":2}',
    );
    const reference = zodPlannerReply.safeParse(value);
    expect(reference.success).toBe(false);
    expect(checkPlannerShape(value)).toEqual({
      ok: false,
      message: 'steps.0: Unrecognized key: "__proto__"; (root): Unrecognized key: "__proto__"',
    });
    const input: unknown = JSON.parse(
      '{"steps":[{"id":"a","action":"b","input":{"__proto__":{"x":1},"k":2}}]}',
    );
    const checked = checkPlannerShape(input);
    expect(checked).toEqual({ ok: true, value: zodPlannerReply.parse(input) });
    expect(checked.ok && Object.keys(checked.value.steps?.[0]?.input ?? {})).toEqual(['k']);
  });

  it('scripted reply: same verdict and value (messages now name the field)', () => {
    fc.assert(
      fc.property(scriptReply, (value) => {
        const reference = zodScriptReply.safeParse(value);
        const checked = checkScriptReply(value);
        expect(checked.ok).toBe(reference.success);
        if (reference.success && checked.ok) expect(checked.value).toEqual(reference.data);
      }),
      { numRuns: 3000 },
    );
  });

  it('scripted reply: a failure says which field and why', () => {
    expect(checkScriptReply({ text: 'a', delayMs: -1 })).toEqual({
      ok: false,
      message: 'delayMs: Too small: expected number to be >=0',
    });
    expect(checkScriptReply({ toolCalls: [{ name: 'x' }] })).toEqual({
      ok: false,
      message: 'toolCalls.0.arguments: Invalid input: expected string or record, received undefined',
    });
    expect(checkScriptReply({ toolCalls: [{ name: 'x', arguments: new Map() }] })).toEqual({
      ok: false,
      message: 'toolCalls.0.arguments: Invalid input: expected string or record, received Map',
    });
    expect(checkScriptReply({ txt: 'b' })).toEqual({
      ok: false,
      message: 'Invalid input: expected "text", "toolCalls" or "error"',
    });
    expect(checkScriptReply(5)).toEqual({
      ok: false,
      message: 'Invalid input: expected string or object, received number',
    });
  });
});
