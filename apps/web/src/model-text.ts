import { h, type Child } from './dom.js';
import { t } from './i18n.js';
import { classifyAddress, classifyLink, showText } from './link-rule.js';

/**
 * Text a model (or a tool) wrote, as DOM nodes, with the link rule of `link-rule.ts` applied:
 * a web address of the page's own origin may be a link; any other address is shown as its host
 * only (`evil.example`), so neither a click nor a copy of the text sends its path or query
 * anywhere. Every place that shows model text in the run views (answer, raw answer, cards,
 * timeline, clarifying questions, earlier turns) goes through here.
 */
export function modelText(text: string, options: { readonly links?: boolean } = {}): Node[] {
  return showText(text, location.href).map((piece) => {
    if (piece.kind === 'text') return document.createTextNode(piece.text);
    if (piece.kind === 'own')
      return options.links === true ? ownLink(piece.href, piece.text) : document.createTextNode(piece.text);
    return piece.kind === 'foreign' ? foreign(piece.host) : foreign(`[${t().linkRemoved}]`);
  });
}

/** `<https://…>` in Markdown: the address itself, as a link when it is our own. */
export function autolink(url: string): Node {
  const target = classifyAddress(url, location.href);
  if (target.kind === 'own') return ownLink(target.href, url);
  return foreign(target.kind === 'foreign' ? target.host : `[${t().linkRemoved}]`);
}

/**
 * `[label](href)` in Markdown: a link when `href` is our own origin; otherwise the label
 * followed by the target's host in brackets — `payload (evil.example)` — or the label alone
 * for a target that is no web address (`javascript:`, `data:`).
 */
export function markdownLink(label: string, href: string): Node[] {
  const target = classifyLink(href, location.href);
  const text = modelText(label);
  if (target.kind === 'own') return [ownLink(target.href, label.trim() === '' ? target.href : text)];
  if (target.kind === 'refused') return text;
  return [
    ...text,
    ...(label.trim() === '' ? [] : [document.createTextNode(' ')]),
    foreign(`(${target.host})`),
  ];
}

/** A link that stays on this origin: same tab, no opener, no referrer. */
export function ownLink(href: string, label: Child): HTMLAnchorElement {
  const a = h('a', { href, class: 'link-own' }, label);
  a.rel = 'noopener noreferrer';
  return a;
}

function foreign(text: string): HTMLElement {
  return h('span', { class: 'link-foreign', title: t().foreignLink, 'data-testid': 'foreign-link' }, text);
}
