import { describe, expect, it } from 'vitest';
import { inputSchemaToZod } from '../src/json-schema.js';

const options = { maxBase64Bytes: 1024 };

// README "How tools are imported": the schema is converted "after _closing_ every object schema
// that does not say otherwise (`additionalProperties: false`), so unknown keys are refused at every
// level". Two common shapes escaped the closing (zod makes an object with branches an
// intersection, which keeps nothing strict; tuple items were not walked), and a model-invented
// key reached the server.
describe('unknown keys refused at every level', () => {
  it('an object with properties and an anyOf of `required` alternatives refuses unknown keys', () => {
    // "a or b must be given": a very common shape in real tool schemas.
    const schema = inputSchemaToZod(
      {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string' } },
        anyOf: [{ required: ['a'] }, { required: ['b'] }],
      },
      options,
    );
    expect(schema.safeParse({ a: 'x' }).success).toBe(true);
    expect(schema.safeParse({ a: 'x', space_id: 'other-tenant' }).success).toBe(false);
  });

  it('objects inside a draft-07 tuple (`items: [...]`) refuse unknown keys', () => {
    const schema = inputSchemaToZod(
      {
        type: 'object',
        properties: {
          pair: { type: 'array', items: [{ type: 'object', properties: { n: { type: 'number' } } }] },
        },
      },
      options,
    );
    expect(schema.safeParse({ pair: [{ n: 1 }] }).success).toBe(true);
    expect(schema.safeParse({ pair: [{ n: 1, space_id: 'other-tenant' }] }).success).toBe(false);
  });

  it('keeps what an `anyOf` / `oneOf` of `required` alternatives asks', () => {
    const base = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } };
    const any = inputSchemaToZod({ ...base, anyOf: [{ required: ['a'] }, { required: ['b'] }] }, options);
    expect(any.safeParse({}).success).toBe(false); // one of them must be given
    expect(any.safeParse({ b: 'y' }).success).toBe(true);
    expect(any.safeParse({ a: 'x', b: 'y' }).success).toBe(true);
    const one = inputSchemaToZod({ ...base, oneOf: [{ required: ['a'] }, { required: ['b'] }] }, options);
    expect(one.safeParse({ a: 'x' }).success).toBe(true);
    expect(one.safeParse({ a: 'x', b: 'y' }).success).toBe(false); // both match: not one of
    expect(one.safeParse({ a: 'x', c: 1 }).success).toBe(false);
  });

  it('merges `allOf` members into one closed object, its own names and theirs', () => {
    const merged = inputSchemaToZod(
      {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { type: 'object', properties: { b: { type: 'number' } } },
        ],
      },
      options,
    );
    expect(merged.safeParse({ a: 'x', b: 1 }).success).toBe(true);
    expect(merged.safeParse({ b: 1 }).success).toBe(false);
    expect(merged.safeParse({ a: 'x', b: 'not a number' }).success).toBe(false);
    expect(merged.safeParse({ a: 'x', space_id: 'other-tenant' }).success).toBe(false);
  });

  it('a branch that names a property the object has must pass both schemas', () => {
    const schema = inputSchemaToZod(
      {
        type: 'object',
        properties: { n: { type: 'number' } },
        anyOf: [{ properties: { n: { type: 'number', minimum: 10 } }, required: ['n'] }],
      },
      options,
    );
    expect(schema.safeParse({ n: 12 }).success).toBe(true);
    expect(schema.safeParse({ n: 3 }).success).toBe(false);
    expect(schema.safeParse({ n: 'x' }).success).toBe(false);
  });

  it('references still resolve in a rewritten object', () => {
    const schema = inputSchemaToZod(
      {
        type: 'object',
        properties: { id: { $ref: '#/$defs/id' }, name: { type: 'string' } },
        anyOf: [{ required: ['id'] }, { required: ['name'] }],
        $defs: { id: { type: 'string', pattern: '^[0-9]+$' } },
      },
      options,
    );
    expect(schema.safeParse({ id: '42' }).success).toBe(true);
    expect(schema.safeParse({ id: 'x' }).success).toBe(false);
    expect(schema.safeParse({ id: '42', other: 1 }).success).toBe(false);
  });
});
