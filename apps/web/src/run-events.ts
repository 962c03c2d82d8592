/**
 * The run protocol as the page reads it (see packages/reins/src/events.ts): `start → step* →
 * message → done`, `error`, `approval`, and — from plan agents, when present — `step` with
 * `phase: 'plan'` and `clarify`. Every field is read defensively: an event the page does not
 * know is kept in the log and shown generically, never dropped or trusted.
 */
export interface WireEvent {
  readonly type: string;
  readonly seq?: number;
  readonly runId?: string;
  readonly at?: number;
  readonly [key: string]: unknown;
}

export interface PlanStep {
  readonly id: string;
  readonly action: string;
  readonly input: unknown;
  readonly dependsOn: readonly string[];
}

export interface PlanVersion {
  readonly version: number;
  readonly reason: string;
  readonly steps: readonly PlanStep[];
}

export function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function obj(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export function arr(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A plan version from a `step {phase: 'plan'}` event, or undefined when it is not one. */
export function planOf(event: WireEvent): PlanVersion | undefined {
  if (event.type !== 'step' || event['phase'] !== 'plan') return undefined;
  const plan = obj(event['plan']);
  const steps = arr(plan?.['steps']).flatMap((raw): PlanStep[] => {
    const s = obj(raw);
    const id = str(s?.['id']);
    if (s === undefined || id === '') return [];
    return [
      {
        id,
        action: str(s['action'], '?'),
        input: s['input'],
        dependsOn: arr(s['dependsOn']).filter((d): d is string => typeof d === 'string'),
      },
    ];
  });
  return { version: num(event['version']) ?? 1, reason: str(event['reason'], 'initial'), steps };
}

/** Short one-line text of any value, for a timeline row (full value in the details). */
export function brief(value: unknown, max = 160): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function pretty(value: unknown): string {
  try {
    return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
  } catch {
    return String(value);
  }
}

/**
 * A tool result in a few words for the chat: a list is its length and first names
 * (`items: 3 — 番茄, 鸡蛋, 豆腐`), an object its first fields; anything else `brief`.
 */
export function summarize(result: unknown, max = 120): string {
  const o = obj(result);
  if (o === undefined) return Array.isArray(result) ? listSummary('', result) : brief(result, max);
  const parts: string[] = [];
  for (const [key, value] of Object.entries(o)) {
    if (Array.isArray(value)) parts.push(listSummary(key, value));
    else if (typeof value !== 'object' || value === null) parts.push(`${key}: ${brief(value, 40)}`);
    if (parts.join(' · ').length > max) break;
  }
  return brief(parts.join(' · '), max);
}

function listSummary(key: string, list: readonly unknown[]): string {
  const names = list
    .slice(0, 3)
    .map((x) => {
      const item = obj(x);
      const nested = obj(item?.['recipe']);
      return (
        str(item?.['name']) || str(nested?.['name']) || str(item?.['label']) || str(item?.['recipeName'])
      );
    })
    .filter((n) => n !== '');
  const head = `${key === '' ? '' : `${key}: `}${list.length}`;
  return names.length === 0 ? head : `${head} — ${names.join(', ')}${list.length > 3 ? '…' : ''}`;
}
