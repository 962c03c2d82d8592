import { z } from 'zod';
import { ToolError } from '../errors.js';
import { defineTool, type AnyTool } from '../tool.js';
import { evaluate } from './calculator.js';

const CONDITIONS = ['sunny', 'cloudy', 'rainy', 'snowy'] as const;

// Canned data: the example toolset must work offline and give the same answer every time.
const WEATHER: Readonly<
  Record<string, { city: string; temperature: number; condition: (typeof CONDITIONS)[number] }>
> = {
  beijing: { city: 'Beijing', temperature: 22, condition: 'sunny' },
  shanghai: { city: 'Shanghai', temperature: 28, condition: 'cloudy' },
  guangzhou: { city: 'Guangzhou', temperature: 31, condition: 'rainy' },
  harbin: { city: 'Harbin', temperature: -12, condition: 'snowy' },
};
const CITY_ALIASES: Readonly<Record<string, string>> = {
  北京: 'beijing',
  上海: 'shanghai',
  广州: 'guangzhou',
  哈尔滨: 'harbin',
};

export const getWeather = defineTool({
  name: 'get_weather',
  version: '1',
  lastUpdated: '2026-12-02',
  description: 'Current weather (temperature in °C and condition) for a city. 查询城市天气.',
  input: z.object({ city: z.string().trim().min(1).max(100).describe('City name, e.g. Beijing or 北京') }),
  output: z.strictObject({
    city: z.string(),
    temperature: z.number().int(),
    condition: z.enum(CONDITIONS),
  }),
  readOnly: true,
  timeoutMs: 2_000,
  check: (out) =>
    (out.temperature >= -100 && out.temperature <= 60) || `temperature ${out.temperature} °C is not physical`,
  run: ({ city }) => {
    const key = CITY_ALIASES[city] ?? city.toLowerCase();
    const found = WEATHER[key];
    if (found === undefined) {
      throw new ToolError(
        'NOT_FOUND',
        `no weather data for ${city}; known: ${Object.values(WEATHER)
          .map((w) => w.city)
          .join(', ')}`,
      );
    }
    return found;
  },
});

export const calculate = defineTool({
  name: 'calculate',
  version: '1',
  lastUpdated: '2026-12-02',
  description: 'Evaluate an arithmetic expression with + - * / ^ and parentheses. 计算.',
  input: z.object({ expression: z.string().trim().min(1).max(100) }),
  output: z.strictObject({ expression: z.string(), value: z.number() }),
  readOnly: true,
  timeoutMs: 1_000,
  run: ({ expression }) => ({ expression, value: evaluate(expression) }),
});

/** The current time in a time zone; the clock is injectable so tests are deterministic. */
export function makeGetTime(now: () => number = Date.now) {
  return defineTool({
    name: 'get_time',
    version: '1',
    lastUpdated: '2026-12-02',
    description: 'Current date and time in an IANA time zone such as Asia/Shanghai. 当前时间.',
    input: z.object({ timezone: z.string().trim().min(1).max(64).describe('IANA zone, e.g. Asia/Shanghai') }),
    output: z.strictObject({ timezone: z.string(), local: z.string(), iso: z.string() }),
    readOnly: true,
    timeoutMs: 1_000,
    run: ({ timezone }) => {
      const date = new Date(now());
      let local: string;
      try {
        local = new Intl.DateTimeFormat('en-CA', {
          timeZone: timezone,
          dateStyle: 'short',
          timeStyle: 'medium',
          hourCycle: 'h23',
        }).format(date);
      } catch {
        throw new ToolError('INVALID_PARAMETER', `unknown time zone ${JSON.stringify(timezone)}`);
      }
      return { timezone, local, iso: date.toISOString() };
    },
  });
}

export function exampleTools(options: { now?: () => number } = {}): AnyTool[] {
  return [getWeather, calculate, makeGetTime(options.now)];
}
