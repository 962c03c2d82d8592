import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Principal } from 'reins';

/** Where the HTTP layer puts the authenticated principal inside the SDK's pass-through `authInfo`. */
const KEY = 'reins.principal';

export function authInfoFor(principal: Principal, token: string): AuthInfo {
  return { token, clientId: principal.id, scopes: [...(principal.roles ?? [])], extra: { [KEY]: principal } };
}

export function principalFromAuthInfo(info: AuthInfo | undefined): Principal | undefined {
  const value = info?.extra?.[KEY];
  return typeof value === 'object' && value !== null ? (value as Principal) : undefined;
}
