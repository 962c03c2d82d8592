/**
 * Fills a tool input from a question, guided by the input's JSON Schema — the demo model's
 * stand-in for understanding. Only required properties it can find a value for are set.
 */
export function demoInput(query: string, schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const input: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (!required.has(name)) continue;
    const value = guess(name, property, query);
    if (value !== undefined) input[name] = value;
  }
  return input;
}

function guess(name: string, property: Record<string, unknown>, query: string): unknown {
  if (Array.isArray(property.enum)) {
    const options = property.enum as unknown[];
    return (
      options.find((o) => typeof o === 'string' && query.toLowerCase().includes(o.toLowerCase())) ??
      options[0]
    );
  }
  switch (property.type) {
    case 'number':
    case 'integer': {
      const number = /-?\d+(?:\.\d+)?/.exec(query)?.[0];
      return number === undefined ? undefined : Number(number);
    }
    case 'boolean':
      return false;
    case 'string':
      return /expr|formula|calc/i.test(name) ? expression(query) : subject(query);
    default:
      return undefined;
  }
}

/** The longest arithmetic-looking run of the question (digits, operators, brackets). */
function expression(query: string): string {
  const runs = query.match(/[\d.\s+\-*/^()]+/g) ?? [];
  const best = runs.map((r) => r.trim()).sort((a, b) => b.length - a.length)[0];
  return best !== undefined && best !== '' ? best : query.trim().slice(0, 100);
}

const CJK_FILLER =
  /今天|明天|现在|天气|怎么样|怎样|如何|多少|什么|请问|帮我|查一下|查询|一下|的|吗|呢|是|和|查|在|几点|时间/g;

/** The thing the question is about: a place after "in/for/at", a capitalized name, or a CJK noun. */
function subject(query: string): string {
  const after = /\b(?:in|for|at|of)\s+([A-Z][\p{L}/_-]*(?:\s+[A-Z][\p{L}/_-]*)*)/u.exec(query)?.[1];
  if (after !== undefined) return after;
  const capitalized = query.slice(1).match(/\b[A-Z][\p{L}-]+/u)?.[0];
  if (capitalized !== undefined) return capitalized;
  const cjk = (query.match(/[\u4e00-\u9fff]+/g) ?? [])
    .flatMap((run) => run.replace(CJK_FILLER, ' ').split(' '))
    .find((part) => part.length >= 2);
  return cjk ?? query.trim().slice(0, 100);
}
