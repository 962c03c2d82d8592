-- Failed sign-ins (issue 16.4), counted per key: 'user:<hash of the normalized username>' and
-- 'addr:<client address>'. One row per key, written by one atomic upsert per failure, so the
-- API instances sharing this database share the counts. A row whose window and lock are over
-- means nothing and is swept.
CREATE TABLE login_failures (
  key          text PRIMARY KEY,
  failures     integer NOT NULL CHECK (failures > 0), -- within the window that began at window_start
  window_start timestamptz NOT NULL,
  locked_until timestamptz                            -- set when failures reached the limit
);
CREATE INDEX login_failures_window ON login_failures (window_start); -- the sweep
