import { startRunTracing, TracingConfigError } from '@reins/server/tracing';
import { runAgent, type RunEvent } from 'reins';
import { kitchenAgent } from '../assistant/agent.js';
import type { KitchenAnswer } from '../assistant/cards.js';
import type { KitchenConfig } from '../config.js';
import { DEMO_USERS } from '../seed/demo-data.js';
import { toReinsPrincipal } from '../services/principal.js';
import { connectNutrition } from '../server/nutrition-bridge.js';
import { ConfigError } from '../config.js';
import { parseArgs, UsageError, type CliIo } from './io.js';
import { openKitchen } from './open-app.js';
import { kitchenModel } from './start.js';

export const ASK_USAGE = `kitchen ask [--user xiaojia] "冰箱里有什么快过期了？"   runs the assistant for a demo user
                             (embedded default; stop \`npm start\` first, or use another REINS_DATA_DIR)`;

const short = (value: unknown, max = 160): string => {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return text.length <= max ? text : `${text.slice(0, max)}…`;
};

/** One line (or a few) per event, printed as it happens. */
export function describeEvent(event: RunEvent): string[] {
  switch (event.type) {
    case 'start':
      return [`▶ run ${event.runId} (model ${event.model}${event.demo ? ', demo' : ''})`];
    case 'step':
      switch (event.phase) {
        case 'reason':
          return [`  💭 step ${event.index}: ${short(event.decision?.thought ?? '(unparsed reply)')}`];
        case 'act':
          return [`  🔧 ${event.tool} ${short(event.input)}`];
        case 'observe': {
          const o = event.observation;
          return [
            o.status === 'ok'
              ? `  👀 ${o.tool} ok (${Math.round(o.durationMs)} ms): ${short(o.result)}`
              : `  ⚠️  ${o.tool} ${o.status}: ${o.error?.code ?? ''} ${o.error?.message ?? ''}`,
          ];
        }
        default:
          return [];
      }
    case 'message': {
      const lines = [`\n${event.text}`, `  (format: ${event.format}${event.demo ? ', demo' : ''})`];
      const data = event.data as KitchenAnswer | undefined;
      for (const card of data?.cards ?? []) {
        if (card.type === 'recipe')
          lines.push(
            `  [菜谱 recipe] ${card.name}${card.origin === 'household' ? '' : ' (suggestion)'}${card.missing?.length ? `  缺 missing: ${card.missing.join('、')}` : ''}`,
          );
        else if (card.type === 'nutrition') {
          const v = card.values ?? {};
          lines.push(
            `  [营养 nutrition] ${card.food} ${card.basis ?? ''}: ${v.energyKcal ?? '?'} kcal, protein ${v.proteinG ?? '?'} g, fat ${v.fatG ?? '?'} g, carbs ${v.carbohydrateG ?? '?'} g  — ${card.provenance ?? ''}${card.source ? ` (${card.source})` : ''}`,
          );
        } else {
          lines.push(`  [菜单 meal plan] ${card.title}`);
          for (const e of card.entries)
            lines.push(
              `     ${e.date} ${e.slot.padEnd(9)} ${e.recipeName}${e.status === 'suggested' ? '  (建议 suggested)' : ''}`,
            );
        }
      }
      return lines;
    }
    case 'error':
      return [`  ✖ ${event.code}: ${event.message}`];
    case 'done':
      return [`■ ${event.status} after ${event.steps} step(s), ${Math.round(event.durationMs)} ms`];
    default:
      return [];
  }
}

/** `kitchen ask`: the assistant for a demo user on this machine's data, each step printed. */
export async function askCommand(config: KitchenConfig, args: string[], io: CliIo): Promise<number> {
  const { positional, options } = parseArgs(args);
  const query = positional.join(' ').trim();
  if (query === '') throw new UsageError('kitchen ask needs a question');
  const username = options.get('user') ?? 'xiaojia';
  const demo = DEMO_USERS.find((u) => u.username === username);
  if (demo === undefined)
    throw new UsageError(`--user is one of ${DEMO_USERS.map((u) => u.username).join(', ')}`);

  // OTEL_* settings, as `kitchen start` reads them: a malformed one is refused before anything opens.
  const tracing = await startRunTracing(io.env, {
    serviceName: 'xiaojia-kitchen-ask',
    onExportError: io.err,
  }).catch((error: unknown) => {
    throw error instanceof TracingConfigError ? new ConfigError(`${error.message} (${error.code})`) : error;
  });
  const kitchen = await openKitchen(config);
  const nutrition = await connectNutrition({
    redisUrl: config.redisUrl,
    url: config.nutritionMcpUrl,
    token: config.nutritionMcpToken,
  });
  let closeModel: (() => Promise<void>) | undefined;
  try {
    const { session } = await kitchen.services.auth.login({ username, password: demo.password });
    const stack = await kitchenModel(io.env);
    closeModel = () => stack.close();
    const { model, reason } = stack;
    io.err(`model: ${model.name} (${reason}); nutrition server: ${nutrition.bridge.status().status}`);
    const agent = kitchenAgent(kitchen.services, { model, nutrition: nutrition.lookup });
    const run = runAgent({
      query,
      model: agent.model,
      tools: agent.tools,
      limits: agent.limits,
      instructions: agent.instructions,
      answer: agent.answer,
      stopNotice: agent.stopNotice,
      principal: toReinsPrincipal(session.principal),
      agent: 'kitchen',
    });
    const traced = tracing.traceRun();
    if (traced.traceId !== undefined) io.err(`${tracing.describe}; trace ${traced.traceId}`);
    for await (const event of run) {
      traced.observe(event);
      for (const line of describeEvent(event)) io.out(line);
    }
    traced.finish(Date.now());
    const record = await run.result;
    return record.status === 'success' ? 0 : 1;
  } finally {
    await tracing.shutdown(); // exports what is still buffered
    await closeModel?.();
    await nutrition.close();
    await kitchen.db.close();
  }
}
