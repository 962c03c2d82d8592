import { describe, expect, it } from 'vitest';
import { inputSchemaToZod } from '../src/json-schema.js';

// README "Binary inputs": base64 string properties "get a maxLength, a base64 alphabet pattern and
// an exact decoded-size check (`maxBase64Bytes`): an oversize … value is INVALID_PARAMETER". The
// exact check followed `properties` only; elsewhere only maxLength = ceil(max/3)*4 applied, which
// admits up to 2 bytes more than the bound.
const options = { maxBase64Bytes: 1 };
const threeBytes = 'AAAA'; // decodes to 3 bytes

describe('base64 bound outside plain properties', () => {
  it('a base64 string in an array is held to maxBase64Bytes', () => {
    const schema = inputSchemaToZod(
      {
        type: 'object',
        properties: { files: { type: 'array', items: { type: 'string', contentEncoding: 'base64' } } },
      },
      options,
    );
    expect(schema.safeParse({ files: [threeBytes] }).success).toBe(false);
  });

  it('a base64 string reached through $ref is held to maxBase64Bytes', () => {
    const schema = inputSchemaToZod(
      {
        type: 'object',
        properties: { file: { $ref: '#/$defs/blob' } },
        $defs: { blob: { type: 'string', contentEncoding: 'base64' } },
      },
      options,
    );
    expect(schema.safeParse({ file: threeBytes }).success).toBe(false);
  });

  it('names the element that is too large, and lets the others through', () => {
    const schema = inputSchemaToZod(
      {
        type: 'object',
        properties: {
          files: { type: 'array', items: { type: 'object', properties: { data: { $ref: '#/$defs/blob' } } } },
        },
        $defs: { blob: { type: 'string', contentEncoding: 'base64' } },
      },
      options,
    );
    expect(schema.safeParse({ files: [{ data: 'AA==' }, { data: 'AA==' }] }).success).toBe(true);
    const result = schema.safeParse({ files: [{ data: 'AA==' }, { data: threeBytes }] });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path)).toEqual([['files', 1, 'data']]);
  });

  it('a recursive schema is walked once per reference (no endless walk)', () => {
    const schema = inputSchemaToZod(
      {
        type: 'object',
        properties: { node: { $ref: '#/$defs/node' } },
        $defs: {
          node: {
            type: 'object',
            properties: {
              blob: { type: 'string', contentEncoding: 'base64' },
              child: { $ref: '#/$defs/node' },
            },
          },
        },
      },
      options,
    );
    expect(schema.safeParse({ node: { blob: 'AA==' } }).success).toBe(true);
    expect(schema.safeParse({ node: { blob: threeBytes } }).success).toBe(false);
  });
});
