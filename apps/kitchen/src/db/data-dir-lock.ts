import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';

/**
 * One process per PGlite data directory. PGlite (0.5) takes no lock of its own: a second process
 * opening the same directory (`npm run ask` beside `npm start`) would open it as well, and two
 * PostgreSQL engines writing one directory corrupt it. So the directory carries a lock file
 * naming its holder (pid, the process's start time, the command), and a second opener is
 * refused while that holder lives. A holder that died without closing (kill -9, a crash) leaves
 * a stale file: its pid is gone (or is another process now), so the next opener takes it over.
 */
export const LOCK_FILE = 'reins.lock';

export interface LockHolder {
  readonly pid: number;
  /** When that process started (Linux: /proc/<pid>/stat field 22), so a reused pid is told apart. */
  readonly start: string | null;
  readonly command: string;
  /** When it took the lock (ISO 8601). */
  readonly since: string;
}

/** The directory is held by another live process (or already by this one). */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `the data directory ${dir} is in use by process ${holder.pid} (${holder.command}, since ${holder.since}): ` +
        'stop that process first, or set REINS_DATA_DIR to another directory',
    );
  }
}

export interface DataDirLock {
  readonly file: string;
  /** Removes the lock file if it is still this holder's. */
  release(): Promise<void>;
}

export interface DataDirLockOptions {
  readonly pid?: number;
  readonly command?: string;
  readonly now?: () => number;
  /** Default `process.kill(pid, 0)`: ESRCH → dead; success or EPERM → alive. */
  readonly isAlive?: (pid: number) => boolean;
  /** Default: /proc/<pid>/stat's start time; `undefined` where there is no /proc. */
  readonly startOf?: (pid: number) => string | undefined;
}

/** Lock files this process holds: a second open of one of them in this process is refused too. */
const heldHere = new Set<string>();

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
  return procStat(pid)?.[0] !== 'Z'; // a zombie (killed, not yet reaped) holds nothing
}

export function processStart(pid: number): string | undefined {
  return procStat(pid)?.[19];
}

/** Linux: the fields of /proc/<pid>/stat from `state` on (field 3); undefined without /proc. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so count after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/** Takes the lock of `dir` (created if missing), or throws `DataDirLockedError` naming the holder. */
export async function lockDataDir(dir: string, options: DataDirLockOptions = {}): Promise<DataDirLock> {
  const pid = options.pid ?? process.pid;
  const isAlive = options.isAlive ?? processAlive;
  const startOf = options.startOf ?? processStart;
  const file = join(resolve(dir), LOCK_FILE);
  const mine: LockHolder = {
    pid,
    start: startOf(pid) ?? null,
    command: options.command ?? defaultCommand(),
    since: new Date((options.now ?? Date.now)()).toISOString(),
  };
  const text = `${JSON.stringify(mine)}\n`;
  await mkdir(dir, { recursive: true });

  const stale = (holder: LockHolder | undefined): boolean => {
    if (holder === undefined) return true; // unreadable: no live process wrote it this way
    if (holder.pid === pid) return !heldHere.has(file); // not this process: an earlier one with its pid
    if (!isAlive(holder.pid)) return true;
    const now = startOf(holder.pid);
    return holder.start !== null && now !== undefined && now !== holder.start; // the pid was reused
  };

  // The content is written aside and linked into place: the lock appears whole or not at all.
  const aside = `${file}.${pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(aside, text, { mode: 0o644 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await link(aside, file);
        return held(file, text);
      } catch (error) {
        if (code(error) !== 'EEXIST') throw error;
      }
      const found = await readFile(file, 'utf8').catch((error: unknown) => {
        if (code(error) === 'ENOENT') return undefined; // released meanwhile: try again
        throw error;
      });
      if (found === undefined) continue;
      const holder = parseHolder(found);
      if (!stale(holder)) throw new DataDirLockedError(resolve(dir), holder as LockHolder);
      await takeOver(file, found);
    }
    throw new Error(
      `could not take the lock ${file}: it keeps changing (several processes starting at once?)`,
    );
  } finally {
    await unlink(aside).catch(() => undefined);
  }
}

/**
 * Removes a stale lock, but only the one that was judged: it is moved aside first (atomic) and
 * checked; a fresh lock another opener took meanwhile is put back.
 */
async function takeOver(file: string, judged: string): Promise<void> {
  const moved = `${file}.stale.${randomBytes(4).toString('hex')}`;
  try {
    await rename(file, moved);
  } catch (error) {
    if (code(error) === 'ENOENT') return;
    throw error;
  }
  const text = await readFile(moved, 'utf8').catch(() => undefined);
  if (text !== judged) await link(moved, file).catch(() => undefined); // not the stale one: back
  await unlink(moved).catch(() => undefined);
}

function held(file: string, text: string): DataDirLock {
  heldHere.add(file);
  // A process that exits without closing (an uncaught error, process.exit) still frees it.
  const onExit = (): void => {
    try {
      if (readFileSync(file, 'utf8') === text) unlinkSync(file);
    } catch {
      // already gone
    }
  };
  process.once('exit', onExit);
  let released = false;
  return {
    file,
    release: async () => {
      if (released) return;
      released = true;
      process.removeListener('exit', onExit);
      heldHere.delete(file);
      const now = await readFile(file, 'utf8').catch(() => undefined);
      if (now === text) await unlink(file).catch(() => undefined);
    },
  };
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid !== 'number' || !Number.isInteger(value.pid) || value.pid <= 0) return undefined;
    return {
      pid: value.pid,
      start: typeof value.start === 'string' ? value.start : null,
      command: typeof value.command === 'string' ? value.command : 'unknown command',
      since: typeof value.since === 'string' ? value.since : 'an unknown time',
    };
  } catch {
    return undefined;
  }
}

function defaultCommand(): string {
  const [script, command] = process.argv.slice(1);
  return [script === undefined ? 'node' : basename(script), command].filter((x) => x !== undefined).join(' ');
}
