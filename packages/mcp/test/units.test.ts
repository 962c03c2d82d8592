import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { base64String, connectMcp, fingerprint } from '@reins/mcp';
import { inputSchemaToZod } from '../src/json-schema.js';
import { errorFromResult, errorFromThrown } from '../src/map-error.js';
import { untrustedText } from '../src/untrusted-text.js';
import { freePort } from './helpers.js';

const site = { server: 's', tool: 't' };
const options = { maxBase64Bytes: 16 };

describe('input schemas', () => {
  it('closes every object that does not allow extra keys, also nested and in arrays', () => {
    const schema = inputSchemaToZod(
      {
        type: 'object',
        properties: {
          item: { type: 'object', properties: { id: { type: 'string' } } },
          list: { type: 'array', items: { type: 'object', properties: { n: { type: 'number' } } } },
          bag: { type: 'object', additionalProperties: { type: 'number' } },
        },
      },
      options,
    );
    expect(schema.safeParse({ item: { id: 'a' }, list: [{ n: 1 }], bag: { x: 1 } }).success).toBe(true);
    expect(schema.safeParse({ item: { id: 'a', owner: 'x' } }).success).toBe(false);
    expect(schema.safeParse({ list: [{ n: 1, m: 2 }] }).success).toBe(false);
    expect(schema.safeParse({ extra: 1 }).success).toBe(false);
    expect(schema.safeParse({ bag: { y: 'not a number' } }).success).toBe(false);
  });

  it('keeps allOf members open to each other', () => {
    const schema = inputSchemaToZod(
      {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } } },
          { type: 'object', properties: { b: { type: 'string' } } },
        ],
      },
      options,
    );
    expect(schema.safeParse({ a: 'x', b: 'y' }).success).toBe(true);
  });

  it('refuses what it cannot express instead of accepting anything', () => {
    expect(() =>
      inputSchemaToZod({ type: 'object', properties: { a: { type: 'strin' } } }, options),
    ).toThrow();
  });

  it('bounds base64 by decoded bytes, in schemas from servers and in the helper', () => {
    const schema = inputSchemaToZod(
      { type: 'object', properties: { file: { type: 'string', contentEncoding: 'base64' } } },
      options,
    );
    const b64 = (n: number) => Buffer.alloc(n).toString('base64');
    expect(schema.safeParse({ file: b64(16) }).success).toBe(true);
    expect(schema.safeParse({ file: b64(17) }).success).toBe(false);
    expect(z.object({ f: base64String(16) }).safeParse({ f: b64(16) }).success).toBe(true);
    expect(z.object({ f: base64String(16) }).safeParse({ f: b64(17) }).success).toBe(false);
    expect(z.object({ f: base64String(16) }).safeParse({ f: 'not base64!' }).success).toBe(false);
  });
});

describe('untrusted text', () => {
  it('strips control and invisible characters and caps the length', () => {
    expect(untrustedText('a\u001b[31mb\u202ec\u200bd\ne', 100)).toBe('a[31mbcd\ne');
    expect(untrustedText('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(untrustedText(undefined, 10)).toBe('');
  });
});

describe('fingerprints', () => {
  it('ignore key order and see any change, including invisible characters', () => {
    const a = { name: 't', description: 'd', inputSchema: { type: 'object', properties: { x: {} } } };
    const b = { inputSchema: { properties: { x: {} }, type: 'object' }, description: 'd', name: 't' };
    expect(fingerprint(a)).toBe(fingerprint(b));
    expect(fingerprint(a)).not.toBe(fingerprint({ ...a, description: 'd\u200b' }));
    expect(fingerprint(a)).not.toBe(fingerprint({ ...a, annotations: { readOnlyHint: true } }));
  });
});

describe('error mapping', () => {
  it('maps protocol, transport and timeout errors', () => {
    expect(errorFromThrown(new ProtocolError(-32602, 'bad'), site, undefined).code).toBe('INVALID_PARAMETER');
    expect(errorFromThrown(new ProtocolError(-32603, 'boom'), site, undefined).code).toBe(
      'SERVICE_UNAVAILABLE',
    );
    const closed = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    expect(errorFromThrown(closed, site, undefined).code).toBe('SERVICE_UNAVAILABLE');
    const timeout = new SdkError(SdkErrorCode.RequestTimeout, 'x');
    expect(errorFromThrown(timeout, site, undefined).code).toBe('TIMEOUT');
    expect(errorFromThrown(timeout, site, 'cancelled').code).toBe('CANCELLED');
  });

  it("cleans an SDK error's message like any server text (it may quote the server)", () => {
    const quoted = new SdkError(SdkErrorCode.ConnectionClosed, 'closed: \u202eevil\u0007 \u{E0041}\u{E0042}');
    expect(errorFromThrown(quoted, site, undefined).message).toBe('s/t: closed: evil');
  });

  it('maps isError results by declared code first, then by what the text says', () => {
    const declared = JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'slow down' } });
    expect(errorFromResult(declared, undefined, site)).toMatchObject({ code: 'RATE_LIMITED' });
    expect(errorFromResult('x', { error: { code: 'NOT_FOUND' } }, site).code).toBe('NOT_FOUND');
    // Loop-level codes cannot be claimed by a server.
    expect(errorFromResult('x', { error: { code: 'CANCELLED' } }, site).code).toBe('SERVICE_UNAVAILABLE');
    expect(errorFromResult('Invalid arguments: id is required', undefined, site).code).toBe(
      'INVALID_PARAMETER',
    );
    expect(errorFromResult('recipe 12 not found', undefined, site).code).toBe('NOT_FOUND');
    expect(errorFromResult('Forbidden', undefined, site).code).toBe('PERMISSION_DENIED');
    expect(errorFromResult('upstream exploded', undefined, site).code).toBe('SERVICE_UNAVAILABLE');
  });
});

describe('a server that is not there', () => {
  it('connectMcp resolves with status down and a reason; calls are not possible', async () => {
    const port = await freePort();
    const bridge = await connectMcp({
      name: 'nobody',
      transport: { kind: 'http', url: `http://127.0.0.1:${port}/mcp` },
      reconnect: { initialDelayMs: 10, maxAttempts: 2 },
    });
    try {
      expect(bridge.status()).toMatchObject({ server: 'nobody', status: 'down', tools: 0 });
      expect(bridge.status().lastError).toBeTruthy();
      expect(bridge.tools()).toEqual([]);
    } finally {
      await bridge.close();
    }
  });

  it('a missing stdio command is down too, not a crash', async () => {
    const bridge = await connectMcp({
      name: 'missing',
      transport: { kind: 'stdio', command: '/nonexistent/mcp-server' },
      reconnect: { initialDelayMs: 10, maxAttempts: 1 },
    });
    try {
      expect(bridge.status()).toMatchObject({ status: 'down' });
      expect(bridge.status().lastError).toMatch(/ENOENT/);
    } finally {
      await bridge.close();
    }
  });

  it('invalid options are programmer mistakes and throw', async () => {
    const stdio = { kind: 'stdio' as const, command: 'x' };
    await expect(connectMcp({ name: 'has space', transport: stdio })).rejects.toThrow(TypeError);
    await expect(connectMcp({ name: 'ok', transport: stdio, callTimeoutMs: 0 })).rejects.toThrow(TypeError);
    await expect(connectMcp({ name: 'ok', transport: { kind: 'http', url: 'ftp://x' } })).rejects.toThrow(
      TypeError,
    );
  });
});
