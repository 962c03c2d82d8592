import fc from 'fast-check';

/**
 * Arbitraries for fuzzing request input: valid values mixed with what a hostile or broken
 * client sends (NUL and other control characters, lone surrogates, huge strings, wrong types,
 * deep nesting, odd unicode). Shared by the kitchen REST and /v1 fuzz tests.
 */

const NASTY_TEXT = [
  '\u0000',
  'a\u0000b',
  '番茄\u0000',
  '\u0001\u0002\u001f',
  'tab\there',
  'line\nbreak',
  'cr\rlf\r\n',
  '\u007f',
  '\u0085',
  '\u009f',
  '\ud800',
  'x\udfffy',
  '\u{1f345}',
  '\u202e\u200b\ufeff',
  'e\u0301',
  '',
  ' ',
  '%00',
  '../../etc/passwd',
  "'; DROP TABLE users; --",
];

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY_TEXT),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)), maxLength: 20 }),
  fc
    .tuple(fc.constantFrom('a', '番', '\u0000'), fc.integer({ min: 100, max: 20_000 }))
    .map(([c, n]) => c.repeat(n)),
);

/** Deeply nested arrays / objects (a recursive walker would overflow on these). */
export const deepValue: fc.Arbitrary<unknown> = fc
  .tuple(fc.integer({ min: 50, max: 3_000 }), fc.boolean())
  .map(([depth, objects]) => {
    let value: unknown = '\u0000';
    for (let i = 0; i < depth; i++) value = objects ? { a: value } : [value];
    return value;
  });

export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1e308, [], {}, [null], { '\u0000': 1 }),
  fc.integer(),
  fc.double(),
  fc.array(nastyString, { maxLength: 3 }),
  deepValue,
);

/** A field: mostly `valid`, sometimes a nasty string, sometimes a wrong type. */
export function field<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: valid, weight: 3 },
    { arbitrary: nastyString, weight: 2 },
    { arbitrary: wrongType, weight: 1 },
  );
}

/** A JSON body: mostly the route's shape with fuzzed fields, sometimes anything at all. */
export function body(shape: Record<string, fc.Arbitrary<unknown>> | undefined): fc.Arbitrary<unknown> {
  const anything = fc.oneof(
    wrongType,
    nastyString,
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(nastyString, fc.oneof(nastyString, wrongType), { maxKeys: 4 }),
  );
  if (shape === undefined) return fc.oneof(fc.constant(undefined), anything);
  const fields = Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, field(v)]));
  return fc.oneof(
    { arbitrary: fc.record(fields, { requiredKeys: [] }), weight: 4 },
    { arbitrary: anything, weight: 1 },
  );
}

/** A path or query value: a real one, a nasty string, or raw percent-junk put in the URL as is. */
export function urlValue(real: () => readonly string[]): fc.Arbitrary<{ raw: string } | { text: string }> {
  return fc.oneof(
    fc.constantFrom(0, 1, 2, 3).map((i) => ({ text: real()[i % Math.max(1, real().length)] ?? 'x' })),
    nastyString.map((text) => ({ text })),
    fc
      .constantFrom('%00', '%0A', '%C0%80', '%ED%A0%80', '%FF', '%zz', '%', '%E2%80%AE')
      .map((raw) => ({ raw })),
  );
}

/** `encodeURIComponent`, except a lone surrogate (which it refuses) goes as its UTF-8 bytes' escape. */
export function encode(value: { raw: string } | { text: string }): string {
  if ('raw' in value) return value.raw;
  try {
    return encodeURIComponent(value.text);
  } catch {
    return encodeURIComponent(value.text.replace(/[\ud800-\udfff]/g, '\ufffd')) + '%ED%A0%80';
  }
}

/** Every failure is `{error: {code, message}}` and nothing is a 5xx. */
export function checkReply(status: number, text: string): string | undefined {
  if (status >= 500) return `status ${status}: ${text.slice(0, 300)}`;
  if (status < 400) return undefined;
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof parsed.error?.code !== 'string' || typeof parsed.error.message !== 'string')
      return `status ${status} without {error: {code, message}}: ${text.slice(0, 300)}`;
  } catch {
    return `status ${status} not JSON: ${text.slice(0, 300)}`;
  }
  return undefined;
}
