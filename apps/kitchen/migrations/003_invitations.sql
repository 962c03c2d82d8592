-- Membership by invitation (issue 16.10). An owner no longer adds a user: they invite a
-- username, and whoever holds that username accepts or declines. The username is stored as
-- typed (normalized to lower case) with no reference to users, so an invitation to a name
-- nobody holds is stored exactly like one to a real user: the inviter cannot tell them apart.
-- A pending invitation past expires_at is expired (nothing rewrites it; reads compare times).
CREATE TABLE invitations (
  id           text PRIMARY KEY,
  household_id text NOT NULL REFERENCES households (id) ON DELETE CASCADE,
  username     text NOT NULL,
  role         text NOT NULL CHECK (role IN ('owner', 'member')),
  invited_by   text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  status       text NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'revoked')),
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  answered_at  timestamptz -- accepted, declined or revoked
);
-- One open invitation per household and username: inviting again renews it (ON CONFLICT).
CREATE UNIQUE INDEX invitations_pending ON invitations (household_id, username) WHERE status = 'pending';
CREATE INDEX invitations_username ON invitations (username) WHERE status = 'pending';
