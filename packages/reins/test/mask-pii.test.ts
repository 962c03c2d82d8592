import { describe, expect, it } from 'vitest';
import { maskPii, maskPiiText } from 'reins';

describe('maskPiiText', () => {
  it.each([
    ['call 13812345678 now', 'call *******5678 now'],
    ['tel +86 138 1234 5678', 'tel +** *** **** 5678'],
    ['id 11010519491231002X.', 'id **************002X.'],
    ['card 4111 1111 1111 1111 ok', 'card **** **** **** 1111 ok'],
    ['card 6222021234567890128', 'card ***************0128'],
    ['mail zhang.san@example.com', 'mail z***@example.com'],
    ['intl +1 415 555 2671', 'intl +* *** *** 2671'],
    ['office 010-12345678', 'office ***-****5678'],
    ['shop (0755) 1234567', 'shop (****) ***4567'],
    ['us (415) 555-2671 or 415-555-2671', 'us (***) ***-2671 or ***-***-2671'],
    // Numbers written straight after letters are still numbers; only a UUID's groups are not.
    ['wx13812345678 card4111111111111111', 'wx*******5678 card************1111'],
    [
      'act 0aaefe4d-ff32-4810-a571-945023680387: call 13812345678',
      'act 0aaefe4d-ff32-4810-a571-945023680387: call *******5678',
    ],
  ])('masks %j', (input, expected) => {
    expect(maskPiiText(input)).toBe(expected);
  });

  it.each([
    'order 4111111111111112 (fails Luhn)',
    'year 2026, 3 eggs, 500 g',
    'version 1.2.3, port 8787',
    'twelve digits 123456789012',
    // A UUID's groups are not a card or a mobile, even when their digits pass the Luhn check
    // (this act id was masked once, so a kept prompt differed from the one sent).
    'act 0aaefe4d-ff32-4810-a571-945023680387',
    'act 0aaefe4d-ff32-4810-a571-138123456789 and 0aaefe4d-ff32-4810-a571-4111111111111111',
  ])('leaves %j alone', (text) => {
    expect(maskPiiText(text)).toBe(text);
  });

  it('masks strings deep inside objects and arrays, keys included, without touching other values', () => {
    const input = { users: [{ phone: '13900001111', age: 30, ok: true }], 'a@b.cn': null };
    expect(maskPii(input)).toEqual({
      users: [{ phone: '*******1111', age: 30, ok: true }],
      'a***@b.cn': null,
    });
    expect(input.users[0]?.phone).toBe('13900001111'); // a copy, not a mutation
  });

  it('masks the JSON form: numbers that are phone numbers, toJSON results, and too-deep values', () => {
    expect(maskPii({ phone: 13812345678, qty: 12345678901 })).toEqual({
      phone: '*******5678',
      qty: 12345678901,
    });
    const withToJson = { toJSON: () => ({ phone: '13812345678' }) };
    expect(maskPii({ contact: withToJson })).toEqual({ contact: { phone: '*******5678' } });
    expect(maskPii({ at: new Date(Date.UTC(2026, 0, 2)) })).toEqual({ at: '2026-01-02T00:00:00.000Z' });
    let deep: unknown = '13812345678';
    for (let i = 0; i < 80; i++) deep = [deep];
    expect(JSON.stringify(maskPii(deep))).toContain('[redacted: nested too deeply]');
    expect(JSON.stringify(maskPii(deep))).not.toContain('13812345678');
  });

  it('masks keys too, keeping their order, and never touches the value it was given', () => {
    const input = {
      before: 1,
      '13812345678': 'x',
      list: [{ 'a@b.cn': 2, ok: '2026-12-05' }],
      after: '13900001111',
    };
    const masked = maskPii(input);
    expect(JSON.stringify(masked)).toBe(
      '{"before":1,"*******5678":"x","list":[{"a***@b.cn":2,"ok":"2026-12-05"}],"after":"*******1111"}',
    );
    expect(input.after).toBe('13900001111');
    expect(Object.keys(input.list[0] ?? {})).toEqual(['a@b.cn', 'ok']);
    // An own "__proto__" key (as JSON.parse makes one) stays an own key when its object is rebuilt.
    const withProto = maskPii(JSON.parse('{"__proto__":{"x":1},"13812345678":1}') as object);
    expect(Object.keys(withProto)).toEqual(['__proto__', '*******5678']);
    expect(Object.getPrototypeOf(withProto)).toBe(Object.prototype);
  });

  it('throws on values JSON cannot carry (the loop turns that into INVALID_OUTPUT)', () => {
    expect(() => maskPii({ n: 1n })).toThrow(TypeError);
  });
});
