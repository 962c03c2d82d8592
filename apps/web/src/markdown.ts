import { h, type Child } from './dom.js';
import { t } from './i18n.js';
import { ADDRESS_SOURCE } from './link-rule.js';
import { autolink, markdownLink, modelText } from './model-text.js';

/**
 * A small, safe subset of Markdown rendered to DOM nodes (never to an HTML string): paragraphs,
 * `#` headings, `-`/`1.` lists, `**bold**`, `*italic*`, `` `code` ``, fenced code blocks,
 * `[text](url)` and `<url>` links and written-out addresses. Raw HTML in the text stays text.
 * A link is clickable only to the page's own origin (`model-text.ts`); any other is its text
 * and its host, so a model cannot plant a click that carries household data off the site.
 * Images (`![alt](src)`) are never loaded — their alt text is shown — so model output cannot
 * make the page fetch anything.
 */
export function renderMarkdown(source: string): HTMLElement {
  const root = h('div', { class: 'md' });
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (line.trim() === '') {
      i++;
      continue;
    }
    if (line.startsWith('```')) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').startsWith('```')) body.push(lines[i++] ?? '');
      i++;
      root.append(h('pre', {}, h('code', {}, modelText(body.join('\n')))));
      continue;
    }
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    if (heading !== null) {
      const level = (heading[1] ?? '#').length;
      const tag = level === 1 ? 'h3' : level === 2 ? 'h4' : 'h5';
      root.append(h(tag, {}, inline(heading[2] ?? '')));
      i++;
      continue;
    }
    const listItem = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/;
    if (listItem.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const items: Child[] = [];
      while (i < lines.length && listItem.test(lines[i] ?? '')) {
        items.push(h('li', {}, inline(listItem.exec(lines[i] ?? '')?.[1] ?? '')));
        i++;
      }
      root.append(ordered ? h('ol', {}, items) : h('ul', {}, items));
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && (lines[i] ?? '').trim() !== '' && !startsBlock(lines[i] ?? '')) {
      para.push(lines[i++] ?? '');
    }
    if (para.length === 0) para.push(lines[i++] ?? '');
    const p = h('p');
    para.forEach((text, n) => {
      if (n > 0) p.append(h('br'));
      p.append(...inline(text));
    });
    root.append(p);
  }
  return root;
}

function startsBlock(line: string): boolean {
  return line.startsWith('```') || /^#{1,3}\s/.test(line) || /^\s*(?:[-*+]|\d+[.)])\s+/.test(line);
}

/**
 * Code, link or image, autolink, bold, italic, or a written-out address: the leftmost wins, so
 * an address is taken whole before a `*` inside it could split it.
 */
const INLINE = new RegExp(
  `(\`[^\`]+\`)|(!?\\[[^\\]]*\\]\\([^)\\s]*\\))|(<(?:https?:|www\\.)[^<>\\s]*>)|(\\*\\*[^*]+\\*\\*)|(\\*[^*\\s][^*]*\\*)|(${ADDRESS_SOURCE})`,
  'iu',
);

/** Inline spans as nodes; all text goes through the link rule (`modelText`). */
export function inline(text: string): Node[] {
  const out: Node[] = [];
  let rest = text;
  while (rest !== '') {
    const match = INLINE.exec(rest);
    if (match === null) {
      out.push(...modelText(rest, { links: true }));
      break;
    }
    if (match.index > 0) out.push(...modelText(rest.slice(0, match.index), { links: true }));
    const token = match[0];
    if (match[1] !== undefined) out.push(h('code', {}, modelText(token.slice(1, -1))));
    else if (match[2] !== undefined) out.push(...link(token));
    else if (match[3] !== undefined) out.push(autolink(token.slice(1, -1)));
    else if (match[4] !== undefined)
      out.push(h('strong', {}, modelText(token.slice(2, -2), { links: true })));
    else if (match[5] !== undefined) out.push(h('em', {}, modelText(token.slice(1, -1), { links: true })));
    else out.push(...modelText(token, { links: true }));
    rest = rest.slice(match.index + token.length);
  }
  return out;
}

function link(token: string): Node[] {
  const parts = /^(!?)\[([^\]]*)\]\(([^)\s]*)\)$/.exec(token);
  const label = parts?.[2] ?? token;
  // Never loaded, whatever the source: the alt text stands in (the CSP's img-src 'self' agrees).
  if (parts?.[1] === '!')
    return [h('span', { class: 'md-image', title: t().imageNotLoaded }, '[', modelText(label), ']')];
  return markdownLink(label, parts?.[3] ?? '');
}
