import { describe, expect, it } from 'vitest';
import { inputSchemaToZod } from '../src/json-schema.js';

// README "Binary inputs": base64 string properties "get a maxLength, a base64 alphabet pattern and
// an exact decoded-size check (`maxBase64Bytes`): an oversize … value is INVALID_PARAMETER". The
// exact check follows `properties` only; elsewhere only maxLength = ceil(max/3)*4 applies, which
// admits up to 2 bytes more than the bound.
const options = { maxBase64Bytes: 1 };
const threeBytes = 'AAAA'; // decodes to 3 bytes

describe('review: base64 bound outside plain properties', () => {
  it('a base64 string in an array is held to maxBase64Bytes', () => {
    const schema = inputSchemaToZod(
      { type: 'object', properties: { files: { type: 'array', items: { type: 'string', contentEncoding: 'base64' } } } },
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
});
