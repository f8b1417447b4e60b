import { ZInt64Id, ZInt64IdOut, searchQuerySchema } from '../schemas/common.js';
import { z } from '../schemas/zod.js';
import { parseDescriptionFilter } from './description-filters.js';
import { LANGUAGES } from '../i18n/languages.js';

/**
 * docs/ledger.md#import (camelCase, as the accounting API it mirrors). Optional fields accept null as
 * "absent": clients of the reference API send nulls. Money is a decimal string or JSON number
 * with at most 6 decimals, kept as a string from here on (never a binary float).
 */

export const SOURCE_KINDS = ['RESERVATION', 'HOUSE_ACCOUNT', 'GROUP_PROFILE', 'ACCOUNTS_RECEIVABLE_LEDGER'] as const;
export type TSourceKind = (typeof SOURCE_KINDS)[number];

export const CODE_GROUPS = [
  'ROOM_REVENUE_RATE', 'ROOM_REVENUE_MANUAL', 'ROOM_REVENUE_CANCELLATION', 'ROOM_REVENUE_NO_SHOW',
  'ITEM_SERVICE', 'ADDON', 'CUSTOM_ITEM', 'FEE', 'TAX', 'PAYMENT', 'ACCOUNTS_RECEIVABLE', 'SPACE',
  'CHANNEL_COMMISSION', 'GRATUITY', 'SERVICE_CHARGE', 'N_A',
] as const;
export type TCodeGroup = (typeof CODE_GROUPS)[number];

/** Credits are payments and accounts-receivable transfers; every other row is a debit. */
export const CREDIT_GROUPS: ReadonlySet<TCodeGroup> = new Set(['PAYMENT', 'ACCOUNTS_RECEIVABLE']);

export const RECIPIENT_TYPES = ['GUEST', 'CONTACT', 'GROUP', 'COMPANY', 'GROUP_PROFILE', 'GROUP_PROFILE_CONTACT'] as const;

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return value.includes('/') || value === 'UTC';
  } catch {
    return false;
  }
}

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const optionalText = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`).nullish().transform((v) => v || undefined);
const optionalId = ZInt64Id.nullish().transform((v) => v ?? undefined);

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

export const ZProperty = z
  .strictObject({
    id: ZInt64Id,
    name: text(200),
    address: optionalText(500),
    currency: ZCurrency,
    timezone: ZTimeZone,
    language: z.enum(LANGUAGES).nullish().transform((v) => v ?? undefined),
    gatewayMode: z.enum(['test', 'live']),
    nightAuditTime: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a local time HH:MM')
      .nullish()
      .transform((v) => v ?? undefined),
  })
  .openapi('LedgerProperty');

/** Records may name their property; when they do it must be the request's (docs/ledger.md#import). */
const ownerProperty = { propertyId: optionalId };

export const ZRecipient = z
  .strictObject({
    type: z.enum(RECIPIENT_TYPES),
    id: ZInt64Id,
    name: text(200),
    address: optionalText(500),
    email: z.email('must be an e-mail address').max(254).nullish().transform((v) => v ?? undefined),
    taxId: optionalText(64),
    documentNumber: optionalText(64),
    ...ownerProperty,
  })
  .openapi('LedgerRecipient');

export const ZFolio = z
  .strictObject({
    id: ZInt64Id,
    sourceKind: z.enum(SOURCE_KINDS),
    sourceId: ZInt64Id,
    sourceIdentifier: optionalText(100),
    name: text(200),
    parentId: optionalId,
    ...ownerProperty,
  })
  .openapi('LedgerFolio');

export const ZTransaction = z
  .strictObject({
    id: ZInt64Id,
    folioId: ZInt64Id,
    sourceKind: z.enum(SOURCE_KINDS),
    sourceId: ZInt64Id,
    sourceIdentifier: optionalText(100),
    subSourceId: optionalId,
    subSourceIdentifier: optionalText(100),
    transactionDatetime: ZIsoDateTime,
    serviceDate: ZIsoDate,
    internalTransactionCode: text(50),
    internalCodeGroup: z.enum(CODE_GROUPS),
    originId: optionalId,
    paymentMethod: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,50}$/, 'must be a payment method code such as "cash" or "cards_visa"')
      .nullish()
      .transform((v) => v ?? undefined),
    description: text(500),
    notes: optionalText(2000),
    quantity: ZDecimal,
    amount: ZDecimal,
    currency: ZCurrency,
    posted: z.boolean(),
    parentId: optionalId,
    rootId: optionalId,
    isVoid: z.boolean().nullish().transform((v) => v ?? false),
    userId: z
      .union([z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,19}$/)], { error: 'must be a user id' })
      .nullish()
      .transform((v) => (v === null || v === undefined ? undefined : String(v))),
    ...ownerProperty,
  })
  .superRefine((transaction, ctx) => {
    if (transaction.isVoid && !transaction.parentId) {
      ctx.addIssue({ code: 'custom', path: ['parentId'], message: 'is required on a void (it names the transaction voided)' });
    }
  })
  .openapi('LedgerTransaction');

export type TProperty = z.output<typeof ZProperty>;
export type TRecipient = z.output<typeof ZRecipient>;
export type TFolio = z.output<typeof ZFolio>;
export type TTransaction = z.output<typeof ZTransaction>;

const MAX_RECORDS = 100_000;
export const ZImportRequest = z
  .strictObject({
    property: ZProperty.nullish().transform((v) => v ?? undefined),
    recipients: z.array(ZRecipient).max(MAX_RECORDS).nullish().transform((v) => v ?? []),
    folios: z.array(ZFolio).max(MAX_RECORDS).nullish().transform((v) => v ?? []),
    transactions: z.array(ZTransaction).max(MAX_RECORDS).nullish().transform((v) => v ?? []),
  })
  .openapi('LedgerImportRequest');
export type TImportRequest = z.output<typeof ZImportRequest>;

const ZCount = z.int().min(0);
export const ZImportResponse = z
  .object({ property: ZCount, recipients: ZCount, folios: ZCount, transactions: ZCount })
  .openapi('LedgerImportResponse');

export const GROUP_BY_FIELDS = ['transaction_date', 'service_date', 'internal_code_group', 'description', 'sub_source_identifier', 'folio_id', 'user_id'] as const;
export type TGroupBy = (typeof GROUP_BY_FIELDS)[number];
export const SORT_FIELDS = ['transaction_datetime', 'service_date', 'id', 'internal_code', 'description', 'notes', 'quantity', 'amount'] as const;
export type TSortField = (typeof SORT_FIELDS)[number];

export const ZSortDirection = z
  .string()
  .transform((v) => v.toLowerCase())
  .pipe(z.enum(['asc', 'desc'], { error: 'must be asc or desc' }));

export const ZDescriptionFilters = z
  .array(z.string().max(100))
  .max(100)
  .superRefine((filters, ctx) => {
    filters.forEach((filter, index) => {
      if (!parseDescriptionFilter(filter)) {
        ctx.addIssue({ code: 'custom', path: [index], message: 'is not a known description filter (e.g. product_123, tax_4, rate, cash, cards_visa)' });
      }
    });
  });

function sortSchema<F extends readonly [string, ...string[]]>(fields: F) {
  return z
    .array(z.strictObject({ field: z.enum(fields), direction: ZSortDirection }))
    .max(fields.length)
    .superRefine((keys, ctx) => {
      const seen = new Set<string>();
      keys.forEach((key, index) => {
        if (seen.has(key.field)) ctx.addIssue({ code: 'custom', path: [index, 'field'], message: 'appears twice' });
        seen.add(key.field);
      });
    });
}
export const ZListSort = sortSchema(SORT_FIELDS);

export const ZListTransactionsRequest = z
  .strictObject({
    sourceId: ZInt64Id,
    sourceKind: z.enum(SOURCE_KINDS),
    folioId: optionalId,
    posted: z.boolean().nullish().transform((v) => v ?? undefined),
    descriptionFilters: ZDescriptionFilters.nullish().transform((v) => v ?? []),
    transactionDateFrom: ZIsoDateTime.nullish().transform((v) => v ?? undefined),
    transactionDateTo: ZIsoDateTime.nullish().transform((v) => v ?? undefined),
    serviceDateFrom: ZIsoDate.nullish().transform((v) => v ?? undefined),
    serviceDateTo: ZIsoDate.nullish().transform((v) => v ?? undefined),
    subSourceIds: z.array(ZInt64Id).max(1000).nullish().transform((v) => v ?? []),
    searchQuery: searchQuerySchema(),
    groupBy: z.enum(GROUP_BY_FIELDS).nullish().transform((v) => v ?? undefined),
    sort: ZListSort.nullish().transform((v) => v ?? []),
    pageToken: z.string().max(4000).nullish().transform((v) => v ?? undefined),
    limit: z.number().int('must be an integer').min(1, 'must be 1-1100').max(1100, 'must be 1-1100').nullish().transform((v) => v ?? 100),
    includeVoided: z.boolean().nullish().transform((v) => v ?? true),
    includeTotal: z.boolean().nullish().transform((v) => v ?? false),
  })
  .superRefine((request, ctx) => {
    if (request.transactionDateFrom && request.transactionDateTo && Date.parse(request.transactionDateFrom) > Date.parse(request.transactionDateTo)) {
      ctx.addIssue({ code: 'custom', path: ['transactionDateTo'], message: 'must not be before transactionDateFrom' });
    }
    if (request.serviceDateFrom && request.serviceDateTo && request.serviceDateFrom > request.serviceDateTo) {
      ctx.addIssue({ code: 'custom', path: ['serviceDateTo'], message: 'must not be before serviceDateFrom' });
    }
  })
  .openapi('ListFolioTransactionsRequest');
export type TListTransactionsRequest = z.output<typeof ZListTransactionsRequest>;

/** A listed transaction (transaction-view.ts): ids as strings, amounts as JSON numbers. */
const ZTransactionView = z
  .object({
    id: ZInt64IdOut,
    propertyId: ZInt64IdOut,
    folioId: ZInt64IdOut,
    sourceKind: z.enum(SOURCE_KINDS),
    sourceId: ZInt64IdOut,
    sourceIdentifier: z.string().optional(),
    subSourceId: ZInt64IdOut.optional(),
    subSourceIdentifier: z.string().optional(),
    transactionDatetime: z.iso.datetime(),
    transactionDatetimePropertyTime: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/).openapi({ description: 'Wall-clock time in the property time zone' }),
    serviceDate: z.iso.date(),
    internalTransactionCode: z.string(),
    internalCodeGroup: z.enum(CODE_GROUPS),
    transactionType: z.string(),
    originId: ZInt64IdOut.optional(),
    paymentDetails: z.object({ paymentMethod: z.string() }).optional(),
    description: z.string(),
    notes: z.string().optional(),
    quantity: z.number(),
    amount: z.number(),
    currency: z.string(),
    currencyScale: z.int().min(0),
    posted: z.boolean(),
    parentId: ZInt64IdOut.optional(),
    rootId: ZInt64IdOut,
    isVoid: z.boolean(),
    state: z.enum(['VOIDED']).optional().openapi({ description: 'VOIDED when a void of this transaction exists' }),
    userId: z.string().regex(/^\d{1,19}$/).optional(),
    createdAt: z.iso.datetime(),
  })
  .openapi('FolioTransaction');

const ZTotals = z.object({ count: ZCount, totalDebit: z.number(), totalCredit: z.number() });

export const ZListTransactionsResponse = z
  .object({
    groups: z
      .record(z.string(), z.object({ transactions: z.array(ZTransactionView), totals: ZTotals }))
      .openapi({ description: 'Groups in the order of their first row; the key is the groupBy value ("default" without groupBy)' }),
    nextPageToken: z.string().nullable().openapi({ description: 'Send it as pageToken for the next page; null on the last page' }),
    totals: ZTotals.extend({ currency: z.string().nullable(), currencyScale: z.int().min(0) })
      .optional()
      .openapi({ description: 'With includeTotal: over every row the filter matches' }),
  })
  .openapi('ListFolioTransactionsResponse');
