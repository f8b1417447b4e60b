import { ERROR_STATUS, MAX_LISTED_FIELD_ERRORS, type TErrorCode } from '../errors.js';
import { holdsPan } from '../vault/card/redact-pan.js';
import { z } from './zod.js';

export const INT64_MAX = 9223372036854775807n;

/** Printable text in any script: no control, unassigned or private-use characters (ZWNJ/ZWJ allowed). */
export const PRINTABLE = /^(?:[^\p{C}]|[\u200C\u200D])*$/u;

export function codePointLength(value: string): number {
  let n = 0;
  for (const _ of value) n += 1;
  return n;
}

/** A positive int64 as its canonical decimal string ("007" → "7"); out of range is an issue. */
function toInt64(value: number | string, ctx: z.RefinementCtx): string {
  const big = BigInt(value);
  if (big < 1n || big > INT64_MAX) {
    ctx.addIssue({ code: 'custom', message: 'must be between 1 and 9223372036854775807' });
    return z.NEVER;
  }
  return big.toString();
}

/**
 * int64 id (docs/api.md#conventions): a JSON integer up to 2^53−1 or a digit string in the full int64 range,
 * always handed on as a canonical decimal string so no precision is lost.
 */
export const ZInt64Id = z
  .union([
    z
      .number()
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(Number.MAX_SAFE_INTEGER, 'must be at most 2^53-1 as a JSON number; send larger ids as strings')
      .openapi({ format: 'int64' }),
    z.string().regex(/^\d{1,19}$/, 'must be a positive integer or a string of digits').openapi({ example: '1' }),
  ])
  .transform(toInt64)
  .openapi({ description: 'int64 id, 1 to 9223372036854775807: a JSON integer up to 2^53-1, or a digit string in the full range' });

export type TInt64Id = z.output<typeof ZInt64Id>;

/** The same id as it arrives in a header or path: always a string. */
export const ZInt64IdString = z
  .string()
  .regex(/^\d{1,19}$/, 'must be a positive integer')
  .transform(toInt64)
  .openapi({ type: 'string', pattern: '^\\d{1,19}$', description: 'int64 id, 1 to 9223372036854775807, in decimal digits', example: '1' });

/** An int64 id as the service answers it: its canonical decimal string. */
export const ZInt64IdOut = z
  .string()
  .regex(/^[1-9]\d{0,18}$/)
  .openapi({ description: 'int64 id as a decimal string (no precision lost in JSON)', example: '1' });

export const ZPropertyHeaders = z.object({
  'x-property-id': ZInt64IdString,
});

const ERROR_CODES = Object.keys(ERROR_STATUS) as [TErrorCode, ...TErrorCode[]];

export const ZErrorBody = z
  .object({
    id: z.string().openapi({ description: 'The request id (X-Request-Id)' }),
    timestamp: z.iso.datetime(),
    errorCode: z.enum(ERROR_CODES).openapi({ description: 'Its HTTP status is fixed: packages/shared/src/errors.ts' }),
    errorDetails: z.string().openapi({ description: 'One sentence for a person; never echoes card data' }),
    fieldErrors: z
      .array(z.object({ path: z.string().openapi({ example: 'expiration.month' }), message: z.string() }))
      .min(1)
      .max(MAX_LISTED_FIELD_ERRORS)
      .optional()
      .openapi({ description: 'Only on INVALID_REQUEST: each header, path parameter or body field at fault; the first 100, errorDetails counts them all' }),
  })
  .openapi('Error');

/** GET /healthz and GET /readyz (apps/api/src/ops/routes.ts). */
export const ZHealth = z.object({ status: z.literal('ok') }).openapi('Health');
const ZReadinessChecks = z
  .object({
    redis: z.enum(['ok', 'unavailable']),
    postgres: z.enum(['ok', 'unavailable']),
    storage: z.enum(['ok', 'unavailable']),
    keys: z.enum(['ok', 'unavailable']).openapi({ description: "The workers' vault keys (an HSM), as the workers report them" }),
  })
  .openapi('ReadinessChecks');
export const ZReadiness = z.object({ status: z.literal('ready'), checks: ZReadinessChecks }).openapi('Readiness');
// Spelled out, not an extension of Error: the document then has no allOf for a client to merge.
export const ZReadinessFailure = z.object({ ...ZErrorBody.shape, checks: ZReadinessChecks }).openapi('ReadinessFailure');

/**
 * The listing's and the export's free-text search: trimmed, empty means none. A card number is
 * refused: it would be stored with the export request, queued in Redis and printed in the PDF's
 * filter line, and a hotel ledger holds no card numbers to find (docs/security.md).
 */
export function searchQuerySchema() {
  return z
    .string()
    .max(200)
    .refine((value) => !holdsPan(value), 'must not contain a card number')
    .nullish()
    .transform((v) => (v?.trim() ? v.trim() : undefined));
}
