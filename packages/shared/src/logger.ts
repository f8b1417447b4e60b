import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import { redactPans } from './vault/card/redact-pan.js';
import { activeSpanIds } from './tracing/spans.js';

/**
 * The fields of a PostgreSQL error (node-postgres's DatabaseError) that can quote row data: the
 * key and value of a unique violation (detail), a JSON document around a bad character (where), a
 * PL/pgSQL statement with its literals (where, internalQuery), what a RAISE put in them (detail,
 * hint), and a statement's parameters. The code, message, table and constraint stay: they name
 * the fault without the data.
 */
const PG_ROW_DATA_FIELDS = ['detail', 'where', 'hint', 'internalQuery', 'parameters'];

/**
 * Redaction is a second line of defence: card fields are never logged on purpose, and these paths
 * make sure that an accidental `log.info({ body })` still prints nothing secret. They apply to
 * what the serializers made, whichever child logger logs (pino-http's error serializer included):
 * a logged error (`err`), the attempts of an AggregateError and a plain object's cause.
 */
export const REDACT_PATHS = [
  ...PG_ROW_DATA_FIELDS.flatMap((field) => [field, `*.${field}`, `*.aggregateErrors[*].${field}`, `*.cause.${field}`]),
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'res.headers["set-cookie"]',
  'authorization',
  'card_number',
  'cvv',
  'pan',
  'cardholder_name',
  'billing_details',
  'sealedCard',
  '*.card_number',
  '*.cvv',
  '*.pan',
  '*.cardholder_name',
  '*.billing_details',
  '*.sealedCard',
  'body',
  '*.body',
  'data',
  'job.data',
];

/**
 * Human-readable lines (pino-pretty) for a person at a terminal: stdout is a TTY and this is not
 * production. JSON otherwise: log collectors, and the tests, which parse the lines of the
 * processes they start (never a TTY; NODE_ENV=test besides).
 */
export function wantsPrettyLogs(env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean } = process.stdout): boolean {
  return stdout.isTTY === true && env.NODE_ENV !== 'production' && env.NODE_ENV !== 'test' && env.VITEST === undefined;
}

/**
 * A serialized error without the fields pino's serializer fills for an object that is not an Error
 * (`err: { message }`, as most lines here log a reason): no `"stack":""`, no `"type":"Object"`. An
 * Error keeps its type and stack. Applied to what pino's serializer made, so pino-http's wrapper
 * (which serializes first) can use it as is.
 */
export function withoutBlankErrorFields(serialized: unknown): unknown {
  if (serialized === null || typeof serialized !== 'object' || Array.isArray(serialized)) return serialized;
  const { type, stack, ...rest } = { ...(serialized as Record<string, unknown>) };
  return { ...(type && type !== 'Object' ? { type } : {}), ...rest, ...(stack ? { stack } : {}) };
}

/** The `err` serializer: an Error as pino serializes it; a plain object as it was written. */
function serializeErr(value: unknown): unknown {
  return value instanceof Error ? withoutBlankErrorFields(pino.stdSerializers.err(value)) : value;
}

type TPrettyFactory = (options: Record<string, unknown>) => DestinationStream;

/**
 * pino-pretty is a development dependency: a production install (npm ci --omit=dev) has none, so
 * it is loaded only when wanted, and where it is missing the lines stay JSON.
 */
function prettyDestination(destination?: DestinationStream): DestinationStream | undefined {
  try {
    const pretty = createRequire(import.meta.url)('pino-pretty') as TPrettyFactory;
    // Colours only on a terminal: a pipe or a file gets plain text.
    return pretty({ colorize: destination === undefined && process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', ...(destination ? { destination } : {}) });
  } catch {
    return undefined;
  }
}

export interface TLoggerOptions {
  level?: string;
  name?: string;
  /** Where the lines go; stdout by default. */
  destination?: DestinationStream;
  /** Human-readable lines instead of JSON; by default when wantsPrettyLogs() says so. */
  pretty?: boolean;
}

export function createLogger(options: TLoggerOptions = {}): Logger {
  const pretty = options.pretty ?? (options.destination === undefined && wantsPrettyLogs());
  // stdout written asynchronously: a busy API logs a line per request, and a synchronous write
  // is a system call each; this one coalesces the lines that arrive while a write is in flight
  // (and flushes on exit). minLength 1 writes a line as soon as it comes, as 0 would, but makes
  // flush(cb) wait for the writes in flight (with 0 it calls back at once, and the exit's
  // synchronous flush can then land a later line before an earlier one still being written).
  const json = () => options.destination ?? pino.destination({ dest: 1, sync: false, minLength: 1 });
  return pino(
    {
      level: options.level ?? 'info',
      name: options.name,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: serializeErr },
      // Redaction knows field names; a PAN in a value no path names (a URL path, a request id)
      // is masked to first six / last four in the finished line, before any pretty printing.
      hooks: { streamWrite: redactPans },
      base: { pid: process.pid },
      // With tracing on, a line logged in a recorded span names it (trace_id, span_id): it leads to its trace.
      mixin: () => activeSpanIds() ?? {},
    },
    (pretty ? prettyDestination(options.destination) : undefined) ?? json(),
  );
}

export type { Logger };
