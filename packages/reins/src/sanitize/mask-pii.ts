/**
 * Masks personal data in tool observations before a model sees them: e-mail addresses,
 * 18-digit PRC resident ID numbers, bank card numbers (13–19 digits passing the Luhn check,
 * optionally grouped by spaces or dashes), Chinese 11-digit mobiles (optionally +86) and
 * other phone numbers written with a leading +. The last four characters stay visible so a
 * user can still tell two records apart.
 */

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const RESIDENT_ID =
  /(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9A-Za-z])/g;
const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g;
const CN_MOBILE = /(?<![\d+])(?:(?:\+|00)86[ -]?)?1[3-9]\d[ -]?\d{4}[ -]?\d{4}(?!\d)/g;
const INTL_PHONE = /(?<![\d+])\+\d{1,3}[ -]?(?:\(?\d{1,4}\)?[ -]?){2,4}\d{2,4}(?!\d)/g;

export function maskPiiText(text: string): string {
  // Fast path: nothing to mask without an @ or a run of digits.
  if (!/@|\d{4}/.test(text)) return text;
  return text
    .replace(EMAIL, maskEmail)
    .replace(RESIDENT_ID, (id) => keepLast(id, 4))
    .replace(CARD, (digits) => (luhnValid(digits) ? keepLast(digits, 4) : digits))
    .replace(CN_MOBILE, (phone) => keepLast(phone, 4))
    .replace(INTL_PHONE, (phone) => keepLast(phone, 4));
}

/** Deep copy with every string (keys included) masked. Non-JSON values pass through. */
export function maskPii<T>(value: T): T {
  return maskValue(value, 0) as T;
}

function maskValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return maskPiiText(value);
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) return value.map((item) => maskValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[maskPiiText(key)] = maskValue(item, depth + 1);
  return out;
}

function maskEmail(email: string): string {
  const at = email.indexOf('@');
  return `${email[0] ?? ''}***${email.slice(at)}`;
}

function keepLast(text: string, visible: number): string {
  let seen = 0;
  const chars = [...text];
  for (let i = chars.length - 1; i >= 0; i--) {
    if (!/[0-9Xx]/.test(chars[i] ?? '')) continue;
    if (seen++ >= visible) chars[i] = '*';
  }
  return chars.join('');
}

function luhnValid(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '');
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
