import { api } from '../api.js';
import { h, replace } from '../dom.js';
import { t } from '../i18n.js';
import { currentPath, navigate } from '../router.js';
import { loadMe, session } from '../state.js';
import type { Invitation, PendingInvitation, ReceivedInvitation, Role } from '../types.js';
import { errorLine, field } from './common.js';

const roleName = (role: Role): string => (role === 'owner' ? t().roleOwner : t().roleMember);
const day = (iso: string): string => iso.slice(0, 10);

/**
 * Household membership on the preferences page (issue 16.10): everyone sees the invitations
 * addressed to them and accepts or declines; an owner of the active household also invites by
 * username and withdraws pending invitations. Members join only this way.
 */
export function invitationsSection(): HTMLElement {
  const isOwner = session.me?.activeHousehold?.role === 'owner';
  return h(
    'div',
    { class: 'invitations-section' },
    h('h3', {}, t().invitationsForYou),
    receivedInvitations(),
    isOwner && h('h3', {}, t().inviteMember),
    isOwner && ownerInvitations(),
  );
}

/** The signed-in user's open invitations, with accept and decline. */
function receivedInvitations(): HTMLElement {
  const list = h('ul', { class: 'items', 'data-testid': 'received-invitations' });
  const error = errorLine();

  const answer = async (invitation: ReceivedInvitation, action: 'accept' | 'decline') => {
    const reply = await api('POST', `/api/invitations/${encodeURIComponent(invitation.id)}/${action}`);
    if (!reply.ok) return error.show(reply.error);
    if (action === 'decline') return load();
    await loadMe(); // a new household: the switcher in the header lists it
    navigate(currentPath());
  };

  const row = (invitation: ReceivedInvitation): HTMLElement =>
    h(
      'li',
      { class: 'item', 'data-testid': 'received-invitation' },
      h('span', { class: 'item-name' }, invitation.household.name),
      h('span', { class: 'muted' }, t().invitedAs(invitation.invitedBy, roleName(invitation.role))),
      h(
        'button',
        {
          type: 'button',
          'aria-label': `${t().accept} ${invitation.household.name}`,
          onclick: () => void answer(invitation, 'accept'),
        },
        t().accept,
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          'aria-label': `${t().declineInvitation} ${invitation.household.name}`,
          onclick: () => void answer(invitation, 'decline'),
        },
        t().declineInvitation,
      ),
    );

  const load = async () => {
    const reply = await api<{ invitations: ReceivedInvitation[] }>('GET', '/api/invitations');
    if (!reply.ok) return error.show(reply.error);
    error.show(null);
    const open = reply.data.invitations;
    replace(list, open.length === 0 ? h('li', { class: 'hint' }, t().noInvitations) : open.map(row));
  };
  void load();
  return h('div', {}, error.el, list);
}

/** An owner's side: invite by username, and the household's pending invitations with withdraw. */
function ownerInvitations(): HTMLElement {
  const list = h('ul', { class: 'items', 'data-testid': 'pending-invitations' });
  const error = errorLine();
  const sent = h('p', { class: 'hint', role: 'status', 'data-testid': 'invitation-sent' });

  const row = (invitation: PendingInvitation): HTMLElement =>
    h(
      'li',
      { class: 'item', 'data-testid': 'pending-invitation' },
      h('span', { class: 'item-name' }, invitation.username),
      h('span', { class: 'muted' }, `${roleName(invitation.role)} · ${t().until(day(invitation.expiresAt))}`),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          'aria-label': `${t().withdraw} ${invitation.username}`,
          onclick: async () => {
            const reply = await api(
              'DELETE',
              `/api/household/invitations/${encodeURIComponent(invitation.id)}`,
            );
            if (!reply.ok) return error.show(reply.error);
            replace(sent, '');
            await load();
          },
        },
        t().withdraw,
      ),
    );

  const load = async () => {
    const reply = await api<{ invitations: PendingInvitation[] }>('GET', '/api/household/invitations');
    if (!reply.ok) return error.show(reply.error);
    error.show(null);
    const open = reply.data.invitations;
    replace(list, open.length === 0 ? h('li', { class: 'hint' }, t().empty) : open.map(row));
  };

  const username = h('input', { name: 'username', required: true, autocomplete: 'off' });
  const role = h(
    'select',
    { name: 'role' },
    h('option', { value: 'member' }, t().roleMember),
    h('option', { value: 'owner' }, t().roleOwner),
  );
  // Inviting is repeatable by design (a second invite renews the first): no Idempotency-Key.
  const form = h(
    'form',
    {
      class: 'inline-form',
      'aria-label': t().inviteMember,
      onsubmit: async (event) => {
        event.preventDefault();
        const reply = await api<{ invitation: Invitation }>('POST', '/api/household/invitations', {
          username: username.value,
          role: role.value,
        });
        if (!reply.ok) {
          replace(sent, '');
          return error.show(reply.error);
        }
        replace(sent, t().invitationSent(reply.data.invitation.username));
        form.reset();
        await load();
      },
    },
    field('invite-username', t().username, username),
    field('invite-role', t().role, role),
    h('button', { type: 'submit' }, t().invite),
  );
  void load();
  return h('div', {}, h('p', { class: 'hint' }, t().inviteHint), error.el, form, sent, list);
}
