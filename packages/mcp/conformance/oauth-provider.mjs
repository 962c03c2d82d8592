// A headless OAuth client for the conformance suite's authorization scenarios: the suite's
// authorization server approves at once, so "sending the user" to it is one GET whose
// redirect carries the code. Tokens, registration and the PKCE verifier live in memory.
// A real app implements the same `OAuthClientProvider` with a browser and a callback route.

const REDIRECT = 'http://localhost:3000/callback';

/** @implements {import('@modelcontextprotocol/client').OAuthClientProvider} */
export class HeadlessOAuthProvider {
  /** @type {any} */ #client;
  /** @type {any} */ #tokens;
  /** @type {string | undefined} */ #verifier;
  /** @type {URLSearchParams | undefined} */ #callback;

  /** @param {{ client_id: string, client_secret?: string } | undefined} preRegistered */
  constructor(preRegistered) {
    if (preRegistered !== undefined) this.#client = { ...preRegistered, redirect_uris: [REDIRECT] };
  }

  get redirectUrl() {
    return REDIRECT;
  }

  get clientMetadata() {
    return { client_name: 'reins-mcp-conformance', redirect_uris: [REDIRECT] };
  }

  /** Used as the client id where the server supports client ID metadata documents (CIMD). */
  get clientMetadataUrl() {
    return 'https://conformance-test.local/client-metadata.json';
  }

  clientInformation() {
    return this.#client;
  }

  /** @param {any} info */
  saveClientInformation(info) {
    this.#client = info;
  }

  tokens() {
    return this.#tokens;
  }

  /** @param {any} tokens */
  saveTokens(tokens) {
    this.#tokens = tokens;
  }

  /** @param {string} verifier */
  saveCodeVerifier(verifier) {
    this.#verifier = verifier;
  }

  codeVerifier() {
    if (this.#verifier === undefined) throw new Error('no PKCE verifier saved');
    return this.#verifier;
  }

  /** @param {'all' | 'client' | 'tokens' | 'verifier' | 'discovery'} scope */
  invalidateCredentials(scope) {
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
    if (scope === 'all' || scope === 'client') this.#client = undefined;
    if (scope === 'all' || scope === 'verifier') this.#verifier = undefined;
  }

  /** @param {URL} url */
  async redirectToAuthorization(url) {
    const response = await globalThis.fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (location === null)
      throw new Error(`the authorization server did not redirect (HTTP ${response.status})`);
    this.#callback = new URL(location).searchParams;
  }

  /** What the redirect back carried (`code`, `iss`, `state`): the bridge's `authorizationCallback`. */
  async callback() {
    const params = this.#callback;
    this.#callback = undefined;
    if (params === undefined) throw new Error('no authorization in progress');
    return params;
  }
}
