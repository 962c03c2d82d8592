// Proves the kitchen's guard tests can fail: removes each guard (tenant filter, membership and
// owner checks, strict input, token hashing, expiry, row lock, If-Match, the use-up guard,
// Idempotency-Key) in turn, runs the tests that should notice, and expects a failure. Restores
// the file afterwards — also on Ctrl-C.
// Usage (from the repo root): node apps/kitchen/scripts/mutation-check.mjs   (a few minutes)
import { runMutants } from '../../../scripts/mutation-runner.mjs';

const src = 'apps/kitchen/src/';
const test = 'apps/kitchen/test/';
const isolation = `${test}tenant-isolation.test.ts`;
const edits = `${test}concurrent-edits.test.ts`;
const reads = `${test}member-reads.test.ts`;
const MUTANTS = [
  [
    'fridge lookup ignores the household',
    `${src}services/fridge-service.ts`,
    'WHERE id = $1 AND household_id = $2${lock',
    'WHERE id = $1 AND $2::text IS NOT NULL${lock',
    [isolation],
  ],
  [
    'recipe search ignores the household',
    `${src}services/recipe-service.ts`,
    '         WHERE r.household_id = $1\n',
    '         WHERE $1::text IS NOT NULL\n',
    [isolation],
  ],
  [
    'membership check skipped',
    `${src}services/principal.ts`,
    "if (role === undefined) throw denied('not a member of the active household');",
    '',
    [isolation],
  ],
  [
    'household profile read without the folded membership check',
    `${src}services/preference-service.ts`,
    'AND EXISTS (SELECT 1 FROM memberships m WHERE m.household_id = $1 AND m.user_id = $2)',
    'AND $2::text IS NOT NULL',
    [reads],
  ],
  [
    'fridge overview read without the folded membership check',
    `${src}services/fridge-service.ts`,
    'AND EXISTS (SELECT 1 FROM memberships m WHERE m.household_id = $1 AND m.user_id = $${params.length + 1})',
    'AND $${params.length + 1}::text IS NOT NULL',
    [reads],
  ],
  [
    'recipe list read without the folded membership check',
    `${src}services/recipe-service.ts`,
    'AND EXISTS (SELECT 1 FROM memberships m WHERE m.household_id = $1 AND m.user_id = $${params.length})',
    'AND $${params.length}::text IS NOT NULL',
    [reads],
  ],
  [
    'recipes-at-home read without the folded membership check',
    `${src}services/recipe-home-match.ts`,
    'AND EXISTS (SELECT 1 FROM memberships m WHERE m.household_id = $1 AND m.user_id = $7)',
    'AND $7::text IS NOT NULL',
    [reads],
  ],
  [
    'meal plan read without the folded membership check',
    `${src}services/meal-plan-service.ts`,
    'AND EXISTS (SELECT 1 FROM memberships m WHERE m.household_id = $1 AND m.user_id = $4)',
    'AND $4::text IS NOT NULL',
    [reads],
  ],
  [
    'an empty folded read not told apart from a non-member',
    `${src}services/principal.ts`,
    'if (rows.length === 0) await requireMember(q, principal);',
    '',
    [reads],
  ],
  [
    'owner check skipped',
    `${src}services/principal.ts`,
    "if (access.role !== 'owner') throw denied('only an owner of the household can do this');",
    '',
    [`${test}rest-api.test.ts`, `${test}invitations.test.ts`],
  ],
  [
    'accepting ignores whose invitation it is',
    `${src}services/invitation-store.ts`,
    '       AND username = (SELECT username FROM users WHERE id = $2)',
    '       AND $2::text IS NOT NULL',
    [`${test}invitations.test.ts`],
  ],
  [
    'switch to any household',
    `${src}services/auth-service.ts`,
    "if (target === undefined) throw notFound('household', 'householdId');",
    "if (target === undefined) return { id: householdId, name: '?', role: 'member' };",
    [isolation],
  ],
  [
    'meal plan accepts any recipe id',
    `${src}services/meal-plan-service.ts`,
    "if (rows.length === 0) throw notFound('recipe', 'recipeId');",
    '',
    [isolation],
  ],
  [
    'unknown fields accepted',
    `${src}domain/schemas.ts`,
    'export const fridgeItemInput = z.strictObject({',
    'export const fridgeItemInput = z.object({',
    [isolation],
  ],
  [
    'token stored in clear',
    `${src}services/auth-service.ts`,
    'const key = hashToken(token);',
    'const key = token;',
    [`${test}auth.test.ts`],
  ],
  [
    'sessions never expire',
    `${src}services/auth-service.ts`,
    'WHERE s.token_hash = $1 AND s.expires_at > $2',
    'WHERE s.token_hash = $1 AND $2::text IS NOT NULL',
    [`${test}auth.test.ts`],
  ],
  [
    'If-Match checked without the row lock (PostgreSQL only)',
    `${src}services/fridge-service.ts`,
    "${lock ? ' FOR UPDATE' : ''}",
    '',
    [edits],
  ],
  [
    'If-Match ignored',
    `${src}domain/versions.ts`,
    'if (accepted !== null && !accepted.includes(version))',
    'if (accepted === undefined)',
    [edits],
  ],
  ['use-up takes more than is left', `${src}services/fridge-service.ts`, 'AND quantity >= $4', '', [edits]],
  [
    'a repeated Idempotency-Key runs again',
    `${src}services/idempotency-service.ts`,
    "if (claimed.length > 0) return { kind: 'run'",
    "if (claimed.length >= 0) return { kind: 'run'",
    [edits],
  ],
  [
    'an Idempotency-Key reused with another body is replayed',
    `${src}services/idempotency-service.ts`,
    'if (row.request_hash !== requestHash)',
    'if (row.request_hash === undefined)',
    [edits],
  ],
  [
    'a nutrition card keeps the provenance the model wrote',
    `${src}assistant/kitchen-answer.ts`,
    "return { ...rest, provenance: 'llm_estimate', note };",
    'return { ...card, note };',
    [`${test}kitchen-answer.test.ts`],
  ],
  [
    'table values not re-stamped over the model’s numbers',
    `${src}assistant/kitchen-answer.ts`,
    'energyKcal: p.energyKcal,',
    'energyKcal: card.values?.energyKcal,',
    [`${test}kitchen-answer.test.ts`],
  ],
  [
    '"planned" taken from the model',
    `${src}assistant/kitchen-answer.ts`,
    "const status = evidence.planned.has(`${e.date}|${e.slot}|${name}`) ? 'planned' : 'suggested';",
    'const status = e.status;',
    [`${test}kitchen-answer.test.ts`],
  ],
  [
    'the reply is not told that nutrition data is unavailable',
    `${src}assistant/kitchen-answer.ts`,
    'seen.nutritionUnavailable && !says',
    'false && !says',
    [`${test}kitchen-answer.test.ts`],
  ],
  [
    'web assets read outside their root',
    `${src}http/web-assets.ts`,
    'if (target !== root && !target.startsWith(root + sep)) return undefined;',
    '',
    [`${test}web-assets.test.ts`],
  ],
  [
    'web assets answer API paths with the page',
    `${src}http/web-assets.ts`,
    "if ((method !== 'GET' && method !== 'HEAD') || isApiPath(path)) return next();",
    "if (method !== 'GET' && method !== 'HEAD') return next();",
    [`${test}web-assets.test.ts`],
  ],
  [
    'web CSP allows inline script',
    `${src}http/web-assets.ts`,
    `"script-src 'self'",`,
    `"script-src 'self' 'unsafe-inline'",`,
    [`${test}web-assets.test.ts`],
  ],
  [
    'web page renders the model answer as HTML',
    'apps/web/src/answer.ts',
    'withTestId(renderMarkdown(text))',
    "withTestId(Object.assign(document.createElement('div'), { innerHTML: text }))",
    ['apps/web/test/pages.browser.test.ts'],
  ],
  [
    'the PostgreSQL pool runs every statement unnamed (parsed and planned at each call)',
    `${src}db/pg-db.ts`,
    'if (name !== undefined) config.name = name;',
    '',
    [`${test}pg-prepared.test.ts`],
  ],
  [
    'the embedded database thread prepares no statement',
    `${src}db/pglite-worker.js`,
    'if (prepared.accepts(sql)) rows = await runPrepared(db, sql, params, tx);',
    'if (sql === null) rows = await runPrepared(db, sql, params, tx);',
    [`${test}pglite-prepared.test.ts`],
  ],
  [
    'a prepared statement whose table changed is not prepared again',
    `${src}db/pglite-prepared.js`,
    '(error).code !== PLAN_CHANGED) throw error;',
    '(error).code !== null) throw error;',
    [`${test}pglite-prepared.test.ts`],
  ],
];

runMutants(MUTANTS, []);
