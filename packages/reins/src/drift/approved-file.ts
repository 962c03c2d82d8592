import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { ToolDefinitionSnapshot } from './definition.js';

/** The approved file's format version. */
export const APPROVED_FORMAT = 1;

/**
 * The approved definitions in `path` (`tools.approved.json`), or `undefined` when there is no
 * such file. Throws an `Error` naming the file when it is not an approved set.
 */
export async function readApprovedTools(path: string): Promise<ToolDefinitionSnapshot[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (thrown) {
    if ((thrown as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw thrown;
  }
  return parseApprovedTools(text, path);
}

export function parseApprovedTools(text: string, where: string): ToolDefinitionSnapshot[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (thrown) {
    throw new Error(`${where}: not JSON (${(thrown as Error).message})`, { cause: thrown });
  }
  const file = parsed as { format?: unknown; tools?: unknown };
  if (typeof parsed !== 'object' || parsed === null || file.format !== APPROVED_FORMAT) {
    throw new Error(`${where}: not an approved tool set (format ${APPROVED_FORMAT} expected)`);
  }
  if (!Array.isArray(file.tools)) throw new Error(`${where}: "tools" must be an array`);
  for (const [i, entry] of file.tools.entries()) {
    const t = entry as Partial<Record<keyof ToolDefinitionSnapshot, unknown>>;
    const ok =
      typeof entry === 'object' &&
      entry !== null &&
      typeof t.name === 'string' &&
      typeof t.source === 'string' &&
      typeof t.description === 'string' &&
      typeof t.fingerprint === 'string' &&
      typeof t.readOnly === 'boolean';
    if (!ok) throw new Error(`${where}: tools[${i}] is not a tool definition`);
  }
  return file.tools as ToolDefinitionSnapshot[];
}

/** The file's text: definitions sorted by name, two-space JSON, a final newline (stable diffs). */
export function approvedToolsJson(tools: readonly ToolDefinitionSnapshot[]): string {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return `${JSON.stringify({ format: APPROVED_FORMAT, tools: sorted }, null, 2)}\n`;
}

/**
 * The new approved set: the definitions in use, an unchanged one kept as it was approved (its
 * `lastUpdated` too), and the approved tools of an unchecked source kept as they were.
 */
export function approveDefinitions(
  previous: readonly ToolDefinitionSnapshot[],
  current: readonly ToolDefinitionSnapshot[],
  uncheckedSources: readonly string[] = [],
): ToolDefinitionSnapshot[] {
  const before = new Map(previous.map((d) => [d.name, d]));
  const approved = current.map((d) => {
    const was = before.get(d.name);
    return was !== undefined && was.fingerprint === d.fingerprint ? was : d;
  });
  const names = new Set(approved.map((d) => d.name));
  for (const d of previous) {
    if (uncheckedSources.includes(d.source) && !names.has(d.name)) approved.push(d);
  }
  return approved;
}

/** Writes the approved set (atomically: a temporary file renamed). Returns whether the file changed. */
export async function writeApprovedTools(
  path: string,
  tools: readonly ToolDefinitionSnapshot[],
): Promise<boolean> {
  const text = approvedToolsJson(tools);
  const old = await readFile(path, 'utf8').catch(() => undefined);
  if (old === text) return false;
  // A name of its own per write: two writes at once each rename a whole file (the last one wins).
  const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, text, 'utf8');
    await rename(temporary, path);
  } catch (thrown) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw thrown;
  }
  return true;
}
