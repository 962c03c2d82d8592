import { arr, num, obj, str, type WireEvent } from './run-events.js';

/** A run log from a downloaded file: `{record, events}`, an array of events, or a bare run record. */
export function eventsFromFile(data: unknown): WireEvent[] {
  if (Array.isArray(data)) return data.filter((e) => obj(e) !== undefined) as WireEvent[];
  const o = obj(data);
  if (o === undefined) return [];
  if (Array.isArray(o['events'])) return eventsFromFile(o['events']);
  const record = obj(o['record']) ?? o;
  const steps = arr(record['steps']).flatMap((raw): WireEvent[] => {
    const s = obj(raw);
    if (s === undefined) return [];
    const detail = obj(s['detail']) ?? {};
    return [
      {
        ...detail,
        type: 'step',
        phase: str(s['phase']),
        index: num(s['index']),
        durationMs: num(s['duration_ms']),
      },
    ];
  });
  const answer = str(record['final_answer']);
  const tail: WireEvent[] = [];
  if (answer !== '')
    tail.push({
      type: 'message',
      text: answer,
      format: str(record['format'], 'structured'),
      demo: record['demo'] === true,
      data: record['answer_data'],
      degraded: record['degraded'],
    });
  tail.push({ type: 'done', status: str(record['status'], 'success'), stopReason: record['stop_reason'] });
  return [...steps, ...tail];
}
