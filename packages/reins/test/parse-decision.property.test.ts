import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DEFAULT_PARSE_LIMITS,
  loadLazyParts,
  parseDecision,
  parseStructured,
  type DecisionParse,
  type ParseFailure,
  type ParseVia,
} from 'reins';

// The repair parsers load on first need; these tests call the parser directly, outside a run.
beforeAll(() => loadLazyParts());

const VIAS: readonly ParseVia[] = ['clean', 'extracted', 'repaired'];
const FAILURES: readonly ParseFailure[] = [
  'empty',
  'too_large',
  'too_deep',
  'no_json',
  'invalid_json',
  'not_an_object',
  'schema',
];

/** Nesting of a parsed value, an object or array counting 1; iterative. */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, d] = top;
    if (typeof v !== 'object' || v === null) continue;
    max = Math.max(max, d);
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/** What must hold for any input: no throw, raw kept, a known outcome, a well-formed decision. */
function checkTotal(raw: string): DecisionParse {
  const result = parseDecision(raw);
  expect(result.raw).toBe(raw);
  if (result.ok) {
    expect(VIAS).toContain(result.via);
    expect(depthOf(result.value)).toBeLessThanOrEqual(DEFAULT_PARSE_LIMITS.maxDepth);
    const { value } = result;
    expect(typeof value.thought).toBe('string');
    if (value.kind === 'action') {
      expect(value.action.trim()).toBe(value.action);
      expect(value.action).not.toBe('');
      expect(typeof value.input === 'object' && value.input !== null && !Array.isArray(value.input)).toBe(
        true,
      );
    } else if (value.kind === 'actions') {
      expect(value.actions.length).toBeGreaterThan(0);
      for (const call of value.actions) expect(call.action.trim()).not.toBe('');
    } else if (value.kind === 'final') {
      expect(value.final.trim()).not.toBe('');
    } else if (value.kind === 'ask') {
      expect(value.ask.trim()).not.toBe('');
    }
  } else {
    expect(FAILURES).toContain(result.failure);
    expect(result.failure === 'empty').toBe(raw.trim() === '');
    if (result.via !== undefined) expect(result.failure).toBe('schema');
  }
  return result;
}

const jsonish = fc.string({
  unit: fc.constantFrom(...'{}[]"\':,\\ \nabTrueFalsNn0123456789/*`-.'.split('')),
  maxLength: 200,
});
const fragments = fc
  .array(
    fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      '"',
      "'",
      ':',
      ',',
      '\\',
      '"final"',
      '"thought"',
      '"action"',
      '"input"',
      "'ask'",
      '"x"',
      'True',
      'None',
      '//',
      '/*',
      '*/',
      '```json\n',
      '```',
      '\n',
      ' ',
      'prose ',
    ),
    { maxLength: 80 },
  )
  .map((parts) => parts.join(''));
const deepBrackets = fc
  .tuple(
    fc.constantFrom('{', '[', '{"a":', "{'a':", '[{"a":', '{"final":"x","a":'),
    fc.integer({ min: 1, max: 3_000 }),
  )
  .chain(([open, n]) =>
    fc
      .constantFrom('', ']'.repeat(n), '}'.repeat(n), '"', ']}'.repeat(n))
      .map((close) => `${open.repeat(n)}${close}`),
  );

describe('parseDecision totality: never throws, always keeps raw', () => {
  it('arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string(), (s) => void checkTotal(s)),
      { numRuns: 300 },
    );
  });

  it('arbitrary binary strings (lone surrogates, control characters)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => void checkTotal(s)),
      { numRuns: 300 },
    );
  });

  it('strings of JSON-ish characters', () => {
    fc.assert(
      fc.property(jsonish, (s) => void checkTotal(s)),
      { numRuns: 500 },
    );
  });

  it('strings of JSON-ish fragments', () => {
    fc.assert(
      fc.property(fragments, (s) => void checkTotal(s)),
      { numRuns: 500 },
    );
  });

  it('very deep bracket strings', () => {
    fc.assert(
      fc.property(deepBrackets, (s) => void checkTotal(s)),
      { numRuns: 100 },
    );
  });

  it('valid decisions with arbitrary text around them', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (before, final, after) => {
        if (final.trim() === '') return;
        checkTotal(`${before}${JSON.stringify({ thought: '', final })}${after}`);
      }),
      { numRuns: 200 },
    );
  });

  it('the depth cap holds whatever text comes before the JSON', () => {
    const prefix = fc.oneof(
      fc.constantFrom('', '"', "'", 'He said "', "it's ", '`', '\\"'),
      fc.string({ unit: fc.constantFrom(...'"\'\\ ab:`'.split('')), maxLength: 8 }),
    );
    fc.assert(
      fc.property(prefix, fc.integer({ min: 1, max: 200 }), (before, n) => {
        const raw = `${before}{"action":"t","input":{"b":${'['.repeat(n)}${']'.repeat(n)}}}`;
        const result = checkTotal(raw);
        if (n + 2 > DEFAULT_PARSE_LIMITS.maxDepth)
          expect(result).toMatchObject({ ok: false, failure: 'too_deep' });
        else if (before.trim() === '') expect(result).toMatchObject({ ok: true, via: 'clean' });
      }),
      { numRuns: 300 },
    );
  });

  describe('20k-deep nesting', () => {
    const deep = 20_000;
    const unlimited = { maxChars: Infinity, maxRepairChars: Infinity, maxDepth: Infinity };

    it('is too_deep under the default limits', () => {
      for (const raw of [
        '['.repeat(deep) + ']'.repeat(deep),
        '{"final":"x","a":' + '['.repeat(deep) + ']'.repeat(deep) + '}',
        '{"a":'.repeat(deep),
        '{'.repeat(deep),
        `Sure: {"final":"x","a":${'['.repeat(deep)}`,
      ]) {
        expect(checkTotal(raw)).toMatchObject({ ok: false, failure: 'too_deep', raw });
      }
    });

    it('a RangeError inside the repair is caught when no limit stops it first', () => {
      const raw = `{'final':'x','a':${'['.repeat(deep)}`;
      const result = parseDecision(raw, unlimited);
      expect(result).toMatchObject({ ok: false, failure: 'invalid_json', raw });
      expect(!result.ok && result.message).toMatch(/Maximum call stack size exceeded/);
    });

    it('a valid 20k-deep decision is accepted when the limits allow it', () => {
      const raw = `{"final":"x","a":${'['.repeat(deep)}${']'.repeat(deep)}}`;
      expect(parseDecision(raw, unlimited)).toEqual({
        ok: true,
        value: { kind: 'final', thought: '', final: 'x' },
        via: 'clean',
        raw,
      });
    });
  });
});

/**
 * `fc.jsonValue()` objects, minus the two things JSON text cannot carry back: `-0` (it
 * serialises as `0`) and a `__proto__` key, which zod deliberately drops from records (see
 * the `__proto__` test in parse-decision.test.ts).
 */
function withoutNegativeZero(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(withoutNegativeZero);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutNegativeZero(v)]));
}
function hasProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([k, v]) => k === '__proto__' || hasProtoKey(v));
}
/** A JSON object whose nesting (itself included) is at most `depth`. */
const jsonObject = (depth: number): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .dictionary(fc.string({ unit: 'binary' }), fc.jsonValue({ maxDepth: depth - 1, stringUnit: 'binary' }), {
      maxKeys: 6,
    })
    .filter((o) => !hasProtoKey(o))
    .map((o) => withoutNegativeZero(o) as Record<string, unknown>);
const nonBlank = fc.string({ unit: 'binary' }).filter((s) => s.trim() !== '');

describe('valid JSON round-trips unchanged', () => {
  it('an action decision with an arbitrary input object (depth ≤ 10)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), nonBlank, jsonObject(10), (thought, action, input) => {
        const raw = JSON.stringify({ thought, action, input });
        expect(parseDecision(raw)).toEqual({
          ok: true,
          value: { kind: 'action', thought, action: action.trim(), input },
          via: 'clean',
          raw,
        });
      }),
      { numRuns: 200 },
    );
  });

  it('the action_input spelling, pretty-printed', () => {
    fc.assert(
      fc.property(fc.string(), nonBlank, jsonObject(10), (thought, action, input) => {
        const raw = JSON.stringify({ thought, action, action_input: input }, null, 2);
        const result = parseDecision(raw);
        expect(result).toEqual({
          ok: true,
          value: { kind: 'action', thought, action: action.trim(), input },
          via: 'clean',
          raw,
        });
      }),
      { numRuns: 100 },
    );
  });

  it('final and ask with arbitrary unicode', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.oneof(
          nonBlank,
          fc.string({ unit: 'grapheme', minLength: 1 }).filter((s) => s.trim() !== ''),
        ),
        fc.constantFrom('final' as const, 'ask' as const),
        (thought, text, kind) => {
          const raw = JSON.stringify({ thought, [kind]: text });
          const value = kind === 'final' ? { kind, thought, final: text } : { kind, thought, ask: text };
          expect(parseDecision(raw)).toEqual({ ok: true, value, via: 'clean', raw });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a valid decision between prose is extracted unchanged', () => {
    const prose = fc
      .string({ unit: fc.constantFrom(...'abcxyz ABC .,:;!?\n-'.split('')), maxLength: 40 })
      .filter((s) => /[a-zA-Z]/.test(s));
    fc.assert(
      fc.property(
        prose,
        fc.string(),
        nonBlank,
        jsonObject(6),
        prose,
        (before, thought, action, input, after) => {
          const raw = `${before}${JSON.stringify({ thought, action, input })}${after}`;
          expect(parseDecision(raw)).toEqual({
            ok: true,
            value: { kind: 'action', thought, action: action.trim(), input },
            via: 'extracted',
            raw,
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a valid decision in a ```json fence is extracted unchanged', () => {
    fc.assert(
      fc.property(fc.string(), nonBlank, fc.boolean(), (thought, final, lang) => {
        const raw = `Here:\n\`\`\`${lang ? 'json' : ''}\n${JSON.stringify({ thought, final }, null, 2)}\n\`\`\`\nDone.`;
        expect(parseDecision(raw)).toEqual({
          ok: true,
          value: { kind: 'final', thought, final },
          via: 'extracted',
          raw,
        });
      }),
      { numRuns: 150 },
    );
  });

  it('parseStructured with a permissive schema: any JSON object is clean and deep-equal', () => {
    const permissive = z.record(z.string(), z.unknown());
    fc.assert(
      fc.property(jsonObject(10), (o) => {
        const raw = JSON.stringify(o);
        expect(parseStructured(raw, permissive)).toEqual({ ok: true, value: o, via: 'clean', raw });
      }),
      { numRuns: 200 },
    );
  });
});
