-- Concurrent edits (issue 16.14). Rows two members can edit at once carry a version: 1 when
-- created, +1 on every change; a write with If-Match applies only to the version it names.
ALTER TABLE fridge_items ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version > 0);
ALTER TABLE recipes ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version > 0);
ALTER TABLE meal_plans ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version > 0);

-- The first answer to a POST sent with an Idempotency-Key, replayed to a repeat of it for 24 h.
-- One row per household, user and key: the primary key is what stops two concurrent requests
-- with the same key from both running. status and body stay NULL while the first one runs.
CREATE TABLE idempotency_keys (
  household_id text NOT NULL REFERENCES households (id) ON DELETE CASCADE,
  user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key          text NOT NULL,
  request_hash text NOT NULL, -- SHA-256 of method, path and body: the same key with another request is refused
  status       integer,
  body         text,
  etag         text,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (household_id, user_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at); -- the sweep of expired keys
