/** The environment as the model settings read it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A configuration that cannot be used: refused at start-up, with the setting named. */
export class ModelConfigError extends Error {
  readonly code = 'INVALID_PARAMETER';
}

/** A setting's trimmed value; blank is unset. */
export function setting(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** A whole number in [min, max]; anything else is refused, the setting named. */
export function wholeSetting(
  env: Env,
  name: string,
  min: number,
  max: number,
  what: string,
): number | undefined {
  const raw = setting(env, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ModelConfigError(
      `${name}=${JSON.stringify(raw)} is not ${what} (a whole number from ${min} to ${max})`,
    );
  }
  return value;
}

/** A decimal number in [min, max]; anything else is refused, the setting named. */
export function numberSetting(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = setting(env, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || value < min || value > max) {
    throw new ModelConfigError(`${name}=${JSON.stringify(raw)} is not a number from ${min} to ${max}`);
  }
  return value;
}

/** An http(s) URL; anything else is refused, the setting named. */
export function urlSetting(env: Env, name: string): string | undefined {
  const raw = setting(env, name);
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ModelConfigError(`${name}=${JSON.stringify(maskUrl(raw))} is not an http(s) URL`);
  }
  return raw;
}

/** `openai:<model>` or `anthropic:<model>`: the specs a stack's layers may name. */
export function providerSpec(name: string, raw: string): string {
  if (!/^(openai|anthropic):\S/.test(raw)) {
    throw new ModelConfigError(`${name}=${JSON.stringify(raw)} is not openai:<model> or anthropic:<model>`);
  }
  return raw;
}

export function mask(secret: string | undefined): string {
  if (secret === undefined) return '(not set)';
  // Enough to tell two keys apart, never most of one: a short key is not shown at all.
  return secret.length < 20 ? '****' : `${secret.slice(0, 3)}…${secret.slice(-4)}`;
}

/** A URL as printed: a password in it and the values of its query (an API key may be one) masked. */
export function maskUrl(raw: string | undefined): string {
  if (raw === undefined) return '(default)';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '****';
  }
  if (url.password !== '') url.password = '****';
  for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, '****');
  return url.toString();
}
