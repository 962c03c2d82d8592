import { classifyLink } from './link-rule.js';

/**
 * The view layer: elements built with the DOM API, text always through `textContent`. There is
 * no `innerHTML` anywhere in the app, so nothing a model, a tool or a user wrote can become
 * markup; the places that turn text into structure are `markdown.ts` and `model-text.ts`
 * (links under the link rule), which build elements too.
 */
export type Child = Node | string | number | false | null | undefined | readonly Child[];

export interface Props {
  readonly class?: string;
  readonly id?: string;
  readonly for?: string;
  readonly type?: string;
  readonly name?: string;
  readonly value?: string;
  readonly placeholder?: string;
  readonly title?: string;
  readonly role?: string;
  readonly href?: string;
  readonly min?: string;
  readonly max?: string;
  readonly step?: string;
  readonly required?: boolean;
  readonly disabled?: boolean;
  readonly checked?: boolean;
  readonly selected?: boolean;
  readonly hidden?: boolean;
  readonly autocomplete?: string;
  readonly tabindex?: string;
  readonly lang?: string;
  readonly download?: string;
  readonly 'aria-label'?: string;
  readonly 'aria-live'?: string;
  readonly 'aria-busy'?: string;
  readonly 'aria-current'?: string;
  readonly 'aria-pressed'?: string;
  readonly 'aria-describedby'?: string;
  readonly 'aria-labelledby'?: string;
  readonly 'aria-expanded'?: string;
  readonly 'aria-controls'?: string;
  readonly 'data-testid'?: string;
  readonly 'data-status'?: string;
  readonly 'data-phase'?: string;
  readonly 'data-role'?: string;
  readonly onclick?: (event: MouseEvent) => void;
  readonly onsubmit?: (event: SubmitEvent) => void;
  readonly oninput?: (event: Event) => void;
  readonly onchange?: (event: Event) => void;
}

const BOOLEAN = new Set(['required', 'disabled', 'checked', 'selected', 'hidden']);

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props) as [string, unknown][]) {
    if (value === undefined) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value as EventListener);
    } else if (BOOLEAN.has(key)) {
      if (value === true) el.setAttribute(key, '');
      if (key === 'checked' || key === 'selected') (el as unknown as Record<string, unknown>)[key] = value;
    } else if (key === 'value') {
      (el as HTMLInputElement).value = String(value);
    } else if (key === 'href') {
      const safe = safeHref(String(value));
      if (safe !== null) el.setAttribute('href', safe);
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child as readonly Child[]);
    else if (typeof child === 'string' || typeof child === 'number')
      parent.appendChild(document.createTextNode(String(child)));
    else parent.appendChild(child as Node);
  }
}

/** Replaces the children of `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/**
 * A link target we allow: in-page anchors and addresses of this page's own origin
 * (`link-rule.ts`). Anything else — another site, `javascript:`, `data:` — is refused, so no
 * `<a>` built here can leave the origin. An own address is kept as written (`/fridge`): only a
 * scheme or an authority can change a reference's origin, and those do not depend on the
 * page's path.
 */
export function safeHref(raw: string): string | null {
  const value = raw.trim();
  if (/^#[\w-]*$/.test(value)) return value;
  return classifyLink(value, location.href).kind === 'own' ? value : null;
}
