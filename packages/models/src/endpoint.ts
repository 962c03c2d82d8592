/**
 * The URL of `path` under a provider's `base`: appended to its path, its query kept (a gateway
 * such as Azure OpenAI takes `?api-version=…`), its fragment dropped. Concatenating strings put
 * the path after the query. A base that is not a URL is a programmer's mistake: it throws.
 */
export function endpointOf(base: string, path: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new TypeError(`baseURL ${JSON.stringify(base)} is not a URL`);
  }
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.hash = '';
  return url.toString();
}
