import { conflict, notFound } from '../domain/errors.js';
import { nameMatches, namePatterns, normalizeName } from '../domain/ingredient-names.js';
import { recipeInput, recipeListQuery, recipePatch, recipeSearchInput } from '../domain/schemas.js';
import type { Ingredient, Recipe, RecipeMatch } from '../domain/types.js';
import { parseInput } from '../domain/validate.js';
import { checkIfMatch, type WriteOptions } from '../domain/versions.js';
import type { Queryable } from '../db/db.js';
import { sqlDate, type ServiceEnv } from './env.js';
import { confirmMemberRead, memberScope, requireMember, type KitchenPrincipal } from './principal.js';
import { INGREDIENTS_COLUMN } from './recipe-ingredients-column.js';
import { matchRecipesAtHome, type HomeMatches } from './recipe-home-match.js';

export interface RecipeRow {
  id: string;
  name: string;
  servings: number;
  steps: string[];
  tags: string[];
  version: number;
  /** Present when the statement selected `INGREDIENTS_COLUMN`: then loadRecipes needs no query. */
  ingredients?: Ingredient[];
}
interface IngredientRow {
  recipe_id: string;
  name: string;
  quantity: number | null;
  unit: string | null;
}

export interface RecipeService {
  /** By name; `q` is a substring of the name, `tag` an exact tag. */
  list(principal: KitchenPrincipal, query?: unknown): Promise<Recipe[]>;
  get(principal: KitchenPrincipal, id: string): Promise<Recipe>;
  create(principal: KitchenPrincipal, input: unknown): Promise<Recipe>;
  /** Fields given replace the stored ones (`ingredients` as a whole list); +1 version. `ifMatch` not naming the current version: 412. */
  update(principal: KitchenPrincipal, id: string, patch: unknown, options?: WriteOptions): Promise<Recipe>;
  remove(principal: KitchenPrincipal, id: string, options?: WriteOptions): Promise<void>;
  /**
   * Recipes using the most of the given ingredients first (then the fewest other ingredients,
   * then by name). Names tolerate synonyms and containment: 西红柿 finds 番茄, 猪肉 finds 五花肉.
   */
  searchByIngredients(principal: KitchenPrincipal, input: unknown): Promise<RecipeMatch[]>;
  /**
   * `{ingredients?, limit?}`: recipes against the whole fridge and pantry (usable items), in one
   * query: `matched` is what is at home, `missing` the rest; the fewest missing first.
   */
  matchAtHome(principal: KitchenPrincipal, input: unknown): Promise<HomeMatches>;
}

export const RECIPE_COLUMNS = 'id, name, servings, steps, tags, version';
const WHAT = 'recipe';

const toRecipe = (r: RecipeRow, ingredients: Ingredient[]): Recipe => ({
  id: r.id,
  name: r.name,
  servings: r.servings,
  ingredients,
  steps: r.steps,
  tags: r.tags,
  version: r.version,
});

/** Recipes with their ingredients: those the rows carry, else one more statement for them all. */
export async function loadRecipes(q: Queryable, householdId: string, rows: RecipeRow[]): Promise<Recipe[]> {
  if (rows.length === 0) return [];
  if (rows.every((r) => r.ingredients !== undefined))
    return rows.map((r) => toRecipe(r, r.ingredients ?? []));
  const ingredients = await q.query<IngredientRow>(
    `SELECT i.recipe_id, i.name, i.quantity, i.unit FROM recipe_ingredients i
     JOIN recipes r ON r.id = i.recipe_id AND r.household_id = $1
     WHERE i.recipe_id IN (SELECT jsonb_array_elements_text($2::jsonb)) ORDER BY i.recipe_id, i.position`,
    [householdId, JSON.stringify(rows.map((r) => r.id))],
  );
  const byRecipe = new Map<string, Ingredient[]>();
  for (const i of ingredients) {
    const list = byRecipe.get(i.recipe_id) ?? [];
    list.push({ name: i.name, quantity: i.quantity, unit: i.unit });
    byRecipe.set(i.recipe_id, list);
  }
  return rows.map((r) => toRecipe(r, byRecipe.get(r.id) ?? []));
}

async function insertIngredients(q: Queryable, recipeId: string, ingredients: readonly Ingredient[]) {
  for (const [position, i] of ingredients.entries()) {
    await q.query(
      'INSERT INTO recipe_ingredients (recipe_id, position, name, quantity, unit) VALUES ($1, $2, $3, $4, $5)',
      [recipeId, position, i.name.normalize('NFKC'), i.quantity, i.unit],
    );
  }
}

export function createRecipeService(env: ServiceEnv): RecipeService {
  const { db } = env;

  /** Locks the recipe row until the transaction ends and checks `If-Match` against it. */
  async function lockChecked(q: Queryable, householdId: string, id: string, options: WriteOptions) {
    const rows = await q.query<{ version: number }>(
      'SELECT version FROM recipes WHERE id = $1 AND household_id = $2 FOR UPDATE',
      [id, householdId],
    );
    const row = rows[0];
    if (row === undefined) throw notFound('recipe');
    checkIfMatch(WHAT, id, row.version, options.ifMatch);
  }

  async function findOne(q: Queryable, householdId: string, id: string): Promise<Recipe> {
    const rows = await q.query<RecipeRow>(
      `SELECT ${RECIPE_COLUMNS} FROM recipes WHERE id = $1 AND household_id = $2`,
      [id, householdId],
    );
    const [recipe] = await loadRecipes(q, householdId, rows);
    if (recipe === undefined) throw notFound('recipe');
    return recipe;
  }

  return {
    matchAtHome: (principal, input) => matchRecipesAtHome(env, principal, input),

    async list(principal, query = {}) {
      const { householdId, userId } = memberScope(principal);
      const filter = parseInput(recipeListQuery, query);
      const params: unknown[] = [householdId];
      let where = 'household_id = $1';
      if (filter.q !== undefined && filter.q !== '') {
        params.push(normalizeName(filter.q));
        // Both sides NFKC and lower case, as `normalizeName` does: a name typed full-width (ＸＯ) is found.
        where += ` AND strpos(lower(normalize(name, NFKC)), $${params.length}) > 0`;
      }
      if (filter.tag !== undefined && filter.tag !== '') {
        params.push(filter.tag);
        where += ` AND tags @> jsonb_build_array($${params.length}::text)`;
      }
      params.push(userId);
      const rows = await db.query<RecipeRow>(
        `SELECT ${RECIPE_COLUMNS}, ${INGREDIENTS_COLUMN} FROM recipes r WHERE ${where}
         AND EXISTS (SELECT 1 FROM memberships m WHERE m.household_id = $1 AND m.user_id = $${params.length})
         ORDER BY name COLLATE "C", id`,
        params,
      );
      return loadRecipes(db, householdId, await confirmMemberRead(db, principal, rows));
    },

    async get(principal, id) {
      const { householdId } = await requireMember(db, principal);
      return findOne(db, householdId, id);
    },

    async create(principal, input) {
      const { householdId } = await requireMember(db, principal);
      const recipe = parseInput(recipeInput, input);
      const id = env.newId();
      const now = env.now().toISOString();
      return db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO recipes (id, household_id, name, servings, steps, tags, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $7)`,
          [
            id,
            householdId,
            recipe.name,
            recipe.servings,
            JSON.stringify(recipe.steps),
            JSON.stringify(recipe.tags),
            now,
          ],
        );
        await insertIngredients(tx, id, recipe.ingredients);
        return findOne(tx, householdId, id);
      });
    },

    async update(principal, id, patch, options = {}) {
      const { householdId } = await requireMember(db, principal);
      const change = parseInput(recipePatch, patch);
      return db.transaction(async (tx) => {
        await lockChecked(tx, householdId, id, options);
        const current = await findOne(tx, householdId, id);
        await tx.query(
          `UPDATE recipes SET name = $3, servings = $4, steps = $5::jsonb, tags = $6::jsonb, updated_at = $7,
             version = version + 1
           WHERE id = $1 AND household_id = $2`,
          [
            id,
            householdId,
            change.name ?? current.name,
            change.servings ?? current.servings,
            JSON.stringify(change.steps ?? current.steps),
            JSON.stringify(change.tags ?? current.tags),
            env.now().toISOString(),
          ],
        );
        if (change.ingredients !== undefined) {
          await tx.query('DELETE FROM recipe_ingredients WHERE recipe_id = $1', [id]);
          await insertIngredients(tx, id, change.ingredients);
        }
        return findOne(tx, householdId, id);
      });
    },

    async remove(principal, id, options = {}) {
      const { householdId } = await requireMember(db, principal);
      await db.transaction(async (tx) => {
        await lockChecked(tx, householdId, id, options);
        // A recipe planned from today on is someone's dinner: refused, not deleted with it. Past
        // plan entries go with the recipe (the foreign key cascades), as the README says.
        const planned = await tx.query<{ days: number; first: string }>(
          `SELECT count(DISTINCT plan_date)::int AS days, ${sqlDate('min(plan_date)')} AS first FROM meal_plans
           WHERE household_id = $1 AND recipe_id = $2 AND plan_date >= $3::date`,
          [householdId, id, env.today()],
        );
        const upcoming = planned[0];
        if (upcoming !== undefined && upcoming.days > 0) {
          throw conflict(
            `the recipe is planned on ${upcoming.days} day(s) from ${upcoming.first}: take it off the meal plan first`,
            'id',
          );
        }
        await tx.query('DELETE FROM recipes WHERE id = $1 AND household_id = $2', [id, householdId]);
      });
    },

    async searchByIngredients(principal, input) {
      const { householdId } = await requireMember(db, principal);
      const { ingredients, limit } = parseInput(recipeSearchInput, input);
      const patternsByTerm = ingredients.map(namePatterns);
      const terms = patternsByTerm.flatMap((patterns, term) => patterns.map((pattern) => [term, pattern]));
      const ranked = await db.query<RecipeRow & { hits: number }>(
        `WITH terms AS (
           SELECT (t->>0)::int AS term, t->>1 AS pattern FROM jsonb_array_elements($2::jsonb) AS t
         )
         SELECT r.id, r.name, r.servings, r.steps, r.tags, r.version, count(DISTINCT terms.term)::int AS hits
         FROM recipes r
         JOIN recipe_ingredients i ON i.recipe_id = r.id
         JOIN terms ON strpos(lower(i.name), terms.pattern) > 0
         WHERE r.household_id = $1
         GROUP BY r.id
         ORDER BY hits DESC,
                  (SELECT count(*) FROM recipe_ingredients x WHERE x.recipe_id = r.id) ASC,
                  r.name COLLATE "C", r.id
         LIMIT $3`,
        [householdId, JSON.stringify(terms), limit],
      );
      const recipes = await loadRecipes(db, householdId, ranked);
      return recipes.map((recipe) => {
        const matched = ingredients.filter((_, term) =>
          recipe.ingredients.some((i) => nameMatches(i.name, patternsByTerm[term] ?? [])),
        );
        const missing = recipe.ingredients
          .filter((i) => !patternsByTerm.some((patterns) => nameMatches(i.name, patterns)))
          .map((i) => i.name);
        return { recipe, matched, missing };
      });
    },
  };
}
