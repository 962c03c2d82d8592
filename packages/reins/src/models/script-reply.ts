/**
 * A scripted reply's shape, checked by hand (it was a zod union; `import('reins')` no longer
 * loads zod, and `scriptModel()` stays synchronous). Same rules: a string; or a strict object
 * with `text` and/or `toolCalls` (`delayMs`, `usage` optional); or `{error, delayMs?, message?}`.
 * Messages are in zod's words, naming the field.
 */
import type { ScriptReply, ScriptToolCall } from './script-model.js';
import type { Usage } from '../model.js';
import {
  ShapeIssues,
  copyRecord,
  countIssue,
  invalidType,
  isObjectLike,
  isPlainObject,
  numberIssue,
  tooSmall,
} from '../util/shape-issues.js';

type Path = readonly (string | number)[];

const REPLY_KEYS: ReadonlySet<string> = new Set(['text', 'toolCalls', 'delayMs', 'usage']);
const ERROR_KEYS: ReadonlySet<string> = new Set(['error', 'delayMs', 'message']);
const USAGE_KEYS: ReadonlySet<string> = new Set(['inputTokens', 'outputTokens']);
const CALL_KEYS: ReadonlySet<string> = new Set(['id', 'name', 'arguments']);

/** The reply (objects copied), or the first thing wrong with it (`path: message`). */
export function checkScriptReply(
  value: unknown,
): { readonly ok: true; readonly value: ScriptReply } | { readonly ok: false; readonly message: string } {
  if (typeof value === 'string') return { ok: true, value };
  const issues = new ShapeIssues();
  if (!isObjectLike(value)) issues.add([], invalidType('string or object', value));
  const reply = isObjectLike(value) ? checkObject(value, issues) : undefined;
  const first = issues.list[0];
  if (first !== undefined || reply === undefined) {
    const message = first?.message ?? 'Invalid input';
    return { ok: false, message: first?.path.length ? `${first.path.join('.')}: ${message}` : message };
  }
  return { ok: true, value: reply };
}

function checkObject(value: Readonly<Record<string, unknown>>, issues: ShapeIssues): ScriptReply | undefined {
  const { delayMs, usage, message } = value;
  if (delayMs !== undefined) check(countIssue(delayMs), ['delayMs'], issues);
  if (value.error !== undefined) {
    const { error } = value;
    check(
      typeof error !== 'string'
        ? invalidType('string', error)
        : error.length < 1
          ? tooSmall('string', 1)
          : undefined,
      ['error'],
      issues,
    );
    if (message !== undefined) check(stringIssue(message), ['message'], issues);
    issues.refuseUnknownKeys(value, ERROR_KEYS, []);
    return {
      error: error as string,
      ...defined({ delayMs: delayMs as number | undefined, message: message as string | undefined }),
    };
  }
  const { text } = value;
  if (text === undefined && value.toolCalls === undefined) {
    issues.add([], 'Invalid input: expected "text", "toolCalls" or "error"');
    return undefined;
  }
  if (text !== undefined) check(stringIssue(text), ['text'], issues);
  const checkedUsage = usage === undefined ? undefined : checkUsage(usage, ['usage'], issues);
  const toolCalls = value.toolCalls === undefined ? undefined : checkToolCalls(value.toolCalls, issues);
  issues.refuseUnknownKeys(value, REPLY_KEYS, []);
  const rest = defined({ delayMs: delayMs as number | undefined, usage: checkedUsage });
  if (toolCalls === undefined) return { text: text as string, ...rest };
  return { ...defined({ text: text as string | undefined }), ...rest, toolCalls };
}

function checkUsage(value: unknown, path: Path, issues: ShapeIssues): Usage {
  if (!isObjectLike(value)) {
    issues.add(path, invalidType('object', value));
    return { inputTokens: 0, outputTokens: 0 };
  }
  const { inputTokens, outputTokens } = value;
  check(numberIssue(inputTokens), [...path, 'inputTokens'], issues);
  check(numberIssue(outputTokens), [...path, 'outputTokens'], issues);
  issues.refuseUnknownKeys(value, USAGE_KEYS, path);
  return { inputTokens: inputTokens as number, outputTokens: outputTokens as number };
}

function checkToolCalls(value: unknown, issues: ShapeIssues): ScriptToolCall[] {
  if (!Array.isArray(value)) {
    issues.add(['toolCalls'], invalidType('array', value));
    return [];
  }
  return value.map((call, i) => checkToolCall(call, ['toolCalls', i], issues));
}

function checkToolCall(value: unknown, path: Path, issues: ShapeIssues): ScriptToolCall {
  if (!isObjectLike(value)) {
    issues.add(path, invalidType('object', value));
    return { name: '', arguments: '' };
  }
  const { id, name, arguments: args } = value;
  if (id !== undefined) check(stringIssue(id), [...path, 'id'], issues);
  check(stringIssue(name), [...path, 'name'], issues);
  const isRecord = isPlainObject(args);
  if (!isRecord && typeof args !== 'string')
    issues.add([...path, 'arguments'], invalidType('string or record', args));
  issues.refuseUnknownKeys(value, CALL_KEYS, path);
  return {
    ...defined({ id: id as string | undefined }),
    name: name as string,
    arguments: isRecord ? copyRecord(args) : (args as string),
  };
}

function stringIssue(value: unknown): string | undefined {
  return typeof value === 'string' ? undefined : invalidType('string', value);
}

function check(issue: string | undefined, path: Path, issues: ShapeIssues): void {
  if (issue !== undefined) issues.add(path, issue);
}

/** The entries whose value is not `undefined` (an absent optional field stays absent). */
function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(fields) as (keyof T)[]) if (fields[key] !== undefined) out[key] = fields[key];
  return out;
}
