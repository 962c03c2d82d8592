import { describe, expect, it } from 'vitest';
import { sessionToken } from '../src/server/authenticate.js';

// Found in review: a `kitchen_session` cookie that is not valid percent-encoding (a lone `%`)
// made decodeURIComponent throw a URIError in /v1's authentication: a 500 where the request
// simply has no session (401).
describe('a malformed session cookie', () => {
  it('is no session, not an error', () => {
    const request = new Request('http://127.0.0.1/v1/runs', {
      headers: { cookie: 'kitchen_session=%E0%A4%' },
    });
    expect(() => sessionToken(request)).not.toThrow();
    expect(sessionToken(request)).toBeUndefined();
  });

  it('a well-formed one is still read', () => {
    const request = new Request('http://127.0.0.1/v1/runs', {
      headers: { cookie: 'a=1; kitchen_session=abc%3D' },
    });
    expect(sessionToken(request)).toBe('abc=');
  });
});
