import {
  UnauthorizedError,
  type AuthProvider,
  type OAuthClientProvider,
  type StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';

/**
 * Credentials for a Streamable HTTP server. The SDK does the OAuth work (protected-resource
 * and authorization-server discovery, dynamic or metadata-document client registration,
 * PKCE, scopes, step-up, refresh, RFC 9207 `iss` checks); the app keeps the tokens in its
 * `provider`.
 */
export interface McpHttpAuth {
  /**
   * An OAuth client (`OAuthClientProvider`: authorization code with PKCE, or client
   * credentials / private-key JWT from the SDK), or a plain bearer-token source
   * (`AuthProvider`: `{ token: async () => key }`).
   */
  readonly provider: OAuthClientProvider | AuthProvider;
  /**
   * Interactive OAuth: once `provider.redirectToAuthorization` has sent the user to the
   * authorization server, resolves with the query parameters of the redirect back (`code`,
   * `iss`, `state`). Compare `state` in here; the bridge then redeems the code and retries
   * the connection (or the call that needed more scope) once. It must settle: reject when
   * the user gives up. Without it, a server that needs a new authorization makes the
   * connection fail (`PERMISSION_DENIED`).
   */
  readonly authorizationCallback?: () => Promise<URLSearchParams>;
}

export function isUnauthorized(thrown: unknown): boolean {
  return thrown instanceof UnauthorizedError;
}

/**
 * After an `UnauthorizedError`: waits for the user's authorization and redeems the code on
 * `transport` (the one that started the flow, which knows the authorization server). Resolves
 * `false` when there is no callback to wait for.
 */
export async function completeAuthorization(
  auth: McpHttpAuth | undefined,
  transport: StreamableHTTPClientTransport,
): Promise<boolean> {
  if (auth?.authorizationCallback === undefined) return false;
  const params = await auth.authorizationCallback();
  await transport.finishAuth(params);
  return true;
}
