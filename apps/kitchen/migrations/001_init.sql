-- Xiaojia Kitchen, first schema. Every household-owned row carries household_id; rows that
-- point at other household-owned rows use composite keys so a plan can never reference
-- another household's recipe, even by a bug in the code above.

CREATE TABLE users (
  id            text PRIMARY KEY,
  username      text NOT NULL UNIQUE,
  display_name  text NOT NULL,
  password_hash text NOT NULL,
  created_at    timestamptz NOT NULL
);

CREATE TABLE households (
  id         text PRIMARY KEY,
  name       text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE memberships (
  household_id text NOT NULL REFERENCES households (id) ON DELETE CASCADE,
  user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role         text NOT NULL CHECK (role IN ('owner', 'member')),
  joined_at    timestamptz NOT NULL,
  PRIMARY KEY (household_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

CREATE TABLE sessions (
  token_hash          text PRIMARY KEY,
  user_id             text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  active_household_id text REFERENCES households (id) ON DELETE SET NULL,
  created_at          timestamptz NOT NULL,
  expires_at          timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE fridge_items (
  id           text PRIMARY KEY,
  household_id text NOT NULL REFERENCES households (id) ON DELETE CASCADE,
  name         text NOT NULL,
  quantity     double precision NOT NULL CHECK (quantity >= 0),
  unit         text NOT NULL,
  location     text NOT NULL CHECK (location IN ('fridge', 'freezer', 'pantry')),
  expires_on   date,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL
);
CREATE INDEX fridge_items_household ON fridge_items (household_id, expires_on);

CREATE TABLE recipes (
  id           text PRIMARY KEY,
  household_id text NOT NULL REFERENCES households (id) ON DELETE CASCADE,
  name         text NOT NULL,
  servings     integer NOT NULL CHECK (servings > 0),
  steps        jsonb NOT NULL,
  tags         jsonb NOT NULL,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  UNIQUE (household_id, id)
);
CREATE INDEX recipes_household ON recipes (household_id);

CREATE TABLE recipe_ingredients (
  recipe_id text NOT NULL REFERENCES recipes (id) ON DELETE CASCADE,
  position  integer NOT NULL,
  name      text NOT NULL,
  quantity  double precision,
  unit      text,
  PRIMARY KEY (recipe_id, position)
);

CREATE TABLE meal_plans (
  id           text PRIMARY KEY,
  seq          bigint GENERATED ALWAYS AS IDENTITY, -- insertion order: several dishes share a slot
  household_id text NOT NULL REFERENCES households (id) ON DELETE CASCADE,
  plan_date    date NOT NULL,
  slot         text NOT NULL CHECK (slot IN ('breakfast', 'lunch', 'dinner')),
  recipe_id    text NOT NULL,
  servings     integer CHECK (servings > 0),
  note         text,
  created_at   timestamptz NOT NULL,
  FOREIGN KEY (household_id, recipe_id) REFERENCES recipes (household_id, id) ON DELETE CASCADE
);
CREATE INDEX meal_plans_household_date ON meal_plans (household_id, plan_date);

CREATE TABLE dietary_notes (
  id           text PRIMARY KEY,
  seq          bigint GENERATED ALWAYS AS IDENTITY, -- insertion order
  household_id text NOT NULL REFERENCES households (id) ON DELETE CASCADE,
  kind         text NOT NULL CHECK (kind IN ('allergy', 'preference')),
  label        text NOT NULL,
  person       text,
  note         text,
  created_at   timestamptz NOT NULL
);
CREATE INDEX dietary_notes_household ON dietary_notes (household_id);

CREATE TABLE kitchen_meta (
  key   text PRIMARY KEY,
  value text NOT NULL
);
