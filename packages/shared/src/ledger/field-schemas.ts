import { ZInt64Id } from '../schemas/common.js';
import { z } from '../schemas/zod.js';

/**
 * The field types every ledger record is built of (docs/ledger.md#import). Optional fields accept
 * null as "absent": clients of the reference API send nulls. Money is a decimal string or JSON
 * number with at most 6 decimals, kept as a string from here on (never a binary float).
 */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return value.includes('/') || value === 'UTC';
  } catch {
    return false;
  }
}

export const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
export const optionalText = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`).nullish().transform((v) => v || undefined);
export const optionalId = ZInt64Id.nullish().transform((v) => v ?? undefined);

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

