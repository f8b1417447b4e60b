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
    z.number().int('must be an integer').min(1, 'must be at least 1').max(Number.MAX_SAFE_INTEGER, 'must be at most 2^53-1 as a JSON number; send larger ids as strings'),
    z.string().regex(/^\d{1,19}$/, 'must be a positive integer or a string of digits'),
  ])
  .transform(toInt64)
  .openapi({ type: 'string', description: 'int64 id as a digit string (or a JSON integer up to 2^53-1)', example: '1' });

export type TInt64Id = z.output<typeof ZInt64Id>;

/** The same id as it arrives in a header or path: always a string. */
export const ZInt64IdString = z
  .string()
  .regex(/^\d{1,19}$/, 'must be a positive integer')
  .transform(toInt64)
  .openapi({ type: 'string', example: '1' });

export const ZPropertyHeaders = z.object({
  'x-property-id': ZInt64IdString,
});

export const ZErrorBody = z
  .object({
    id: z.string(),
    timestamp: z.string(),
    errorCode: z.string(),
    errorDetails: z.string(),
    fieldErrors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi('Error');

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
