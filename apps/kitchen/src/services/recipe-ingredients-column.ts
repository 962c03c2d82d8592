// Its own module: recipe-service and recipe-home-match import each other, and MATCH_SQL is built
// when its module loads.
/** A recipe row's (aliased `r`) ingredients in order, as one JSON column of the same statement. */
export const INGREDIENTS_COLUMN = `(SELECT coalesce(jsonb_agg(jsonb_build_object('name', i.name,
  'quantity', i.quantity, 'unit', i.unit) ORDER BY i.position), '[]'::jsonb)
  FROM recipe_ingredients i WHERE i.recipe_id = r.id) AS ingredients`;
