/** A dependency's probe: resolves `true` when it is up. A throw, `false` or no answer in time is `down`. */
export type HealthProbe = () => boolean | Promise<boolean>;

export interface HealthReport {
  /** `degraded`: serving, but at least one dependency is down. */
  readonly status: 'ok' | 'degraded';
  readonly name: string;
  readonly version: string;
  readonly tools: number;
  /** Open 2025-era sessions. */
  readonly sessions: number;
  readonly dependencies: Readonly<Record<string, 'up' | 'down'>>;
}

/** Runs every probe side by side, each bounded by `timeoutMs` (a hung dependency must not hang `/health`). */
export async function checkDependencies(
  probes: Readonly<Record<string, HealthProbe>>,
  timeoutMs: number,
): Promise<Record<string, 'up' | 'down'>> {
  const entries = await Promise.all(
    Object.entries(probes).map(async ([name, probe]) => [name, await bounded(probe, timeoutMs)] as const),
  );
  return Object.fromEntries(entries.map(([name, up]) => [name, up ? 'up' : 'down']));
}

async function bounded(probe: HealthProbe, timeoutMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(probe), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
