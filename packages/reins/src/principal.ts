/**
 * The authenticated caller, written by the server, never by the model. Tenant ids, user ids
 * and roles live here and only here; tools read them from `ctx.principal`.
 */
export interface Principal {
  readonly id: string;
  readonly roles?: readonly string[];
  /** App-specific trusted claims (e.g. a household id resolved by the service layer). */
  readonly claims?: Readonly<Record<string, string | number | boolean>>;
}

export const ANONYMOUS: Principal = Object.freeze({ id: 'anonymous' });

/** A model request's `userKey`: the principal's id, none for an anonymous run. */
export function userKeyOf(principal: Principal): string | undefined {
  return principal.id === ANONYMOUS.id ? undefined : principal.id;
}
