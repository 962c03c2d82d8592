import type { ModelRequest, ToolSpec } from '../model.js';
import { demoInput } from './demo-input.js';
import { rankTools } from './demo-model.js';
import { readUserInput } from '../sanitize/user-input.js';

const CATALOG_ENTRY = /^- ([A-Za-z][\w-]*): (.*)\n {2}input schema: (.*)$/gm;

/** The actions of a planner request, read back from its catalog (the demo has no other source). */
function actionsOf(system: string): ToolSpec[] {
  const specs: ToolSpec[] = [];
  for (const match of system.matchAll(CATALOG_ENTRY)) {
    try {
      const inputSchema = JSON.parse(match[3] ?? '{}') as Record<string, unknown>;
      specs.push({ name: match[1] ?? '', description: match[2] ?? '', inputSchema });
    } catch {
      // A catalog line the demo cannot read is skipped.
    }
  }
  return specs;
}

/**
 * The demo model as a planner: the question split into parts ("… and …", "…和…", commas),
 * each part's best-matching action a step with its input filled from the part, all steps
 * independent (they run side by side). Nothing matching: it asks what to do. Rule-based and
 * labeled demo, like the rest of the demo model.
 */
export function demoPlan(request: ModelRequest): Record<string, unknown> {
  const system = request.messages[0]?.content ?? '';
  const answers = request.messages
    .filter((m) => m.role === 'user' && m.content.startsWith('Answer to '))
    .map((m) => m.content.slice(m.content.lastIndexOf('": ') + 3));
  const query = [readUserInput(request.messages[1]?.content ?? ''), ...answers].join(' and ');
  const specs = actionsOf(system);
  const parts = query
    .split(/\s+(?:and|then)\s+|[,，;；和]|以及|然后/i)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  // Re-planning: steps already done are not repeated, and new steps get new ids.
  const context = request.messages.map((m) => m.content).join('\n');
  const done = new Set([...context.matchAll(/^- [\w-]+ \(([\w-]+)\) done:/gm)].map((m) => m[1] ?? ''));
  const round = (context.match(/^Step [\w-]+ \(|was rejected:/gm) ?? []).length;
  const prefix = round === 0 ? 's' : `r${round}s`;
  const steps: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const part of parts) {
    const best = rankTools(part, specs)[0];
    if (best === undefined) continue;
    const input = demoInput(part, best.inputSchema);
    const key = `${best.name}${JSON.stringify(input)}`;
    if (seen.has(key) || done.has(best.name)) continue;
    seen.add(key);
    steps.push({ id: `${prefix}${steps.length + 1}`, action: best.name, input, dependsOn: [] });
  }
  if (steps.length === 0) {
    return {
      thought: 'No action matches the request.',
      ask: `I have no action for "${query.slice(0, 80)}". What should I look up?`,
    };
  }
  return { thought: `One step for each part of the request that an action covers (${steps.length}).`, steps };
}
