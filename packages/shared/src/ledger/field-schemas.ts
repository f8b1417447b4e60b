// The field types every ledger record is built of (docs/ledger.md#import). Optional fields accept
// null as "absent": clients of the reference API send nulls. Money is a decimal string or JSON
// number with at most 6 decimals, kept as a string from here on (never a binary float).

import { codePointLength, ZInt64Id } from '../schemas/common.js';
import { z } from '../schemas/zod.js';

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return value.includes('/') || value === 'UTC';
  } catch {
    return false;
  }
}

/**
 * Ledger text (docs/ledger.md#text-fields). A one-line field (a name, a description, a code, an
 * identifier) holds no control character at all: it is a cell of a folio row. Free text (notes, an
 * address, an account's description) may hold tab, LF and CR, and no other control character.
 * Neither holds half a surrogate pair: PostgreSQL cannot store one (nor NUL), so without these
 * checks such text would fail at the database instead of at its field.
 */
type TTextKind = 'line' | 'free';
const CONTROL: Record<TTextKind, { pattern: RegExp; message: string }> = {
  line: { pattern: /\p{Cc}/u, message: 'must not contain control characters' },
  free: { pattern: /[^\P{Cc}\t\n\r]/u, message: 'must not contain control characters other than tab and line breaks' },
};
const textOf = (max: number, kind: TTextKind) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !CONTROL[kind].pattern.test(v), CONTROL[kind].message)
    .refine((v) => !/\p{Cs}/u.test(v), 'must be well-formed text (no unpaired surrogate)');
/** Required one-line text. */
export const text = (max: number) => textOf(max, 'line').min(1, 'must not be empty');
/** Optional one-line text; empty is absent. */
export const optionalText = (max: number) => textOf(max, 'line').nullish().transform((v) => v || undefined);
/** Optional free text (tab and line breaks kept); empty is absent. */
export const optionalFreeText = (max: number) => textOf(max, 'free').nullish().transform((v) => v || undefined);
export const optionalId = ZInt64Id.nullish().transform((v) => v ?? undefined);

const STRING_ID_MAX = 255;
const NOT_A_STRING_ID = 'must be a string';
/**
 * An identifier the reference accounting API types as a plain string, not an int64 (a payment's
 * paymentId, an account's id, customerId, externalRelationId; docs/ledger.md#identifiers): 1-255
 * characters, none a control character (no tab or line break either) nor half a surrogate pair,
 * kept exactly as given (not trimmed, leading zeros kept). A JSON integer is taken as its decimal
 * digits: a client that writes numeric ids as numbers is understood.
 */
export const ZStringId = z
  .union(
    [
      z
        .string()
        .min(1, 'must not be empty')
        .refine((v) => codePointLength(v) <= STRING_ID_MAX, `must be at most ${STRING_ID_MAX} characters`)
        .refine((v) => !/\p{Cc}/u.test(v), 'must not contain control characters')
        .refine((v) => !/\p{Cs}/u.test(v), 'must be well-formed text (no unpaired surrogate)')
        .openapi({ minLength: 1, maxLength: STRING_ID_MAX }),
      z.int(NOT_A_STRING_ID),
    ],
    { error: (issue) => (issue.input === undefined ? 'is required' : NOT_A_STRING_ID) },
  )
  .transform((v) => String(v))
  .openapi({ description: 'An id of the client\'s own, 1-255 characters without control characters, answered exactly as given (a JSON integer is taken as its digits)' });
export const optionalStringId = ZStringId.nullish().transform((v) => v ?? undefined);

/** An e-mail address (a property's, a recipient's); absent when null. */
export const optionalEmail = z.email('must be an e-mail address').max(254).nullish().transform((v) => v ?? undefined);

/**
 * A telephone number as printed on a folio: digits with an optional leading "+", and the spaces,
 * brackets, dots, slashes and hyphens people group them with ("+351 21 000 0000"); 3 to 20 digits.
 */
const phoneDigits = (text: string) => text.replace(/\D/g, '').length;
export const optionalPhone = z
  .string()
  .trim()
  .max(40, 'must be at most 40 characters')
  .refine((v) => v === '' || (/^\+?[0-9 ()./-]+$/.test(v) && phoneDigits(v) >= 3 && phoneDigits(v) <= 20), 'must be a telephone number such as "+351 21 000 0000"')
  .nullish()
  .transform((v) => v || undefined)
  .openapi({ example: '+351 21 000 0000' });

/** A web address printed on a folio: http or https, at most 200 characters. */
export const optionalWebsite = z
  .url({ protocol: /^https?$/, hostname: z.regexes.domain, error: 'must be a web address such as "https://hotel.example"' })
  .max(200, 'must be at most 200 characters')
  .nullish()
  .transform((v) => v ?? undefined);

export const ZCurrency = z.string().refine((v) => /^[A-Z]{3}$/.test(v) && CURRENCIES.has(v), 'must be an ISO 4217 currency code such as "EUR"');
export const ZTimeZone = z.string().refine(isTimeZone, 'must be an IANA time zone such as "Europe/Madrid"');
export const ZIsoDate = z.iso.date({ error: 'must be a date YYYY-MM-DD' });
export const ZIsoDateTime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-21T10:15:00Z' });

const DECIMAL = /^-?\d{1,15}(\.\d{1,6})?$/;
// At most 15 significant digits: the listing answers amounts as JSON numbers (like the reference
// API), and a double holds 15 decimal digits exactly.
const significantDigits = (text: string) => text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').length;
export const ZDecimal = z
  .union([z.number().finite(), z.string()], { error: 'must be a decimal number' })
  .transform((value, ctx) => {
    const text = typeof value === 'number' ? String(value) : value.trim();
    if (!DECIMAL.test(text) || significantDigits(text) > 15) {
      ctx.addIssue({ code: 'custom', message: 'must be a decimal of at most 15 significant digits, 6 of them after the point' });
      return z.NEVER;
    }
    return text;
  })
  .openapi({ type: 'string', example: '120.50' });

