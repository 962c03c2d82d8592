// One formatter per time zone: making one costs ~0.2 ms (using one ~2 µs), and every model step and
// service call asks for the date. The date it gave is kept for the rest of that second (every
// offset from UTC in the time-zone database is whole seconds, even the old ones such as Monrovia's
// −0:44:30), so a busy server formats about once a second per zone, not once a step.
const formats = new Map<string, { format: Intl.DateTimeFormat; second: number; date: string }>();

/** `YYYY-MM-DD` of `now` in `timeZone`; an unknown zone throws `RangeError`. */
export function localDate(now: Date, timeZone: string): string {
  const second = Math.floor(now.getTime() / 1_000);
  let zone = formats.get(timeZone);
  if (zone === undefined) {
    const format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    zone = { format, second: Number.NaN, date: '' };
    formats.set(timeZone, zone);
  }
  if (zone.second !== second) {
    zone.date = zone.format.format(now);
    zone.second = second;
  }
  return zone.date;
}
