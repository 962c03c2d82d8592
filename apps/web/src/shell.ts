import { api, setToken } from './api.js';
import { h } from './dom.js';
import { lang, setLang, t, type Lang } from './i18n.js';
import { currentPath, navigate } from './router.js';
import { loadMe, session } from './state.js';

export interface PageLink {
  readonly path: string;
  readonly label: () => string;
}

export const KITCHEN_PAGES: readonly PageLink[] = [
  { path: '/fridge', label: () => t().fridge },
  { path: '/recipes', label: () => t().recipes },
  { path: '/plan', label: () => t().mealPlan },
  { path: '/preferences', label: () => t().preferences },
  { path: '/assistant', label: () => t().assistant },
];

/** For agent developers, not the family (issue 19): linked from the footer, still served at its URL. */
export const DEVELOPER_PAGES: readonly PageLink[] = [{ path: '/playground', label: () => t().playground }];

/** A same-page link: keyboard and middle-click work (it is a real link); a plain click routes. */
export function link(path: string, label: string, current = false): HTMLAnchorElement {
  return h(
    'a',
    {
      href: path,
      ...(current ? { 'aria-current': 'page' } : {}),
      onclick: (event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(path);
      },
    },
    label,
  );
}

export function languageSwitcher(): HTMLElement {
  const select = h(
    'select',
    {
      id: 'lang',
      onchange: (event) => setLang((event.target as HTMLSelectElement).value as Lang),
    },
    h('option', { value: 'zh', selected: lang() === 'zh' }, '中文'),
    h('option', { value: 'en', selected: lang() === 'en' }, 'English'),
  );
  return h('div', { class: 'field-inline' }, h('label', { for: 'lang' }, t().language), select);
}

function householdSwitcher(rerender: () => void): HTMLElement | null {
  const me = session.me;
  if (me === null || me.households.length === 0) return null;
  const select = h(
    'select',
    {
      id: 'household',
      'data-testid': 'household-switcher',
      onchange: async (event) => {
        const householdId = (event.target as HTMLSelectElement).value;
        const reply = await api('POST', '/api/households/active', { householdId });
        if (reply.ok) await loadMe();
        rerender();
      },
    },
    me.households.map((hh) =>
      h('option', { value: hh.id, selected: hh.id === me.activeHousehold?.id }, hh.name),
    ),
  );
  return h('div', { class: 'field-inline' }, h('label', { for: 'household' }, t().household), select);
}

/**
 * The page frame: skip link, header (name, pages, household, language, sign out), `main` and a
 * footer with the developer link. On a phone (≤ 480 px, `styles.css`) the header is one line: the
 * name and a menu button that opens the pages and controls (issue 19: it took a third of the screen).
 */
export function shell(content: HTMLElement, rerender: () => void): HTMLElement {
  const path = currentPath();
  const me = session.me;
  const main = h('main', { id: 'main', tabindex: '-1' }, content);
  const header = h('header', { class: 'top' });
  const menu = h(
    'div',
    { class: 'top-menu', id: 'top-menu' },
    me !== null &&
      h(
        'nav',
        { 'aria-label': t().menu },
        h(
          'ul',
          {},
          KITCHEN_PAGES.map((p) => h('li', {}, link(p.path, p.label(), path === p.path))),
        ),
      ),
    h(
      'div',
      { class: 'controls' },
      householdSwitcher(rerender),
      languageSwitcher(),
      me !== null &&
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: async () => {
              await api('POST', '/api/auth/logout');
              setToken(null);
              session.me = null;
              navigate('/login');
            },
          },
          `${t().signOut} (${me.user.displayName})`,
        ),
    ),
  );
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'menu-toggle secondary',
      'aria-expanded': 'false',
      'aria-controls': 'top-menu',
      'data-testid': 'menu-toggle',
      onclick: () => {
        const open = header.classList.toggle('open');
        toggle.setAttribute('aria-expanded', String(open));
      },
    },
    `☰ ${t().openMenu}`,
  );
  header.append(h('h1', { class: 'brand' }, link('/fridge', t().appName)), toggle, menu);
  return h(
    'div',
    { class: 'shell' },
    h('a', { class: 'skip', href: '#main' }, t().skipToMain),
    header,
    main,
    me !== null &&
      h(
        'footer',
        { class: 'foot' },
        `${t().developer}: `,
        DEVELOPER_PAGES.map((p) => link(p.path, p.label(), path === p.path)),
      ),
  );
}
