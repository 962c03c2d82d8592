export interface CliIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly env: NodeJS.ProcessEnv;
}

export const processIo: CliIo = {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  env: process.env,
};

/** `--name value` options and positional arguments. */
export function parseArgs(args: readonly string[]): { positional: string[]; options: Map<string, string> } {
  const positional: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
      const value = inline ?? args[i + 1];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      if (inline === undefined) i++;
      options.set(name, value);
    } else positional.push(arg);
  }
  return { positional, options };
}

export class UsageError extends Error {
  override name = 'UsageError';
}
