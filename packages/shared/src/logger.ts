import { pino, type DestinationStream, type Logger } from 'pino';
import { redactPans } from './vault/card/redact-pan.js';

/**
 * Redaction is a second line of defence: card fields are never logged on purpose, and these paths
 * make sure that an accidental `log.info({ body })` still prints nothing secret.
 */
export const REDACT_PATHS = [
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

export function createLogger(options: { level?: string; name?: string; destination?: DestinationStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      name: options.name,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // Redaction knows field names; a PAN in a value no path names (a URL path, a request id)
      // is masked to first six / last four in the finished line.
      hooks: { streamWrite: redactPans },
      base: { pid: process.pid },
    },
    // stdout written asynchronously: a busy API logs a line per request, and a synchronous write
    // is a system call each; this one coalesces the lines that arrive while a write is in flight
    // (and flushes on exit).
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

export type { Logger };
