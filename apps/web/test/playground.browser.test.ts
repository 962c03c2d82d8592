import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autoMaxSteps } from 'reins';
import { act, final, sessions } from './browser-session.js';
import { ControlledModel, SCREENSHOTS, startWebHarness, type WebHarness } from './web-harness.js';

/** Browser waits under a loaded CI machine: well inside vitest's 20 s, far above the usual 0.1 s. */
const POLL = { timeout: 8_000 };

let h: WebHarness;
const browser = sessions(() => h);

beforeAll(async () => {
  h = await startWebHarness('playground');
}, 90_000);

afterAll(async () => {
  await browser.closeAll();
  await h?.close();
});

interface Download {
  readonly record: { readonly status: string; readonly limits: { readonly maxSteps: number } };
  readonly events: readonly { readonly type: string; readonly phase?: string }[];
}

describe('the playground and the pages around it, in Chromium', () => {
  it('runs an agent with a chosen step limit, shows a timed timeline, downloads the record, replays the run', async () => {
    h.model = new ControlledModel([act('fridge_items', {}, '先查冰箱'), final('查好了')]);
    const page = await browser.signedIn('xiaojia', { locale: 'en-US' });
    await page.locator('footer a[href="/playground"]').click();
    const picker = page.getByTestId('agent-picker');
    await expect
      .poll(() => picker.locator('option').allTextContents())
      .toEqual(['kitchen (ReAct)', 'planner (plan)']);
    expect(await page.getByTestId('max-steps').getAttribute('max')).toBe('4');
    await page.getByTestId('max-steps').fill('2');
    await page.locator('#pg-query').fill('What is in the fridge?');
    await page.getByTestId('run').click();
    const output = page.getByTestId('pg-output');
    await expect
      .poll(() => output.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toContain('success');
    const phases = await output
      .locator('.step')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-phase')));
    expect(phases).toEqual(['reason', 'act', 'observe', 'reason', 'done']);
    expect(await output.locator('.step-observe .step-meta').textContent()).toMatch(/#1 · \d+ ms/);
    await output.locator('.step-act summary').click();
    expect(await output.locator('.step-act pre').textContent()).toBe('{}');
    await page.screenshot({ path: `${SCREENSHOTS}playground.png`, fullPage: true });

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download').click(),
    ]);
    const file = join(tmpdir(), `run-${Date.now()}.json`);
    await download.saveAs(file);
    const saved = JSON.parse(await readFile(file, 'utf8')) as Download;
    expect(saved.record.status).toBe('success');
    expect(saved.record.limits.maxSteps).toBe(2); // the slider reached the server
    expect(saved.events.map((e) => e.type)).toEqual([
      'start',
      'step',
      'step',
      'step',
      'step',
      'message',
      'done',
    ]);

    // Replay by run id (the server's log), then from the downloaded file: the same timeline.
    const runId = /run-(.+)\.json$/.exec(download.suggestedFilename())?.[1] ?? '';
    await page.getByTestId('replay-id').fill(runId);
    await page.getByTestId('replay').click();
    await expect.poll(() => output.locator('.step').count(), POLL).toBe(5);
    await page.getByTestId('replay-id').fill('');
    await page.getByTestId('replay-file').setInputFiles(file);
    await page.getByTestId('replay').click();
    await expect
      .poll(() => output.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toContain('success');
    // The status may still read the id replay's "success" while the file is read: wait for the steps.
    await expect.poll(() => output.locator('.step').count(), POLL).toBe(5);
  });

  it("offers 'auto' max steps: the server chooses from the question, and the timeline shows the number and why", async () => {
    h.model = new ControlledModel([act('fridge_items', {}, '先查冰箱'), final('查好了')]);
    const page = await browser.signedIn('xiaojia', { locale: 'en-US' });
    await page.goto('/playground');
    const query = 'What is in the fridge, and also what can I cook tonight?';
    await expect.poll(() => page.getByTestId('max-steps').getAttribute('max'), POLL).toBe('4');
    await page.getByTestId('max-steps-auto').check();
    expect(await page.getByTestId('max-steps').isDisabled()).toBe(true);
    expect(await page.locator('output[for="pg-steps"]').textContent()).toBe('auto');
    await page.locator('#pg-query').fill(query);
    await page.getByTestId('run').click();
    const output = page.getByTestId('pg-output');
    await expect
      .poll(() => output.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toContain('success');
    const expected = autoMaxSteps(query, 4); // the kitchen agent allows 4 steps
    const start = output.locator('.step-start');
    expect(await start.locator('.step-phase').textContent()).toBe('Max steps (auto)');
    expect(await start.locator('.step-body').textContent()).toBe(`${expected.chosen} — ${expected.reason}`);
    const phases = await output
      .locator('.step')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-phase')));
    expect(phases).toEqual(['start', 'reason', 'act', 'observe', 'reason', 'done']);
    // Unchecked, the slider's number is sent again (no auto row).
    await page.getByTestId('max-steps-auto').uncheck();
    expect(await page.locator('output[for="pg-steps"]').textContent()).toBe('4');
    h.model = new ControlledModel([final('好')]);
    await page.getByTestId('run').click();
    await expect.poll(() => output.locator('.step-done').count(), POLL).toBe(1);
    expect(await output.locator('.step-start').count()).toBe(0);
  });

  it('shows the prompt each reason step sent, message by message, with token counts (the prompt debugger)', async () => {
    h.model = new ControlledModel([act('fridge_items', {}, '先查冰箱'), final('冰箱里有番茄和鸡蛋')]);
    const page = await browser.signedIn('xiaojia', { locale: 'zh-CN' });
    await page.goto('/playground');
    await page.locator('#pg-query').fill('冰箱里有什么？');
    await page.getByTestId('run').click();
    const output = page.getByTestId('pg-output');
    await expect
      .poll(() => output.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toContain('success');
    const prompts = output.locator('.step-reason [data-testid="prompt"]');
    expect(await prompts.count()).toBe(2);
    const second = prompts.nth(1);
    await second.locator('summary').click();
    const roles = await second
      .locator('.prompt-message')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-role')));
    expect(roles).toEqual(['system', 'user', 'assistant', 'user']);
    const texts = await second.locator('.prompt-message pre').allTextContents();
    expect(texts[1]).toContain('冰箱里有什么？');
    expect(texts[2]).toContain('先查冰箱');
    expect(texts[3]).toContain('Observation (tool fridge_items');
    expect(await second.locator('summary').textContent()).toMatch(/发给模型的提示 · 4 条消息 · \d+ tokens/);
    expect(await second.locator('.prompt-role').first().textContent()).toBe('系统');
    expect(await second.locator('.prompt-tokens').nth(1).textContent()).toMatch(/^\d+ tokens（估算）$/);
    await second.locator('.prompt-message').nth(3).scrollIntoViewIfNeeded();
    await output
      .locator('.step-reason')
      .nth(1)
      .screenshot({ path: `${SCREENSHOTS}playground-prompt.png` });
  });

  it('draws the plan graph from plan events and shows a clarifying question (replayed from a log)', async () => {
    const page = await browser.signedIn('xiaojia', { locale: 'en-US' });
    await page.goto('/playground');
    const plan = {
      type: 'step',
      phase: 'plan',
      index: 1,
      version: 1,
      reason: 'initial',
      plan: {
        steps: [
          { id: 's1', action: 'fridge_items', input: {}, dependsOn: [] },
          { id: 's2', action: 'household_preferences', input: {}, dependsOn: [] },
          { id: 's3', action: 'recipe_search', input: { ingredients: ['番茄'] }, dependsOn: ['s1', 's2'] },
        ],
      },
    };
    const log = [
      { type: 'start', agent: 'planner', model: 'script', demo: false },
      plan,
      { type: 'step', phase: 'act', index: 1, tool: 'fridge_items', input: {}, planStepId: 's1' },
      {
        type: 'step',
        phase: 'observe',
        index: 1,
        planStepId: 's1',
        observation: { tool: 'fridge_items', status: 'ok', result: { items: [] } },
      },
      {
        type: 'clarify',
        questionId: 'q1',
        question: 'Which day?',
        candidates: [{ value: 'sat', label: 'Saturday' }],
      },
      { type: 'done', status: 'awaiting_input' },
    ];
    const file = join(tmpdir(), `plan-${Date.now()}.json`);
    await writeFile(file, JSON.stringify({ events: log }));
    await page.getByTestId('replay-file').setInputFiles(file);
    await page.getByTestId('replay').click();
    const graph = page.getByTestId('plan-graph');
    await expect.poll(() => graph.locator('g.node').count(), POLL).toBe(3);
    expect(await graph.locator('line.edge').count()).toBe(2);
    expect(await graph.locator('g.node-ok').getAttribute('data-step')).toBe('s1');
    const output = page.getByTestId('pg-output');
    expect(await output.locator('.step-clarify').textContent()).toContain('Which day? (Saturday)');
    expect(await output.getByTestId('run-status').getAttribute('data-status')).toContain('awaiting_input');
    await page.screenshot({ path: `${SCREENSHOTS}playground-plan.png`, fullPage: true });
  });

  it('switches household and language; the other pages load and save', async () => {
    const page = await browser.signedIn('nainai', { locale: 'zh-CN' });
    expect(await page.locator('nav a[href="/fridge"]').textContent()).toBe('冰箱');
    const switcher = page.getByTestId('household-switcher');
    const names = await switcher.locator('option').allTextContents();
    expect(names.sort()).toEqual(['小贾家', '老王家']);
    const active = await switcher.locator('option:checked').textContent();
    const other = names.find((n) => n !== active) ?? '';
    await switcher.selectOption({ label: other });
    await expect.poll(() => switcher.locator('option:checked').textContent(), POLL).toBe(other);
    await page.locator('#lang').selectOption('en');
    await expect.poll(() => page.locator('nav a[href="/fridge"]').textContent(), POLL).toBe('Fridge');
    expect(await page.evaluate('document.documentElement.lang')).toBe('en');

    await page.locator('nav a[href="/preferences"]').click();
    await page.locator('#pref-kind').selectOption('allergy');
    await page.locator('#pref-label').fill('芒果');
    await page.locator('#pref-person').fill('奶奶');
    await page.locator('form[aria-label*="Preferences"] button[type=submit]').click();
    await page.getByTestId('allergies').getByText('芒果').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}preferences.png`, fullPage: true });
    await page.locator('nav a[href="/recipes"]').click();
    await page.getByTestId('recipe').first().waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}recipes.png`, fullPage: true });
    await page.locator('nav a[href="/plan"]').click();
    await page.getByTestId('meal-plan').locator('.day').first().waitFor();
    expect(await page.getByTestId('meal-plan').locator('.day').count()).toBe(7);
    await page.screenshot({ path: `${SCREENSHOTS}meal-plan.png`, fullPage: true });
  });

  it('works by keyboard and at phone width (375 px) without sideways scrolling', async () => {
    h.model = new ControlledModel([final('好的')]);
    const page = await browser.signedIn('xiaojia', { width: 375, locale: 'zh-CN' });
    await page.goto('/assistant');
    await page.locator('main h2').waitFor();
    // Skip link first, then straight into the page: the question box, typed and sent by keyboard.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.className')).toBe('skip');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.id')).toBe('ask-input');
    await page.keyboard.type('你好');
    await page.keyboard.press('Enter');
    await page.getByTestId('answer').waitFor();
    for (const path of ['/fridge', '/assistant', '/playground']) {
      await page.goto(path);
      await page.locator('main h2').waitFor();
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await page.goto('/fridge');
    await page.getByTestId('fridge-item').first().waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}fridge-phone.png`, fullPage: true });
  });

  it('answers a clarifying question and follows the resumed run; a degraded answer is labeled (server faked)', async () => {
    const page = await browser.signedIn('xiaojia', { locale: 'en-US' });
    const sse = (events: object[]) =>
      events
        .map((e, i) => `id: ${i}\nevent: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`)
        .join('');
    const answers: unknown[] = [];
    await page.route('**/v1/runs', (route) =>
      route.fulfill({
        status: 200,
        headers: { 'content-type': 'text/event-stream', 'x-run-id': 'run-clarify' },
        body: sse([
          { type: 'start', agent: 'kitchen', model: 'script', demo: false },
          {
            type: 'clarify',
            questionId: 'q1',
            question: 'Which day?',
            candidates: [
              { value: 'sat', label: 'Saturday' },
              { value: 'sun', label: 'Sunday' },
            ],
          },
          { type: 'done', status: 'awaiting_input' },
        ]),
      }),
    );
    await page.route('**/v1/runs/run-clarify/answer', async (route) => {
      answers.push(route.request().postDataJSON());
      await route.fulfill({
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: sse([
          { type: 'step', phase: 'act', index: 2, tool: 'meal_plan_week', input: { day: 'sat' } },
          {
            type: 'message',
            text: 'Saturday it is.',
            format: 'structured',
            demo: false,
            degraded: [
              {
                tool: 'nutrition_lookup',
                fallback: 'nutrition_estimate',
                reason: { code: 'SERVICE_UNAVAILABLE', message: 'down' },
                lost: 'exact values',
              },
            ],
          },
          { type: 'done', status: 'success' },
        ]),
      });
    });
    await page.locator('nav a[href="/assistant"]').click();
    await page.locator('#ask-input').fill('Plan a dinner');
    await page.locator('#ask-input').press('Enter');
    const turn = page.getByTestId('assistant-turn').last();
    await turn.getByTestId('clarify').waitFor();
    expect(await turn.getByTestId('run-status').getAttribute('data-status')).toContain('awaiting_input');
    await turn.getByRole('button', { name: 'Saturday' }).click();
    await expect
      .poll(() => turn.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toContain('success');
    expect(answers).toEqual([{ questionId: 'q1', answer: 'sat' }]);
    expect(await turn.getByTestId('answer-text').textContent()).toContain('Saturday it is.');
    expect(await turn.locator('.step-act').textContent()).toContain('Looked at the meal plan');
    expect(await turn.getByTestId('label-degraded').textContent()).toContain(
      'nutrition_lookup → nutrition_estimate (exact values)',
    );
  });

  it('runs a plan agent live: the plan graph, the question, the answer, the re-planned run to its end', async () => {
    const plan = (code: string) =>
      JSON.stringify({
        thought: 'planning',
        steps: [
          {
            id: 's1',
            action: 'query_medical_record',
            input: { patient_id: 'zhangsan', hospital_code: code },
            dependsOn: [],
          },
        ],
      });
    h.planModel = new ControlledModel([plan('协和'), final('2 stays synced')]);
    const page = await browser.signedIn('xiaojia', { locale: 'en-US' });
    await page.goto('/playground');
    const picker = page.getByTestId('agent-picker');
    await expect.poll(() => picker.locator('option').count(), POLL).toBe(2);
    await picker.selectOption('planner');
    await page.locator('#pg-query').fill('把张三在协和医院的住院记录同步到理赔系统');
    await page.getByTestId('run').click();
    const output = page.getByTestId('pg-output');
    const clarify = output.getByTestId('clarify');
    await clarify.waitFor();
    expect(await clarify.textContent()).toContain('武汉协和医院');
    expect(await page.getByTestId('plan-graph').locator('g.node').count()).toBe(1);
    expect(await output.getByTestId('run-status').getAttribute('data-status')).toContain('awaiting_input');
    await clarify.getByRole('button', { name: '武汉协和医院' }).click();
    await expect
      .poll(() => output.getByTestId('run-status').getAttribute('data-status'), POLL)
      .toContain('success');
    expect(await page.getByTestId('plan-graph').locator('h3').textContent()).toContain('v2 (clarified)');
    expect(await page.getByTestId('plan-graph').locator('g.node-ok').getAttribute('data-step')).toBe('s1');
    expect(await output.locator('.step-act').last().textContent()).toContain('WHXH001');
    expect(await output.getByTestId('answer-text').textContent()).toContain('2 stays synced');
    // The prompt debugger: the planner's prompt on the version it wrote (not on the clarified
    // one, made by code), the responder's on its reason step.
    const planPrompts = output.locator('.step-plan [data-testid="prompt"]');
    expect(await planPrompts.count()).toBe(1);
    await planPrompts.locator('summary').click();
    const planned = await planPrompts.locator('.prompt-message pre').allTextContents();
    expect(planned[0]).toContain('You are the PLANNER');
    expect(planned[1]).toContain('把张三在协和医院的住院记录同步到理赔系统');
    const answerPrompt = output.locator('.step-reason [data-testid="prompt"]');
    expect(await answerPrompt.count()).toBe(1);
    expect(await answerPrompt.locator('summary').textContent()).toMatch(
      /Prompt sent · \d+ messages? · \d+ tokens/,
    );
    await answerPrompt.locator('summary').click();
    const answered = await answerPrompt.locator('.prompt-message pre').allTextContents();
    expect(answered[0]).toContain('You are the RESPONDER');
    expect(answered.at(-1)).toContain('Observation (tool query_medical_record, act s1)');
    await page.screenshot({ path: `${SCREENSHOTS}playground-plan-live.png`, fullPage: true });
  });
});
