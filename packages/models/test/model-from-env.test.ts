import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelConfigError, chooseModel, readModelConfig } from '@reins/models';
import { completion, fakeProvider, json } from './fake-provider.js';

const choose = (env: Record<string, string>) => chooseModel(readModelConfig(env));

describe('model configuration from the environment', () => {
  it('no key and no REINS_MODEL: the demo model, labeled', async () => {
    const chosen = await choose({});
    expect(chosen.model).toMatchObject({ name: 'demo', demo: true });
    expect(chosen.printable).toEqual({
      REINS_MODEL: 'demo',
      OPENAI_API_KEY: '(not set)',
      OPENAI_BASE_URL: '(default)',
      ANTHROPIC_API_KEY: '(not set)',
      ANTHROPIC_BASE_URL: '(default)',
      REINS_MAX_MODEL_REPLY_BYTES: '262144 (default)',
      REINS_TEMPERATURE: '0.1 (default)',
    });
  });

  it('a provider without its key falls back to demo and says why', async () => {
    const openai = await choose({ REINS_MODEL: 'openai:gpt-4o-mini' });
    expect(openai.model.demo).toBe(true);
    expect(openai.reason).toContain('needs OPENAI_API_KEY');
    const claude = await choose({ REINS_MODEL: 'anthropic:claude-haiku-4-5', OPENAI_API_KEY: 'sk-x' });
    expect(claude.model.demo).toBe(true);
    expect(claude.reason).toContain('needs ANTHROPIC_API_KEY');
  });

  it('builds the configured adapters, masking secrets in what is printed', async () => {
    const openai = await choose({
      REINS_MODEL: 'openai:gpt-4o-mini',
      OPENAI_API_KEY: 'sk-proj-abcdefghijkl',
    });
    expect(openai.model.name).toBe('openai-compatible:gpt-4o-mini');
    expect(openai.printable.OPENAI_API_KEY).toBe('sk-…ijkl');
    expect(JSON.stringify(openai.printable)).not.toContain('abcdefgh');
    const local = await choose({
      REINS_MODEL: 'openai:llama3.1',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
    });
    expect(local.model.name).toBe('openai-compatible:llama3.1'); // a local server needs no key
    const claude = await choose({
      REINS_MODEL: 'anthropic:claude-haiku-4-5',
      ANTHROPIC_API_KEY: 'sk-ant-123456789',
    });
    expect(claude.model.name).toBe('anthropic:claude-haiku-4-5');
  });

  it('replays a script file', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'reins-env-')), 'r.jsonl');
    writeFileSync(path, '"hello"\n');
    expect((await choose({ REINS_MODEL: `script:${path}` })).model.name).toBe(`script:${path}`);
  });

  it.each(['gpt-4o', 'openai:', 'demo:x', 'script:', 'cohere:command'])(
    'refuses REINS_MODEL=%s with INVALID_PARAMETER',
    async (spec) => {
      const refused = choose({ REINS_MODEL: spec });
      await expect(refused).rejects.toBeInstanceOf(ModelConfigError);
      await expect(refused).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
    },
  );

  it('REINS_MAX_MODEL_REPLY_BYTES caps the replies of the adapter it builds', async () => {
    const provider = await fakeProvider((_r, res) => json(res, 200, completion('x'.repeat(5_000))));
    try {
      const env = { REINS_MODEL: 'openai:m', OPENAI_BASE_URL: provider.baseURL };
      const request = {
        messages: [{ role: 'user' as const, content: 'q' }],
        tools: [],
        signal: new AbortController().signal,
        step: 1,
        finalStep: false,
      };
      expect((await (await choose(env)).model.call(request)).ok).toBe(true); // 5 KB ≪ 256 KB
      const capped = await choose({ ...env, REINS_MAX_MODEL_REPLY_BYTES: '4096' });
      expect(capped.printable.REINS_MAX_MODEL_REPLY_BYTES).toBe('4096');
      expect(await capped.model.call(request)).toMatchObject({
        ok: false,
        error: { code: 'LIMIT_EXCEEDED' },
      });
      const claude = await choose({
        REINS_MODEL: 'anthropic:c',
        ANTHROPIC_API_KEY: 'k',
        REINS_MAX_MODEL_REPLY_BYTES: '4096',
      });
      expect(claude.model.name).toBe('anthropic:c');
    } finally {
      await provider.close();
    }
  });

  it.each(['0', '-5', '1.5', '4k', '1e6', '99999999999999999999'])(
    'refuses REINS_MAX_MODEL_REPLY_BYTES=%s naming the setting',
    (bad) => {
      expect(() => readModelConfig({ REINS_MAX_MODEL_REPLY_BYTES: bad })).toThrow(ModelConfigError);
      expect(() => readModelConfig({ REINS_MAX_MODEL_REPLY_BYTES: bad })).toThrow(
        /REINS_MAX_MODEL_REPLY_BYTES/,
      );
    },
  );
});
