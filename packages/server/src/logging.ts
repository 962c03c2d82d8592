import { pino, type DestinationStream, type Logger } from 'pino';
import { maskPii, maskPiiText, type RunEvent } from 'reins';
import { isPause } from './run-feed.js';
import { secretRedactor } from './redact-secrets.js';

export type { Logger } from 'pino';

/**
 * Paths blanked in every line of `defaultLogger` (pino's `redact` path syntax), whatever a
 * caller logs by mistake. Not covered: values interpolated into the message (`%j`, `%o`) and a
 * child logger given `formatters` of its own.
 */
export const REDACT_PATHS: readonly string[] = [
  'authorization',
  'cookie',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.apiKey',
  '*.password',
  '*.token',
  '*.secret',
];

/** `REDACT_PATHS` blanked in a line's object (and a child logger's bindings); see `secretRedactor`. */
const redactSecrets = secretRedactor(REDACT_PATHS, '[REDACTED]');

const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'x-api-key', 'proxy-authorization']);

/**
 * The longest write to stdout. Lines made while a write is in flight are appended to a pending
 * string whose UTF-8 length is read again for every line (flattening it: a copy): with the
 * default 16 KiB a line cost ~6 KB of copies under load (7% of what the kitchen server
 * allocated); 2 KiB keeps that small, at ~300 writes/s for 2,000 lines/s.
 */
const STDOUT_MAX_WRITE = 2048;

/**
 * The default logger: JSON lines on stdout (or `destination`), secrets redacted (`REDACT_PATHS`,
 * by a formatter: pino's `redact` cost a clone per line). Written asynchronously: a line
 * goes out at once when stdout is idle, and lines made while a write is in flight go together
 * in the next (one write per burst instead of one blocking write per line: at 100 runs/s that
 * is ~1,400 lines/s). Pino flushes what is left when the process exits; a `kill -9` can lose
 * the lines of the last write in flight.
 */
export function defaultLogger(
  destination: DestinationStream = pino.destination({ dest: 1, sync: false, maxWrite: STDOUT_MAX_WRITE }),
): Logger {
  const logger = pino(
    { name: 'reins-server', formatters: { log: redactSecrets, bindings: redactSecrets } },
    destination,
  );
  // pino writes a child's bindings without the bindings formatter: they are blanked on the way
  // in. Children are made from their parent's object, so theirs' children go through here too.
  const pinoChild = logger.child;
  logger.child = function (this: Logger, bindings: Record<string, unknown>, options?: object) {
    return pinoChild.call(this, redactSecrets(bindings), options);
  } as Logger['child'];
  const pinoSetBindings = logger.setBindings;
  logger.setBindings = function (this: Logger, bindings: Record<string, unknown>) {
    pinoSetBindings.call(this, redactSecrets(bindings));
  } as Logger['setBindings'];
  return logger;
}

/** Request headers safe to log: secret ones replaced, the rest as sent. */
export function safeHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? '[REDACTED]' : value;
  });
  return out;
}

/**
 * One log line per run event that matters, each carrying the run id (and the act id for act
 * and observe), with PII masked: the query, tool inputs, answers and error messages can carry
 * phone numbers or e-mails that the record keeps as evidence but logs must not spread.
 */
export function logRunEvent(log: Logger, event: RunEvent): void {
  // Every line but `error` is `info`: below that level nothing is built (no masking, no objects).
  if (event.type !== 'error' && !log.isLevelEnabled('info')) return;
  const runId = event.runId;
  switch (event.type) {
    case 'start':
      // `agent` is on every line of the run: the watcher's logger binds it.
      log.info({ runId, model: event.model, query: maskPiiText(event.query) }, 'run started');
      return;
    case 'step':
      switch (event.phase) {
        case 'reason':
          log.info(
            {
              runId,
              step: event.index,
              model: event.model,
              durationMs: event.durationMs,
              parse: event.parse.ok ? event.parse.via : 'failed',
              decision: event.decision?.kind ?? 'raw',
              tokens: event.usage,
            },
            'reason',
          );
          return;
        case 'act':
          log.info(
            { runId, actId: event.actId, step: event.index, tool: event.tool, input: maskPii(event.input) },
            'act',
          );
          return;
        case 'observe': {
          const { status, error, durationMs, approval } = event.observation;
          log.info(
            {
              runId,
              actId: event.actId,
              step: event.index,
              status,
              durationMs,
              ...(approval === undefined ? {} : { approval: approval.kind }),
              ...(error === undefined ? {} : { code: error.code, error: maskPiiText(error.message) }),
            },
            'observe',
          );
          return;
        }
        case 'plan':
          log.info(
            {
              runId,
              step: event.index,
              version: event.version,
              reason: event.reason,
              steps: event.plan.steps.length,
              valid: event.validation.ok,
              problems: event.validation.problems.map((p) => p.code),
            },
            'plan',
          );
          return;
        default:
          return; // progress: too many to log, and live-only
      }
    case 'message':
      log.info({ runId, intent: event.intent, format: event.format, chars: event.text.length }, 'message');
      return;
    case 'error':
      log.warn({ runId, code: event.code, error: maskPiiText(event.message) }, 'run error');
      return;
    case 'approval':
      log.info(
        {
          runId,
          actId: event.actId,
          step: event.index,
          tool: event.tool,
          input: maskPii(event.input),
          inputHash: event.inputHash,
          expiresAt: new Date(event.expiresAt).toISOString(),
        },
        'approval requested',
      );
      return;
    case 'clarify':
      log.info(
        {
          runId,
          questionId: event.questionId,
          stepId: event.stepId,
          field: event.field,
          candidates: event.candidates.length,
          expiresAt: new Date(event.expiresAt).toISOString(),
        },
        'question asked',
      );
      return;
    case 'done':
      log.info(
        {
          runId,
          status: event.status,
          stopReason: event.stopReason,
          steps: event.steps,
          durationMs: event.durationMs,
        },
        isPause(event.status) ? 'run paused' : 'run done',
      );
      return;
  }
}
