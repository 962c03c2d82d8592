import { api, setToken } from '../api.js';
import { h, replace } from '../dom.js';
import { t } from '../i18n.js';
import { loginErrorText } from '../login-error.js';
import { navigate } from '../router.js';
import { homePath, loadMe } from '../state.js';

export function loginPage(): HTMLElement {
  const status = h('p', { class: 'error', role: 'alert', 'data-testid': 'login-error' });
  const form = h(
    'form',
    {
      class: 'panel narrow',
      'aria-label': t().signIn,
      onsubmit: async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        const reply = await api<{ token: string }>('POST', '/api/auth/login', {
          username: String(data.get('username') ?? ''),
          password: String(data.get('password') ?? ''),
        });
        if (!reply.ok) {
          replace(status, loginErrorText(reply.error, t()));
          return;
        }
        setToken(reply.data.token);
        await loadMe();
        navigate(homePath());
      },
    },
    h('h2', {}, t().signIn),
    h('label', { for: 'username' }, t().username),
    h('input', { id: 'username', name: 'username', autocomplete: 'username', required: true }),
    h('label', { for: 'password' }, t().password),
    h('input', {
      id: 'password',
      name: 'password',
      type: 'password',
      autocomplete: 'current-password',
      required: true,
    }),
    h('button', { type: 'submit' }, t().signIn),
    status,
    h('p', { class: 'hint' }, t().demoLogins),
  );
  return form;
}
