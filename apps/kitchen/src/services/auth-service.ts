import { createHashGate, type HashGate, type HashGateOptions } from '../auth/hash-gate.js';
import { dummyPasswordHash, verifyPassword } from '../auth/password.js';
import { hashToken, newSessionToken } from '../auth/tokens.js';
import { KitchenError, notFound, rateLimited, unavailable } from '../domain/errors.js';
import { loginInput, switchInput } from '../domain/schemas.js';
import type { HouseholdSummary, User } from '../domain/types.js';
import { parseInput } from '../domain/validate.js';
import { sqlTimestamp, type ServiceEnv } from './env.js';
import { addressKey, createLoginThrottle, usernameKey, type LoginThrottleOptions } from './login-throttle.js';
import { householdsOf } from './membership-store.js';
import type { KitchenPrincipal } from './principal.js';

export interface Session {
  /** The trusted principal every service call of this session uses. */
  readonly principal: KitchenPrincipal;
  readonly user: User;
  readonly expiresAt: string;
  /** The stored (hashed) form of the token: a handle for switch and logout, not a credential. */
  readonly key: string;
}

export interface LoginResult {
  /** Shown once; only its hash is stored. */
  readonly token: string;
  readonly session: Session;
}

/** Where a login comes from: the client's address (from the socket), when there is one. */
export interface LoginOrigin {
  readonly address?: string;
}

/** Backoff after failed logins (counted in the database) and the bound on password checks (per process). */
export interface LoginOptions extends LoginThrottleOptions {
  /** The gate's size (default 2 checks at once, 16 waiting, 4 of them per address). */
  readonly hashing?: HashGateOptions;
  /** A gate made elsewhere (to share one between services, or to watch it in a test); `hashing` is then unused. */
  readonly gate?: HashGate;
  /** Checks a password against its stored hash. Default: scrypt (`verifyPassword`). */
  readonly verifyPassword?: (password: string, stored: string) => Promise<boolean>;
}

export interface AuthService {
  /**
   * Unknown user and wrong password fail alike: 401 `UNAUTHENTICATED`, same message, same work.
   * A username or an address with `maxFailures` failures in the window is refused with 429
   * `RATE_LIMITED` (`retryAfterSeconds`) before any hashing, known and unknown usernames
   * alike; a success clears the username's count (not the address's). When the hashing gate
   * is full: 503 `SERVICE_UNAVAILABLE`, retry after 1 s.
   */
  login(input: unknown, origin?: LoginOrigin): Promise<LoginResult>;
  /**
   * The refusal `login` would give from the address alone — a lock on it this process knows,
   * or no room at the gate for it — or undefined. Lets the route answer a flood before reading
   * its bodies; `login` still decides everything itself.
   */
  refuseEarly(origin: LoginOrigin): KitchenError | undefined;
  /** The live session of a token, or null (unknown, expired, logged out). */
  authenticate(token: string): Promise<Session | null>;
  logout(token: string): Promise<void>;
  /** Makes a household the session's active one; not a member → `NOT_FOUND` (as if it did not exist). */
  switchHousehold(session: Session, input: unknown): Promise<HouseholdSummary>;
}

interface SessionRow {
  token_hash: string;
  user_id: string;
  username: string;
  display_name: string;
  active_household_id: string | null;
  expires_at: string;
}

interface UserRow {
  id: string;
  username: string;
  display_name: string;
  password_hash: string;
}

const WRONG = 'wrong username or password';

const busy = () => unavailable('too many sign-ins at once: try again in a second', 1);

/** The same answer for a locked username (known or not) and a locked address. */
const locked = (seconds: number) =>
  rateLimited(`too many failed sign-ins: try again in ${Math.ceil(seconds / 60)} min`, seconds);

export function createAuthService(env: ServiceEnv, options: LoginOptions = {}): AuthService {
  const { db } = env;
  const throttle = createLoginThrottle(db, env.now, options);
  const gate = options.gate ?? createHashGate(options.hashing);
  const verify = options.verifyPassword ?? verifyPassword;
  return {
    async login(input, origin = {}) {
      const { username, password } = parseInput(loginInput, input);
      const userKey = usernameKey(username);
      const keys = origin.address === undefined ? [userKey] : [userKey, addressKey(origin.address)];
      // A lock this process has seen answers at once; otherwise the whole check (lock, lookup,
      // scrypt) holds a place at the gate: a flood costs at most the gate's size in queries
      // and hashes at a time, and the rest is refused here.
      const known = throttle.knownLock(keys);
      if (known > 0) throw locked(known);
      const checked = gate.run(origin.address ?? '', async () => {
        const wait = await throttle.lockedFor(keys);
        if (wait > 0) throw locked(wait);
        const rows = await db.query<UserRow>(
          'SELECT id, username, display_name, password_hash FROM users WHERE username = $1',
          [username],
        );
        const user = rows[0];
        const ok = await verify(password, user?.password_hash ?? (await dummyPasswordHash()));
        if (user === undefined || !ok) {
          await throttle.recordFailure(keys);
          throw new KitchenError('UNAUTHENTICATED', WRONG);
        }
        return user;
      });
      if (checked === undefined) throw busy();
      const user = await checked;
      await throttle.clear(userKey);
      const active = (await householdsOf(db, user.id))[0]?.id ?? null;
      const token = newSessionToken();
      const now = env.now();
      const expiresAt = new Date(now.getTime() + env.sessionTtlMs).toISOString();
      const key = hashToken(token);
      // The user's expired sessions go now, so the table does not grow with every login.
      await db.query('DELETE FROM sessions WHERE user_id = $1 AND expires_at <= $2', [
        user.id,
        now.toISOString(),
      ]);
      await db.query(
        `INSERT INTO sessions (token_hash, user_id, active_household_id, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5)`,
        [key, user.id, active, now.toISOString(), expiresAt],
      );
      return {
        token,
        session: {
          key,
          expiresAt,
          principal: { userId: user.id, householdId: active },
          user: { id: user.id, username: user.username, displayName: user.display_name },
        },
      };
    },

    refuseEarly(origin) {
      if (origin.address === undefined) return undefined;
      const known = throttle.knownLock([addressKey(origin.address)]);
      if (known > 0) return locked(known);
      return gate.hasRoom(origin.address) ? undefined : busy();
    },

    async authenticate(token) {
      if (token === '' || token.length > 200) return null;
      const rows = await db.query<SessionRow>(
        `SELECT s.token_hash, s.user_id, u.username, u.display_name, s.active_household_id,
                ${sqlTimestamp('s.expires_at')} AS expires_at
         FROM sessions s JOIN users u ON u.id = s.user_id
         WHERE s.token_hash = $1 AND s.expires_at > $2`,
        [hashToken(token), env.now().toISOString()],
      );
      const row = rows[0];
      if (row === undefined) return null;
      return {
        key: row.token_hash,
        expiresAt: row.expires_at,
        principal: { userId: row.user_id, householdId: row.active_household_id },
        user: { id: row.user_id, username: row.username, displayName: row.display_name },
      };
    },

    async logout(token) {
      await db.query('DELETE FROM sessions WHERE token_hash = $1', [hashToken(token)]);
    },

    async switchHousehold(session, input) {
      const { householdId } = parseInput(switchInput, input);
      const mine = await householdsOf(db, session.principal.userId);
      const target = mine.find((h) => h.id === householdId);
      if (target === undefined) throw notFound('household', 'householdId');
      await db.query('UPDATE sessions SET active_household_id = $2 WHERE token_hash = $1 AND user_id = $3', [
        session.key,
        householdId,
        session.principal.userId,
      ]);
      return target;
    },
  };
}
