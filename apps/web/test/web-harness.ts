import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { pino } from 'pino';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { build } from 'vite';
import { createReinsServer, type ReinsServer } from '@reins/server';
import {
  codeWhitelist,
  defineTool,
  type Model,
  type ModelRequest,
  type ModelResult,
  type Principal,
  type RunAgentOptions,
} from 'reins';
import { z } from 'zod';
import { scriptModel, type ScriptReply } from 'reins/testing';
import {
  createKitchenApp,
  createKitchenServer,
  createKitchenServices,
  webAssets,
  kitchenAgent,
  seedDemo,
  toReinsPrincipal,
  type KitchenServices,
  type NutritionLookup,
} from '@reins/kitchen';
import { BACKENDS } from '../../kitchen/test/backends.js';

export const CHROMIUM = '/usr/bin/chromium';
/** Debian's Chromium, headless, offline: no first-run, sync, updates or background traffic. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const WEB_ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * Where the browser tests save their screenshots: an ignored folder, so `npm test` leaves the
 * working tree clean. `npm run screenshots` points it at `docs/screenshots/` (the README's).
 */
export const SCREENSHOTS = `${resolve(
  fileURLToPath(new URL('../../..', import.meta.url)),
  process.env['REINS_SCREENSHOTS_DIR'] ?? '.screenshots',
)}/`;
mkdirSync(SCREENSHOTS, { recursive: true });

/** A model the test controls: scripted replies; a reply may wait at a gate the test opens. */
export class ControlledModel implements Model {
  readonly name = 'script';
  readonly demo: boolean;
  calls = 0;
  #inner: Model;
  #gate: Promise<void> | undefined;
  constructor(replies: readonly ScriptReply[], options: { gate?: Promise<void>; demo?: boolean } = {}) {
    this.#inner = scriptModel(replies);
    this.#gate = options.gate;
    this.demo = options.demo ?? false;
  }
  async call(request: ModelRequest): Promise<ModelResult> {
    this.calls++;
    if (this.calls > 1 && this.#gate !== undefined) await this.#gate;
    return this.#inner.call(request);
  }
}

/** A nutrition source the test controls: counts lookups; each waits at the gate when one is set. */
export function controlledNutrition() {
  let release: () => void = () => undefined;
  let gate: Promise<void> | undefined;
  const state = {
    calls: 0,
    block() {
      gate = new Promise<void>((resolve) => (release = resolve));
    },
    release: () => release(),
    lookup: (async (food) => {
      state.calls++;
      if (gate !== undefined) await gate;
      return food === '鸡蛋'
        ? {
            code: 'O016',
            name: 'Egg, poultry, whole, raw',
            matchedAlias: '鸡蛋',
            source: 'IFCT 2017',
            per100g: {
              energyKcal: 134.5,
              proteinG: 13.3,
              fatG: 9.4,
              carbohydrateG: 0,
              fibreG: 0,
              sodiumMg: 136,
            },
          }
        : null;
    }) as NutritionLookup,
  };
  return state;
}

/** Seed 001's example: 协和 names three hospitals, so a plan naming it is asked about. */
const HOSPITALS = codeWhitelist({
  name: 'hospitals',
  field: 'hospital_code',
  noun: 'hospital',
  codes: [
    { value: 'BJXH001', label: '北京协和医院', aliases: ['协和'] },
    { value: 'WHXH001', label: '武汉协和医院', aliases: ['协和'] },
    { value: 'FZXH001', label: '福州协和医院', aliases: ['协和'] },
  ],
});

function hospitalTool() {
  return defineTool({
    name: 'query_medical_record',
    description: 'Hospital stays of a patient at one hospital (by hospital code).',
    input: z.object({ patient_id: z.string(), hospital_code: z.string() }),
    output: z.object({ stays: z.number() }),
    readOnly: true,
    run: () => ({ stays: 2 }),
  });
}

export interface WebHarness {
  readonly url: string;
  readonly services: KitchenServices;
  readonly reins: ReinsServer;
  readonly browser: Browser;
  readonly nutrition: ReturnType<typeof controlledNutrition>;
  /** The model the next runs get (the agent is built per request). */
  model: Model;
  /** The model of the plan agent (`planner`, seed 001's hospital example) for the next runs. */
  planModel: Model;
  /** `playground` composition: the kitchen agent's answer format (undefined: plain text answers). */
  answer: RunAgentOptions['answer'];
  newContext(options?: { width?: number; height?: number; locale?: string }): Promise<BrowserContext>;
  close(): Promise<void>;
}

interface Models {
  model: Model;
  planModel: Model;
  answer: RunAgentOptions['answer'];
}

/**
 * What `npm start` serves (`createKitchenServer` with the web UI mounted through `extend`, as
 * `startApp` does): the kitchen agent with its action-card answer format. The model is the
 * test's current one.
 */
function startComposition(
  services: KitchenServices,
  models: Models,
  nutrition: NutritionLookup,
  root: string,
) {
  const current: Model = {
    name: 'script',
    get demo() {
      return models.model.demo;
    },
    call: (request) => models.model.call(request),
  };
  const kitchen = createKitchenServer({
    services,
    model: current,
    nutrition,
    logger: pino({ level: 'silent' }),
    extend: (app) => app.use('*', webAssets({ root })),
  });
  return { app: kitchen.app, reins: kitchen.reins };
}

/**
 * For the playground: the kitchen REST API with the web UI (`createKitchenApp({web})`) and a
 * Reins server with two agents — the kitchen agent (answer format chosen per test) and a plan
 * agent — on the same origin.
 */
function playgroundComposition(
  services: KitchenServices,
  models: Models,
  nutrition: NutritionLookup,
  root: string,
) {
  const hospitalRecords = hospitalTool();
  const reins = createReinsServer({
    agents: {
      kitchen: () => ({
        ...kitchenAgent(services, { model: models.model, nutrition }),
        answer: models.answer,
      }),
      planner: () => ({
        kind: 'plan' as const,
        model: models.planModel,
        tools: [hospitalRecords],
        validators: [HOSPITALS],
      }),
    },
    authenticate: async (request): Promise<Principal | undefined> => {
      const token = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
      const session = token === undefined ? null : await services.auth.authenticate(token);
      return session === null ? undefined : toReinsPrincipal(session.principal);
    },
    logger: pino({ level: 'silent' }),
  });
  const app = new Hono();
  app.route('/', reins.app);
  app.route('/', createKitchenApp({ services, web: { root }, reportError: () => undefined }));
  return { app, reins };
}

/**
 * The kitchen on 127.0.0.1 — `start`: exactly what `npm start` composes; `playground`: with a
 * plan agent beside the kitchen agent — plus Debian's Chromium. The pages are built fresh from source into a temp folder first, so
 * the tests never run a stale bundle.
 */
export async function startWebHarness(composition: 'start' | 'playground' = 'start'): Promise<WebHarness> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's Chromium (apt-get install -y chromium) to run the browser tests`,
    );
  }
  const outDir = await mkdtemp(join(tmpdir(), 'kitchen-web-'));
  await build({ root: WEB_ROOT, logLevel: 'silent', build: { outDir, emptyOutDir: true } });

  const backend = BACKENDS[0];
  if (backend === undefined) throw new Error('no embedded backend');
  const opened = await backend.open();
  const deps = { db: opened.db };
  await seedDemo(deps);
  const services = createKitchenServices(deps);
  const nutrition = controlledNutrition();
  const harness: Models = {
    model: new ControlledModel([]),
    planModel: new ControlledModel([]),
    answer: undefined,
  };
  const { app, reins } =
    composition === 'start'
      ? startComposition(services, harness, nutrition.lookup, outDir)
      : playgroundComposition(services, harness, nutrition.lookup, outDir);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Each launch gets a fresh temporary profile (user-data dir) from playwright, removed on close.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  return Object.assign(harness, {
    url,
    services,
    reins,
    browser,
    nutrition,
    async newContext(options: { width?: number; height?: number; locale?: string } = {}) {
      const context = await browser.newContext({
        viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
        locale: options.locale ?? 'zh-CN',
        baseURL: url,
      });
      // Well inside vitest's 20 s per test, so a missing element fails with playwright's message.
      context.setDefaultTimeout(8_000);
      return context;
    },
    async close() {
      await browser.close().catch(() => undefined);
      await reins.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      await opened.dispose();
      await rm(outDir, { recursive: true, force: true });
    },
  });
}
