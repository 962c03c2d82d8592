import type { RunStatus } from '../events.js';
import type { Model } from '../model.js';
import { runAgent } from '../loop/run-agent.js';
import { USAGE, UsageError, parseCli, type RunCommand } from './args.js';
import { chooseCliModel } from './choose-model.js';
import { exampleTools } from './example-tools.js';
import { formatEvent } from './print-event.js';

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
}

const processIo: CliIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

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
    io.err(`reins: ${thrown.code}: ${thrown.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (command.command === 'help') {
    io.out(`${USAGE}\n`);
    return 0;
  }
  return run(command, io, env);
}

async function run(
  command: RunCommand,
  io: CliIo,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  let model: Model;
  try {
    const chosen = await chooseCliModel(command.model, env);
    model = chosen.model;
    if (chosen.notice !== undefined) io.err(`${chosen.notice}\n`);
  } catch (thrown) {
    io.err(`reins: INVALID_PARAMETER: ${(thrown as Error).message}\n`);
    return 2;
  }
  const controller = new AbortController();
  let agentRun;
  try {
    agentRun = runAgent({
      query: command.query,
      model,
      tools: exampleTools(),
      signal: controller.signal,
      agent: 'cli',
      limits: {
        maxSteps: command.maxSteps,
        ...(command.deadlineMs === undefined ? {} : { deadlineMs: command.deadlineMs }),
      },
    });
  } catch (thrown) {
    // Limits that do not fit (e.g. a deadline shorter than the tools' timeouts allow).
    if (!(thrown instanceof RangeError)) throw thrown;
    io.err(`reins: INVALID_PARAMETER: ${thrown.message}\n`);
    return 2;
  }
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  if (!command.json) {
    for await (const event of agentRun) {
      const line = formatEvent(event);
      if (line !== undefined) io.out(`${line}\n`);
    }
  }
  const record = await agentRun.result;
  process.off('SIGINT', onSigint);
  if (command.json) io.out(`${JSON.stringify(record, null, 2)}\n`);
  return EXIT[record.status];
}
