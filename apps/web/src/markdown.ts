import { h, safeHref, type Child } from './dom.js';

/**
 * A small, safe subset of Markdown rendered to DOM nodes (never to an HTML string): paragraphs,
 * `#` headings, `-`/`1.` lists, `**bold**`, `*italic*`, `` `code` ``, fenced code blocks and
 * `[text](url)` links. Raw HTML in the text stays text. Links are kept only for http(s) (they
 * open in a new tab with `noopener noreferrer`); images (`![alt](src)`) are never loaded —
 * their alt text is shown — so model output cannot make the page fetch anything.
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
      root.append(h('pre', {}, h('code', {}, body.join('\n'))));
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

const INLINE = /(`[^`]+`)|(!?\[[^\]]*\]\([^)\s]*\))|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)/;

/** Inline spans as nodes; everything not recognised is a text node. */
export function inline(text: string): Node[] {
  const out: Node[] = [];
  let rest = text;
  while (rest !== '') {
    const match = INLINE.exec(rest);
    if (match === null) {
      out.push(document.createTextNode(rest));
      break;
    }
    if (match.index > 0) out.push(document.createTextNode(rest.slice(0, match.index)));
    const token = match[0];
    if (token.startsWith('`')) out.push(h('code', {}, token.slice(1, -1)));
    else if (token.startsWith('**')) out.push(h('strong', {}, token.slice(2, -2)));
    else if (token.startsWith('*')) out.push(h('em', {}, token.slice(1, -1)));
    else out.push(link(token));
    rest = rest.slice(match.index + token.length);
  }
  return out;
}

function link(token: string): Node {
  const parts = /^(!?)\[([^\]]*)\]\(([^)\s]*)\)$/.exec(token);
  const image = parts?.[1] === '!';
  const label = parts?.[2] ?? token;
  if (image) return h('span', { class: 'md-image', title: 'image not loaded' }, `[${label}]`);
  const href = safeHref(parts?.[3] ?? '');
  if (href === null || !/^https?:/i.test(href)) return document.createTextNode(label);
  const a = h('a', { href }, label);
  a.target = '_blank';
  a.rel = 'noopener noreferrer nofollow';
  return a;
}
