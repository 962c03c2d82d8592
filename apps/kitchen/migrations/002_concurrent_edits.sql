-- Concurrent edits (issue 16.14). Rows two members can edit at once carry a version: 1 when
-- created, +1 on every change; a write with If-Match applies only to the version it names.
ALTER TABLE fridge_items ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version > 0);
ALTER TABLE recipes ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version > 0);
ALTER TABLE meal_plans ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version > 0);

