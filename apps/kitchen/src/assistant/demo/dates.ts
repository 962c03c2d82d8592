const DAY_MS = 86_400_000;

export { localDate } from '../../domain/local-date.js';

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Monday and Sunday of the week of `date`. */
export function weekOf(date: string): { monday: string; sunday: string } {
  const weekday = (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
  const monday = addDays(date, -weekday);
  return { monday, sunday: addDays(monday, 6) };
}

const ZH_DAYS = ['周一', '周二', '周三', '周四', '周五', '周六', '周日'];
const EN_DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

export function weekdayName(date: string, zh: boolean): string {
  const weekday = (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
  return (zh ? ZH_DAYS : EN_DAYS)[weekday] ?? '';
}
