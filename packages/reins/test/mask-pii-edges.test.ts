import { describe, expect, it } from 'vitest';
import { maskPii, maskPiiText } from 'reins';

describe('PII masking: numbers after letters or dashes, full-width digits, time zones (found in review)', () => {
  // Contract: 18-digit PRC resident ID numbers are masked (mask-pii.ts:2-3, docs/runtime.md:345
  // "18-digit ID numbers"), and "Numbers written straight after letters are still numbers"
  // (test/mask-pii.test.ts:15-16: `wx13812345678 card4111111111111111` are masked).
  it('masks a resident ID written straight after Latin letters (ID110101199003071234)', () => {
    const out = maskPii({ note: 'ID110101199003071234', sfz: 'SFZ11010119900307123X' });
    expect(out).toEqual({ note: 'ID**************1234', sfz: 'SFZ**************123X' });
  });

  // Contract: "bank card numbers (13–19 digits passing the Luhn check, optionally grouped by
  // spaces or dashes)" are masked (mask-pii.ts:3-4, docs/runtime.md:345-346).
  // A card joined to its label by a dash (`visa-…`) or followed by one is left in clear.
  it('masks a Luhn-valid card number joined to a label by a dash', () => {
    expect(maskPiiText('visa-4111111111111111')).toBe('visa-************1111');
    expect(maskPiiText('card-6222021234567890128')).toBe('card-***************0128');
  });

  // Contract: Chinese 11-digit mobiles are masked (mask-pii.ts:4, docs/runtime.md:345
  // "phones incl. Chinese mobiles"). Full-width digits (common from Chinese IMEs / OCR) read
  // exactly the same to a model and a person, and are not masked at all.
  it('masks a Chinese mobile written in full-width digits', () => {
    const out = maskPiiText('电话：１３８１２３４５６７８');
    expect(out).not.toContain('１３８１２３４');
  });

  // Contract: masking hides personal data; it must not corrupt non-PII data the docs do not
  // accept losing (mask-pii.ts:1-8 accepts only Luhn-valid order numbers). A timestamp with a
  // timezone offset is taken for an international phone (INTL_PHONE, mask-pii.ts:15) and the
  // date is destroyed.
  it('leaves a timestamp with a GMT offset intact', () => {
    expect(maskPiiText('GMT+8 2026-12-05 10:30')).toBe('GMT+8 2026-12-05 10:30');
  });
});
