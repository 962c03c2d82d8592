import { describe, expect, it } from 'vitest';
import { inputSchemaToZod } from '../src/json-schema.js';

const options = { maxBase64Bytes: 1024 };

// README "How tools are imported": the schema is converted "after _closing_ every object schema
// that does not say otherwise (`additionalProperties: false`), so unknown keys are refused at every
// level". Two common schema shapes escape the closing, and a model-invented key reaches the server.
describe('review: unknown keys refused at every level', () => {
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
});
