import { randomUUID } from 'node:crypto';
import type { Embedder } from 'reins';
import type { Db } from '../db/db.js';
import { localDate } from '../domain/local-date.js';
import type { IsoDate } from '../domain/types.js';
import type { LoginOptions } from './auth-service.js';

/** What the service layer needs from the outside world; every side effect can be replaced. */
export interface ServiceDeps {
  readonly db: Db;
  /** Default: the system clock. */
  readonly clock?: () => Date;
  /** Default: random UUIDs. */
  readonly newId?: () => string;
  /** The households' calendar, for "today" and expiry. Default `Asia/Shanghai`. */
  readonly timeZone?: string;
  /** Session lifetime. Default 7 days. */
  readonly sessionTtlMs?: number;
  /** How long an invitation to a household can be accepted. Default 7 days. */
  readonly invitationTtlMs?: number;
  /** Embeds household memories when a provider is configured; recall then mixes the vectors in. */
  readonly embedder?: Embedder;
  /** Login backoff and the password-hashing bound (defaults: 5 failures / 15 min → 15 min lock; 2 hashing + 16 waiting). */
  readonly login?: LoginOptions;
}

export interface ServiceEnv {
  readonly db: Db;
  readonly now: () => Date;
  readonly newId: () => string;
  readonly today: () => IsoDate;
  readonly sessionTtlMs: number;
  readonly invitationTtlMs: number;
}

export function resolveEnv(deps: ServiceDeps): ServiceEnv {
  const now = deps.clock ?? (() => new Date());
  const timeZone = deps.timeZone ?? 'Asia/Shanghai';
  localDate(new Date(0), timeZone); // an unknown zone fails here, when the services are made
  return {
    db: deps.db,
    now,
    newId: deps.newId ?? randomUUID,
    today: () => localDate(now(), timeZone) as IsoDate,
    sessionTtlMs: deps.sessionTtlMs ?? 7 * 24 * 3600 * 1000,
    invitationTtlMs: deps.invitationTtlMs ?? 7 * 24 * 3600 * 1000,
  };
}

export function addDays(date: IsoDate, days: number): IsoDate {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** SQL snippets that make both drivers return the same JS values. */
export const sqlDate = (column: string): string => `to_char(${column}, 'YYYY-MM-DD')`;
export const sqlTimestamp = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
