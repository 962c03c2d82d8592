import { demoModel } from '../models/demo-model.js';
import type { RunStatus } from '../events.js';
import type { Model } from '../model.js';
import { loadScriptModel } from '../node/load-script.js';
import { runAgent } from '../loop/run-agent.js';
import { USAGE, UsageError, parseCli, type RunCommand } from './args.js';
import { exampleTools } from './example-tools.js';
import { formatEvent } from './print-event.js';

const EXIT: Readonly<Record<RunStatus, number>> = { success: 0, error: 1, stopped: 3, cancelled: 130 };

/** Where the CLI writes; injectable so tests capture output without patching `process`. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

const processIo: CliIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
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
  return run(command, io);
}

async function run(command: RunCommand, io: CliIo): Promise<number> {
  let model: Model;
  try {
    model = await chooseModel(command.model);
  } catch (thrown) {
    io.err(`reins: INVALID_PARAMETER: ${(thrown as Error).message}\n`);
    return 2;
  }
  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  const agentRun = runAgent({
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

async function chooseModel(spec: string): Promise<Model> {
  if (spec === 'demo') return demoModel();
  if (spec.startsWith('script:') && spec.length > 'script:'.length)
    return loadScriptModel(spec.slice('script:'.length));
  throw new Error(
    `--model must be demo or script:FILE, got ${JSON.stringify(spec)} (real models come with REINS_MODEL)`,
  );
}
