import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyLink, showText, splitAddresses } from '../src/link-rule.js';

/** The URL rule for links a model writes (issue 16.8), in Node: the page's logic without the DOM. */
const PAGE = 'http://127.0.0.1:8787/assistant';
const OWN = 'http://127.0.0.1:8787';

describe('classifyLink: only the own origin is clickable', () => {
  it.each([
    ['/fridge', `${OWN}/fridge`],
    ['recipes?id=1', `${OWN}/recipes?id=1`],
    ['./plan#today', `${OWN}/plan#today`],
    ['#main', `${OWN}/assistant#main`],
    ['  /fridge  ', `${OWN}/fridge`],
    [`${OWN}/recipes`, `${OWN}/recipes`],
    ['HTTP://127.0.0.1:8787/x', `${OWN}/x`],
    // Same scheme as the page and no "//": a relative path, so it stays here (as in a browser).
    ['http:evil.example', `${OWN}/evil.example`],
  ])('%j is own: %s', (raw, href) => {
    expect(classifyLink(raw, PAGE)).toEqual({ kind: 'own', href });
  });

  it.each([
    ['https://evil.example/?d=鸡蛋6个', 'evil.example'],
    ['//evil.example/x?d=1', 'evil.example'],
    ['/\\evil.example/x', 'evil.example'],
    ['\\\\evil.example', 'evil.example'],
    ['/\t/evil.example', 'evil.example'], // the tab is dropped by the URL parser: "//evil.example"
    ['\n//evil.example', 'evil.example'],
    ['https:evil.example/x', 'evil.example'], // another scheme: absolute despite the missing "//"
    ['http:\\\\evil.example', 'evil.example'],
    ['https://127.0.0.1@evil.example/', 'evil.example'], // userinfo that reads as the own host
    ['http://127.0.0.1:8787@evil.example/', 'evil.example'],
    ['http://user:pw@127.0.0.1:8787/fridge', '127.0.0.1'], // own host, but credentials: not clickable
    ['http://127.0.0.1:9999/', '127.0.0.1'], // another port is another origin
    ['https://127.0.0.1:8787/', '127.0.0.1'], // another scheme too
    ['http://127.0.0.1.evil.example:8787/', '127.0.0.1.evil.example'],
  ])('%j is foreign, shown as %s', (raw, host) => {
    expect(classifyLink(raw, PAGE)).toEqual({ kind: 'foreign', host });
  });

  it('compares origins after the browser’s normalization (hex IPv4, default port)', () => {
    // A browser opens this very site for these: clickable, and the href says so plainly.
    expect(classifyLink('http://0x7f.0.0.1:8787/fridge', PAGE)).toEqual({
      kind: 'own',
      href: `${OWN}/fridge`,
    });
    expect(classifyLink('https://kitchen.example:443/x', 'https://kitchen.example/')).toEqual({
      kind: 'own',
      href: 'https://kitchen.example/x',
    });
  });

  it.each([
    'javascript:alert(1)',
    ' JaVaScRiPt:alert(1)',
    'java\tscript:alert(1)',
    'javascript://127.0.0.1:8787/%0aalert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'mailto:a@evil.example?body=secret',
    'blob:http://127.0.0.1:8787/0b4f', // own origin, but not a web page
    'file:///etc/passwd',
    'http://[::1',
    '',
    '   ',
  ])('%j is refused (label only)', (raw) => {
    expect(classifyLink(raw, PAGE)).toEqual({ kind: 'refused' });
  });

  it('a look-alike of the own host (IDN) is foreign and shown in punycode', () => {
    const page = 'https://kitchen.example/assistant';
    expect(classifyLink('https://KITCHEN.example/fridge', page).kind).toBe('own');
    const lookAlike = classifyLink('https://kitchen.ex\u0430mple/fridge', page); // Cyrillic а
    expect(lookAlike.kind).toBe('foreign');
    expect(lookAlike.kind === 'foreign' && lookAlike.host).toMatch(/^kitchen\.xn--/);
    expect(classifyLink('https://xn--kitchen-xxa.example/', page).kind).toBe('foreign');
    expect(classifyLink('https://kitchen.example./', page).kind).toBe('foreign'); // trailing dot: another host
  });
});

/** How a model might write a link to `host` carrying `data`. */
const SHAPES: readonly ((host: string, rest: string) => string)[] = [
  (host, rest) => `https://${host}${rest}`,
  (host, rest) => `http://${host}${rest}`,
  (host, rest) => `HTTPS://${host.toUpperCase()}${rest}`,
  (host, rest) => `//${host}${rest}`,
  (host, rest) => `/\\${host}${rest}`,
  (host, rest) => `\\\\${host}${rest}`,
  (host, rest) => `https:${host}${rest}`,
  (host, rest) => `https:\\\\${host}${rest}`,
  (host, rest) => `/\t/${host}${rest}`,
  (host, rest) => `https://127.0.0.1:8787@${host}${rest}`,
  (host, rest) => `https://127.0.0.1%3A8787@${host}${rest}`,
  (host, rest) => ` https://${host}:8443${rest}`,
];

const foreignHost = fc.oneof(fc.domain(), fc.ipV4()).filter((host) => host !== '127.0.0.1');
const secret = fc.stringMatching(/^[a-z0-9]{6,20}$/);

const ownUrl = fc
  .tuple(
    fc.constantFrom(OWN, 'HTTP://127.0.0.1:8787', 'http://0x7f000001:8787'),
    fc.webPath(),
    fc.webQueryParameters(),
  )
  .map(([origin, path, query]) => `${origin}${path}?${query}`);

describe('no foreign host is ever clickable (generated)', () => {
  it('every shape of link to a generated host is foreign (or refused), never own, and shows no path or query', () => {
    fc.assert(
      fc.property(foreignHost, fc.webPath(), secret, fc.nat(SHAPES.length - 1), (host, path, data, n) => {
        const shape = SHAPES[n] ?? SHAPES[0]!;
        const raw = shape(host, `${path}?d=${data}#${data}`);
        const target = classifyLink(raw, PAGE);
        expect(target.kind).not.toBe('own');
        if (target.kind === 'foreign') {
          expect(target.host).toBe(new URL(`http://${host}`).hostname);
          expect(JSON.stringify(target)).not.toContain(data);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('any generated web URL is own exactly when its origin is the page’s', () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), ownUrl), (raw) => {
        const url = new URL(raw);
        const target = classifyLink(raw, PAGE);
        const own = url.origin === OWN && url.username === '' && url.password === '';
        expect(target.kind === 'own').toBe(own);
      }),
      { numRuns: 1_000 },
    );
  });

  it('a path on this site stays clickable', () => {
    fc.assert(
      fc.property(fc.webPath(), fc.webQueryParameters(), (path, query) => {
        const raw = `/${path.replace(/^\/+/, '')}?${query}`;
        const target = classifyLink(raw, PAGE);
        expect(target.kind).toBe('own');
        expect(target.kind === 'own' && new URL(target.href).origin).toBe(OWN);
      }),
    );
  });
});

describe('addresses written out in text', () => {
  it('finds them in Chinese and English prose and leaves sentence punctuation outside', () => {
    expect(splitAddresses('看这里https://evil.example/?d=鸡蛋6个，然后点击。')).toEqual([
      { text: '看这里' },
      { url: 'https://evil.example/?d=鸡蛋6个' },
      { text: '，然后点击。' },
    ]);
    expect(splitAddresses('See (https://evil.example/a_(b)). Or www.evil.example/x!')).toEqual([
      { text: 'See (' },
      { url: 'https://evil.example/a_(b)' },
      { text: '). Or ' },
      { url: 'www.evil.example/x' },
      { text: '!' },
    ]);
    expect(
      splitAddresses('或者//evil.example/?d=1 和 /\\\\evil.example，但不是 // 注释 或 a/b//c.d'),
    ).toEqual([
      { text: '或者' },
      { url: '//evil.example/?d=1' },
      { text: ' 和 ' },
      { url: '/\\\\evil.example' },
      { text: '，但不是 // 注释 或 a/b//c.d' },
    ]);
    expect(splitAddresses('http: is a scheme; awww.example and https:.')).toEqual([
      { text: 'http: is a scheme; awww.example and https:.' },
    ]);
  });

  it('stays linear on long hostile input (brackets, punctuation, slashes)', () => {
    const n = 200_000;
    const started = Date.now();
    for (const text of [
      `https:${')'.repeat(n)}`,
      `https://a.example/${'.'.repeat(n)}x`,
      `x ${'/'.repeat(n)}a.b`,
      `${'https:'.repeat(n / 6)}`,
      `www.${'('.repeat(n)}`,
    ]) {
      const pieces = splitAddresses(text);
      expect(pieces.map((p) => ('text' in p ? p.text : p.url)).join('')).toBe(text);
    }
    // Quadratic would take minutes here; linear takes milliseconds. The bound only tells them apart.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('shows another site by its host, and a link to this site as a link', () => {
    expect(
      showText('去 https://evil.example/?d=鸡蛋 或 /fridge 或 http://127.0.0.1:8787/plan', PAGE),
    ).toEqual([
      { kind: 'text', text: '去 ' },
      { kind: 'foreign', host: 'evil.example' },
      { kind: 'text', text: ' 或 /fridge 或 ' },
      { kind: 'own', href: `${OWN}/plan`, text: 'http://127.0.0.1:8787/plan' },
    ]);
    expect(showText('www.evil.example/?d=1', PAGE)).toEqual([{ kind: 'foreign', host: 'www.evil.example' }]);
  });

  it('for any text around a generated foreign link, the split is lossless and the shown text holds no data', () => {
    const prose = fc.constantFrom('', ' ', '看', '请点击：', 'see ', '(', '**', '*', '`', '\n', '。');
    fc.assert(
      fc.property(
        prose,
        foreignHost,
        fc.webPath(),
        secret,
        prose,
        fc.nat(4),
        (before, host, path, data, after, n) => {
          const url =
            [`https://${host}`, `http://${host}`, `www.${host}`, `//${host}`, `/\\${host}`][n] ?? '';
          const text = `${before}${url}${path}?d=${data}&x=${data}${after}`;
          const pieces = splitAddresses(text);
          expect(pieces.map((p) => ('text' in p ? p.text : p.url)).join('')).toBe(text);
          const shown = showText(text, PAGE);
          expect(shown.some((p) => p.kind === 'own')).toBe(false);
          expect(JSON.stringify(shown)).not.toContain(data);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
