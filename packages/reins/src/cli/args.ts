import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface RunCommand {
  readonly command: 'run';
  readonly query: string;
  /** Undefined: REINS_MODEL, else demo. */
  readonly model: string | undefined;
  /** A number, or `auto`: chosen from the query (3..12). */
  readonly maxSteps: number | 'auto';
  readonly deadlineMs: number | undefined;
  readonly json: boolean;
  /** `react` (default): the ReAct loop; `plan`: plan-and-execute. */
  readonly agent: 'react' | 'plan';
  /** Continue (or start) this conversation: earlier turns are shown to the model. */
  readonly conversation: string | undefined;
}

/** `reins tools check | approve`: the tool definitions in use against the approved set. */
export interface ToolsCommand {
  readonly command: 'tools';
  readonly action: 'check' | 'approve';
  /** A module exporting the app's tools (see `TOOLS_USAGE`); undefined: the CLI's example tools. */
  readonly module: string | undefined;
  /** The approved set's file. */
  readonly approved: string;
  readonly json: boolean;
}

export type CliCommand = RunCommand | ToolsCommand | { readonly command: 'help'; readonly usage?: string };

/** A bad command line: printed with its code, exit status 2. */
export class UsageError extends Error {
  readonly code = 'INVALID_PARAMETER';
}

export const USAGE = `Usage: reins run --query "..." [--agent react | plan] [--model demo | script:FILE | openai:M | anthropic:M] [--max-steps N | auto] [--deadline-ms N] [--conversation ID] [--json]

  --query, -q      the question for the agent (required)
  --agent, -a      react (default: reason, act, observe) or plan (plan-and-execute: the model
                   writes a plan, code validates it, independent steps run side by side)
  --model, -m      demo (offline, rule-based, labeled), script:FILE (a JSONL reply script),
                   openai:<model> or anthropic:<model> (keys from OPENAI_API_KEY / ANTHROPIC_API_KEY,
                   OPENAI_BASE_URL for local servers). Default: REINS_MODEL, else demo.
  --max-steps      model steps (default 8 for the CLI); the last step offers no tools. auto:
                   3 to 12, chosen from the question (how many asks, spans, its length)
  --deadline-ms    wall-clock budget for the run (default 60000)
  --conversation   continue the conversation ID (made on first use): its earlier turns are shown
                   to the model, and this run becomes its next turn. Kept as JSON files in
                   $REINS_DATA_DIR/conversations (default ./.reins/conversations), for 30 days.
  --json           print the run record as JSON instead of the live trace

Traces: with OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_TRACES_EXPORTER) set, the run's spans are
exported over OTLP/HTTP (this needs the @reins/server package) and the run line shows its trace id.

A plan run that needs an answer asks on stdin when stdin is a terminal (type the answer or a
candidate's number); otherwise it prints the question and exits with status 5.

Exit status: 0 success, 1 error, 2 usage, 3 stopped by a limit, 4 waiting for an approval,
5 waiting for an answer, 130 cancelled.

       reins tools check | approve [--module FILE.js] [--approved FILE] [--json]   (reins tools --help)`;

export const TOOLS_USAGE = `Usage: reins tools check | approve [--module FILE.js] [--approved FILE] [--json]

  check       compares the tool definitions in use (name, description, input and output schema,
              readOnly / approval flags, version) with the approved set, MCP-imported tools
              included: added, removed and changed tools (which fields; a change without a
              version bump is flagged louder). Exit status 0: as approved; 1: drift (or no
              approved set yet); 2: usage, or a module that cannot be loaded.
  approve     writes the definitions in use as the approved set (commit the file).
  --module    an ES module whose default export (or export \`tools\`) is an array of tools, or
              { tools, sources, close } (sources: e.g. connected MCP bridges), or a function
              (async or not) returning either. Default: the CLI's example tools.
  --approved  the approved set's file (default ./tools.approved.json)
  --json      print the report as JSON`;

export function parseCli(argv: readonly string[]): CliCommand {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h')
    return { command: 'help' };
  if (command === 'tools') return parseTools(rest);
  if (command !== 'run') throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  if (rest.includes('--help') || rest.includes('-h')) return { command: 'help' };
  const values = flagsOf(rest, {
    query: { type: 'string', short: 'q' },
    model: { type: 'string', short: 'm' },
    agent: { type: 'string', short: 'a', default: 'react' },
    'max-steps': { type: 'string', default: '8' },
    'deadline-ms': { type: 'string' },
    json: { type: 'boolean', default: false },
    conversation: { type: 'string' },
  });
  const query = values.query?.trim();
  if (query === undefined || query === '') throw new UsageError('--query is required and must not be blank');
  const agent = values.agent;
  if (agent !== 'react' && agent !== 'plan') {
    throw new UsageError(`--agent must be react or plan, got ${JSON.stringify(agent)}`);
  }
  const conversation = values.conversation;
  if (conversation !== undefined && !/^[A-Za-z0-9_-]{1,100}$/.test(conversation)) {
    throw new UsageError(
      `--conversation must be 1–100 of A-Z a-z 0-9 _ -, got ${JSON.stringify(conversation)}`,
    );
  }
  return {
    command: 'run',
    agent,
    conversation,
    query,
    model: values.model,
    maxSteps: values['max-steps'] === 'auto' ? 'auto' : positiveInt('--max-steps', values['max-steps']),
    deadlineMs:
      values['deadline-ms'] === undefined ? undefined : positiveInt('--deadline-ms', values['deadline-ms']),
    json: values.json,
  };
}

function parseTools(args: readonly string[]): CliCommand {
  const [action, ...rest] = args;
  if (
    action === undefined ||
    ['help', '--help', '-h'].includes(action) ||
    rest.includes('--help') ||
    rest.includes('-h')
  )
    return { command: 'help', usage: TOOLS_USAGE };
  if (action !== 'check' && action !== 'approve')
    throw new UsageError(`reins tools takes check or approve, not ${JSON.stringify(action)}`);
  const values = flagsOf(rest, {
    module: { type: 'string' },
    approved: { type: 'string', default: 'tools.approved.json' },
    json: { type: 'boolean', default: false },
  });
  return { command: 'tools', action, module: values.module, approved: values.approved, json: values.json };
}

/** A command's flags, strictly (no positionals, no unknown flag); a mistake is a `UsageError`. */
function flagsOf<T extends NonNullable<ParseArgsConfig['options']>>(args: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...args], strict: true, allowPositionals: false, options }).values;
  } catch (thrown) {
    throw new UsageError((thrown as Error).message);
  }
}

function positiveInt(flag: string, text: string): number {
  // Decimal digits only: `Number` would read 0x10, 1e1 and 0b11 too.
  const value = /^[1-9]\d*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new UsageError(`${flag} must be a positive integer, got ${JSON.stringify(text)}`);
  return value;
}
