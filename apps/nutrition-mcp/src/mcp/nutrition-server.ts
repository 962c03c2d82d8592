import { McpServer, type McpServerFactory } from '@modelcontextprotocol/server';
import {
  createNutritionService,
  type NutritionService,
  type NutritionServiceOptions,
} from '../service/nutrition-service.js';
import { SERVER_NAME, SERVER_VERSION } from '../server-info.js';
import { getFoodInput, getFoodOutput, searchFoodsInput, searchFoodsOutput } from './tool-schemas.js';
import { advertisedOnly, errorResult, okResult, parseInput } from './tool-results.js';

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export interface CreateNutritionServerOptions extends NutritionServiceOptions {
  /** Share one service (table, cache) between instances; default: a new one from the other options. */
  readonly service?: NutritionService;
}

/** One MCP server instance with the two read-only tools. */
export function createNutritionServer(options: CreateNutritionServerOptions = {}): McpServer {
  const service = options.service ?? createNutritionService(options);
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: { listChanged: false } } },
  );

  server.registerTool(
    'search_foods',
    {
      title: 'Search foods (IFCT 2017)',
      description:
        'Find food-composition entries by name (Chinese or English) in IFCT 2017. Candidates come ranked: ' +
        'the first is the representative entry (whole foods before cuts, offal, fat and processed forms). ' +
        'Energy is per 100 g edible portion. An empty list means the table has no such food.',
      inputSchema: advertisedOnly(searchFoodsInput),
      outputSchema: searchFoodsOutput,
      annotations: readOnly,
    },
    async (args) => {
      const input = parseInput(searchFoodsInput, args);
      if (!input.ok) return input.result;
      return okResult(await service.search(input.value.query, input.value.limit));
    },
  );

  server.registerTool(
    'get_food',
    {
      title: 'Get food nutrients (IFCT 2017)',
      description:
        'Nutrients per 100 g edible portion for one IFCT 2017 entry, by its code (e.g. O048) or by a name ' +
        '(the representative entry for it). NOT_FOUND when the table has no such food.',
      inputSchema: advertisedOnly(getFoodInput),
      outputSchema: getFoodOutput,
      annotations: readOnly,
    },
    async (args) => {
      const input = parseInput(getFoodInput, args);
      if (!input.ok) return input.result;
      const { code, name } = input.value;
      const outcome = await service.getFood(code !== undefined ? { code } : { name: name ?? '' });
      return outcome.ok ? okResult(outcome.value) : errorResult(outcome.error);
    },
  );

  return server;
}

/** The factory both transports serve (either protocol era gets the same tools). */
export function nutritionServerFactory(service: NutritionService): McpServerFactory {
  return () => createNutritionServer({ service });
}
