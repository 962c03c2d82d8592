import type { RunStatus } from '../events.js';
import type { Model } from '../model.js';
import { runAgent, type AgentRun } from '../loop/run-agent.js';
import { runPlanAgent } from '../plan/run-plan.js';
import type { PendingQuestion } from '../plan/clarify.js';
import { TOOLS_USAGE, USAGE, UsageError, parseCli, type RunCommand } from './args.js';
import { chooseCliModel, type Chosen } from './choose-model.js';
import { isTracingFailure, startCliTracing, type CliTracedRun } from './cli-tracing.js';
import { exampleTools } from './example-tools.js';
import { formatEvent } from './print-event.js';
import { conversationContext } from '../store/conversation-context.js';
import type { ConversationTurn } from '../store/conversation-store.js';

const EXIT: Readonly<Record<RunStatus, number>> = {
  success: 0,
  error: 1,
  stopped: 3,
  awaiting_approval: 4,
  awaiting_input: 5,
  cancelled: 130,
};

/** Where the CLI writes; injectable so tests capture output without patching `process`. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Asks the user a question and reads one line; absent when there is nobody to ask (no TTY). */
  readonly ask?: ((prompt: string) => Promise<string | undefined>) | undefined;
}

const processIo: CliIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  ask: process.stdin.isTTY === true ? askOnStdin : undefined,
};

async function askOnStdin(prompt: string): Promise<string | undefined> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(prompt);
  } finally {
    rl.close();
  }
}

/** A typed candidate number ("2") picks that candidate; anything else is the answer as typed. */
export function chosenValue(typed: string, question: PendingQuestion): string {
  const n = Number(typed.trim());
  const picked = Number.isInteger(n) ? question.candidates[n - 1] : undefined;
  return picked?.value ?? typed.trim();
}

export async function main(
  argv: readonly string[],
  io: CliIo = processIo,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  let command;
  try {
    command = parseCli(argv);
  } catch (thrown) {
    if (!(thrown instanceof UsageError)) throw thrown;
    io.err(`reins: ${thrown.code}: ${thrown.message}\n\n${argv[0] === 'tools' ? TOOLS_USAGE : USAGE}\n`);
    return 2;
  }
  if (command.command === 'help') {
    io.out(`${command.usage ?? USAGE}\n`);
    return 0;
  }
  if (command.command === 'tools') {
    const { toolsCommand } = await import('./tools-command.js');
    return toolsCommand(command, io);
  }
  return run(command, io, env);
}

/** The run, traced when the `OTEL_*` settings ask for it: its spans are sent before the CLI exits. */
async function run(
  command: RunCommand,
  io: CliIo,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const tracing = await startCliTracing(env, (message) => io.err(`${message}\n`));
  if (isTracingFailure(tracing)) {
    io.err(`reins: ${tracing.code}: ${tracing.message}\n`);
    return 2;
  }
  if (tracing.enabled) io.err(`${tracing.describe}\n`);
  try {
    return await runModel(command, io, env, tracing.traceRun());
  } finally {
    await tracing.shutdown(); // also when the run failed or threw: what was traced is sent
  }
}

async function runModel(
  command: RunCommand,
  io: CliIo,
  env: Readonly<Record<string, string | undefined>>,
  traced: CliTracedRun,
): Promise<number> {
  let chosen: Chosen;
  try {
    chosen = await chooseCliModel(command.model, env);
    if (chosen.notice !== undefined) io.err(`${chosen.notice}\n`);
  } catch (thrown) {
    io.err(`reins: INVALID_PARAMETER: ${(thrown as Error).message}\n`);
    return 2;
  }
  try {
    return await runWith(chosen.model, command, io, env, traced);
  } finally {
    await chosen.close?.();
  }
}

async function runWith(
  model: Model,
  command: RunCommand,
  io: CliIo,
  env: Readonly<Record<string, string | undefined>>,
  traced: CliTracedRun,
): Promise<number> {
  const controller = new AbortController();
  const conversation =
    command.conversation === undefined ? undefined : await openConversation(command.conversation, env);
  let agentRun: AgentRun;
  try {
    const options = {
      ...(conversation?.context === undefined ? {} : { instructions: conversation.context }),
      ...(conversation === undefined ? {} : { conversationId: conversation.id }),
      query: command.query,
      model,
      tools: exampleTools(),
      signal: controller.signal,
      limits: {
        maxSteps: command.maxSteps,
        ...(command.deadlineMs === undefined ? {} : { deadlineMs: command.deadlineMs }),
      },
    };
    agentRun =
      command.agent === 'plan'
        ? runPlanAgent({ ...options, agent: 'cli-plan' })
        : runAgent({ ...options, agent: 'cli' });
  } catch (thrown) {
    // Limits that do not fit (e.g. a deadline shorter than the tools' timeouts allow).
    if (!(thrown instanceof RangeError)) throw thrown;
    io.err(`reins: INVALID_PARAMETER: ${thrown.message}\n`);
    return 2;
  }
  try {
    return await follow(agentRun, controller, command, io, conversation, traced);
  } finally {
    // The spans come from the log, with its times: built once the CLI is done with the run.
    for (const event of agentRun.events) traced.observe(event);
    traced.finish(agentRun.events.at(-1)?.at ?? Date.now()); // a run left paused: its spans end here
  }
}

/** Prints the run as it goes (or its record), asks on stdin when it waits for an answer, returns the exit status. */
async function follow(
  agentRun: AgentRun,
  controller: AbortController,
  command: RunCommand,
  io: CliIo,
  conversation: Conversation | undefined,
  traced: CliTracedRun,
): Promise<number> {
  const { traceId } = traced;
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  let from = 0;
  for (;;) {
    if (!command.json) {
      for await (const event of agentRun.follow(from)) {
        const line = formatEvent(event);
        const trace = event.type === 'start' && traceId !== undefined ? ` · trace ${traceId}` : '';
        if (line !== undefined) io.out(`${line}${trace}\n`);
      }
    }
    const record = await agentRun.result;
    from = agentRun.events.length;
    const question = agentRun.pendingQuestion;
    if (record.status === 'awaiting_input' && question !== undefined && io.ask !== undefined) {
      const typed = await io.ask('Your answer: ');
      if (typed !== undefined && typed.trim() !== '') {
        const answered = agentRun.answer({
          questionId: question.questionId,
          value: chosenValue(typed, question),
        });
        if (answered.ok) continue;
        io.err(`reins: ${answered.code}: ${answered.message}\n`);
      }
    }
    process.off('SIGINT', onSigint);
    if (conversation !== undefined) {
      await conversation.remember({
        runId: agentRun.runId,
        query: command.query,
        at: Date.now(),
        status: record.status,
        answer: record.final_answer,
      });
      io.err(
        `conversation ${conversation.id}: ${conversation.turns + 1} turn(s); continue with --conversation ${conversation.id}\n`,
      );
    }
    // Traced: the record says in which trace, as the server's does.
    const shown = traceId === undefined ? record : { ...record, trace_id: traceId };
    if (command.json) io.out(`${JSON.stringify(shown, null, 2)}\n`);
    return EXIT[record.status];
  }
}

const CLI_USER = 'cli';
const CONVERSATION_TTL_MS = 30 * 86_400_000;

/** The CLI's conversation: its earlier turns as context, and how to add this run's turn. */
interface Conversation {
  readonly id: string;
  readonly turns: number;
  readonly context: string | undefined;
  remember(turn: ConversationTurn): Promise<unknown>;
}

async function openConversation(
  id: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Conversation> {
  const [{ fileConversationStore }, { join }] = await Promise.all([
    import('../node/file-conversation-store.js'),
    import('node:path'),
  ]);
  const store = fileConversationStore(join(env['REINS_DATA_DIR'] ?? '.reins', 'conversations'));
  const loaded = await store.get(id, CLI_USER, Date.now());
  const turns = loaded?.turns ?? [];
  return {
    id,
    turns: turns.length,
    context: conversationContext(turns),
    remember: (turn: ConversationTurn) => store.addTurn(id, CLI_USER, turn, CONVERSATION_TTL_MS),
  };
}
