// Found in review: the printed model configuration (packages/models/src/model-from-env.ts,
// env-settings.ts).
import { describe, expect, it } from 'vitest';
import { chooseModel, printableConfig, readModelConfig } from '@reins/models';

describe('printable configuration keeps secrets out', () => {
  // Contract: `ChosenModel.printable` is "The configuration with secrets masked, safe to print
  // or log" (model-from-env.ts:115-116); docs/runtime.md:242-243 "the settings printed secrets
  // masked". printableConfig (model-from-env.ts:140-146) prints OPENAI_BASE_URL and
  // ANTHROPIC_BASE_URL verbatim, so credentials in them — userinfo (`https://user:pass@gw/v1`)
  // or a key in the query (`?api-key=…`, how several gateways take it) — are printed at
  // start-up and end up in logs.
  it('a base URL’s password and key parameter are not printed', async () => {
    const chosen = await chooseModel(
      readModelConfig({
        REINS_MODEL: 'openai:m',
        OPENAI_BASE_URL: 'https://svc:hunter2-gateway-pass@gateway.example/v1',
        ANTHROPIC_BASE_URL: 'https://claude-gw.example/?api-key=sk-ant-live-0123456789abcdef',
      }),
    );
    const printed = JSON.stringify(chosen.printable);
    expect(printed).not.toContain('hunter2-gateway-pass');
    expect(printed).not.toContain('sk-ant-live-0123456789abcdef');
  });

  // Same contract. `mask` (env-settings.ts:69-72) shows the first 3 and last 4 characters of
  // any secret longer than 8: a 9-character key is printed with 7 of its 9 characters, a
  // 10-character one with 7 of 10 — close to the whole key.
  it('a short key is not printed almost whole', () => {
    const printed = printableConfig(readModelConfig({ OPENAI_API_KEY: 'k3y-9chrs' })).OPENAI_API_KEY ?? '';
    const shown = printed.replace(/[^A-Za-z0-9-]/g, '').length;
    expect(shown).toBeLessThanOrEqual(4);
  });
});
