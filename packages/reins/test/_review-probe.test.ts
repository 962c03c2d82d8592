import { it } from 'vitest';
import { maskPii, maskPiiText } from 'reins';
it('probe', () => {
  for (const c of ['visa-4111111111111111', 'user-13812345678', 'card-6222021234567890128', 'UTC+8 2026-12-05', 'GMT+8 2026-12-05 10:30', '+3 10 20 30', 'score +12 (2026) 1234', '2026-12-05 to 2026-12-19', 'order 2026120512345678', '4111111111111111-', 'range 10000-13812345678', 'ID110101199003071234','身份证110101199003071234', 'SFZ11010119900307123X', 'no110101199003071234']) console.log(JSON.stringify(c), '=>', JSON.stringify(maskPiiText(c)));
  // luhn-valid date ranges
  let found = 0;
  for (let d1 = 1; d1 <= 28 && found < 3; d1++) for (let d2 = d1 + 1; d2 <= 28 && found < 3; d2++) {
    const s = `2026-12-${String(d1).padStart(2,'0')} 2026-12-${String(d2).padStart(2,'0')}`;
    const m = maskPiiText(`stay ${s}`);
    if (m !== `stay ${s}`) { console.log(s, '=>', m); found++; }
  }
});
