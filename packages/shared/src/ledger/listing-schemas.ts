// docs/ledger.md#listing: the request of POST /accounting/v1.0/folios/transactions and its answer,
// whose transactions have the shape of the reference accounting API's FolioTransactionResponse.

import { ZInt64Id, ZInt64IdOut, searchQuerySchema } from '../schemas/common.js';
import { z } from '../schemas/zod.js';
import { ZIsoDate, ZIsoDateTime } from './field-schemas.js';
import { SORT_FIELDS, ZDescriptionFilters, ZSortDirection } from './schemas.js';
import { CODE_GROUPS, RESERVATION_STATUSES, SOURCE_KINDS } from './enums.js';
import { ACCOUNT_CATEGORIES, CHART_OF_ACCOUNT_TYPES, EXTERNAL_RELATION_KINDS, PAYMENT_TRANSACTION_TYPES, PROCESSING_STATUSES } from './stay-schemas.js';

const optionalId = ZInt64Id.nullish().transform((v) => v ?? undefined);

export const GROUP_BY_FIELDS = ['transaction_date', 'service_date', 'internal_code_group', 'description', 'sub_source_identifier', 'folio_id', 'user_id', 'reservation_name', 'room_name'] as const;
export type TGroupBy = (typeof GROUP_BY_FIELDS)[number];

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
  .openapi('ListFolioTransactionsRequest', {
    example: { sourceKind: 'RESERVATION', sourceId: 500, sort: [{ field: 'transaction_datetime', direction: 'ASC' }], limit: 50, includeTotal: true },
  });
export type TListTransactionsRequest = z.output<typeof ZListTransactionsRequest>;


// --- the answer (docs/ledger.md#listing): the reference accounting API's FolioTransactionResponse ---

/** transactionType: derived from the code (suffix "A") and the code group (transaction-response.ts). */
export const TRANSACTION_TYPES = [
  'payment', 'product', 'addon', 'rate', 'roomRevenue_manual', 'roomRevenue_cancellation', 'roomRevenue_no_show', 'tax', 'fee',
  'custom_item', 'accountsReceivable', 'adjustment', 'space', 'channel_commission', 'gratuity', 'service_charge', 'check_discount',
] as const;
export type TTransactionType = (typeof TRANSACTION_TYPES)[number];
export const TRANSACTION_STATES = ['VOIDED', 'TRANSFERRED', 'CANCELLED', 'REFUNDED', 'DELETED'] as const;
export const USER_TYPES = ['REAL_USER', 'SYSTEM_USER', 'UNKNOWN_USER'] as const;
const FISCAL_DOCUMENT_KINDS = [
  'INVOICE', 'CREDIT_NOTE', 'RECEIPT', 'RECTIFY_INVOICE', 'PRO_FORMA_INVOICE', 'REFUND_RECEIPT', 'INVOICE_RECEIPT', 'ADVANCE_INVOICE', 'SETTLEMENT_INVOICE',
] as const;

const ZUserIdOut = z.string().regex(/^\d{1,19}$/);
/** An id the reference types as a plain string (field-schemas.ts ZStringId), exactly as imported. */
const ZStringIdOut = z.string().min(1).openapi({ maxLength: 255, description: 'The imported id, exactly as given' });
const double = z.number().openapi({ format: 'double' });
const int32 = z.int().min(-2147483648).max(2147483647).openapi({ format: 'int32' });

const ZAccountView = z
  .object({
    id: ZStringIdOut,
    name: z.string(),
    description: z.string().optional(),
    category: z.enum(ACCOUNT_CATEGORIES).optional(),
    chartOfAccountType: z.enum(CHART_OF_ACCOUNT_TYPES).optional(),
  })
  .openapi('FolioTransactionAccount');

export const ZUserModel = z
  .object({
    id: ZUserIdOut.openapi({ description: '"0" for the system' }),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    type: z.enum(USER_TYPES).openapi({ description: 'REAL_USER: imported; UNKNOWN_USER: a userId no imported user has; SYSTEM_USER: userId absent or "0"' }),
  })
  .openapi('UserModel');

export const ZPaymentDetails = z
  .object({
    paymentMethod: z.string().optional(),
    paymentId: ZStringIdOut.optional(),
    transactionType: z.enum(PAYMENT_TRANSACTION_TYPES).optional(),
    gateway: z.string().optional(),
    creditCardType: z.string().optional().openapi({ description: 'Card brand code, e.g. visa, master, amex' }),
    cardTrailingDigits: z.string().optional(),
    amountPaid: double.optional(),
    amountRefunded: double.optional(),
    processingStatus: z.enum(PROCESSING_STATUSES).optional(),
  })
  .openapi('PaymentDetails');

const ZRoutingContext = z
  .object({
    groupProfileId: z.string(),
    groupProfileName: z.string(),
    groupProfileIdentifier: z.string(),
    reservationId: z.string(),
    reservationName: z.string(),
  })
  .partial();

const ZFiscalDocumentRef = z.object({ id: z.string(), number: z.string(), kind: z.enum(FISCAL_DOCUMENT_KINDS), createdAt: z.iso.datetime() });
const ZAction = z.object({ type: z.string(), parameters: z.record(z.string(), z.string()) }).openapi('Action');
const ZAllocatedPayment = z.object({
  id: z.int().openapi({ format: 'int64' }),
  allocatedAmount: z.number(),
  transactionId: z.string(),
  description: z.string(),
  totalToAllocate: z.number(),
});

/** A listed transaction (transaction-response.ts): ids as strings, amounts as JSON numbers. */
export const ZTransactionView = z
  .object({
    id: ZInt64IdOut,
    propertyId: ZInt64IdOut,
    folioId: ZInt64IdOut,
    sourceKind: z.enum(SOURCE_KINDS),
    sourceId: ZInt64IdOut,
    sourceIdentifier: z.string().optional(),
    subSourceId: ZInt64IdOut.optional(),
    subSourceIdentifier: z.string().optional(),
    subSourceArchived: z.boolean().openapi({ description: 'The booked room named by subSourceId is archived; false otherwise' }),
    transactionDatetime: z.iso.datetime().openapi({ description: 'UTC' }),
    transactionDatetimePropertyTime: z.iso.datetime({ offset: true }).openapi({ description: "Wall-clock time in the property's time zone, with its UTC offset at that instant" }),
    serviceDate: z.iso.date(),
    createdAt: z.iso.datetime(),
    internalTransactionCode: z.string(),
    internalCodeGroup: z.enum(CODE_GROUPS),
    transactionType: z.enum(TRANSACTION_TYPES).openapi({ description: 'A code ending in "A" is an adjustment; otherwise by internalCodeGroup (N_A → adjustment)' }),
    customTransactionCode: z.string().optional(),
    generalLedgerCustomCode: z.string().optional(),
    originId: ZInt64IdOut.optional(),
    description: z.string(),
    notes: z.string().optional(),
    quantity: z.number().openapi({ description: 'The imported quantity' }),
    amount: z.number(),
    currency: z.string(),
    currencyScale: z.int().min(0),
    foreignCurrency: z.string().optional().openapi({ description: 'The currency tendered, when not the property currency' }),
    foreignCurrencyAmount: double.optional().openapi({ description: 'The amount in foreignCurrency (same sign as amount)' }),
    posted: z.boolean(),
    parentId: ZInt64IdOut.optional(),
    rootId: ZInt64IdOut.openapi({ description: 'The chain: the id of its first transaction (its own id when none)' }),
    isVoid: z.boolean().openapi({ description: 'This transaction voids its parent' }),
    state: z.enum(TRANSACTION_STATES).optional().openapi({ description: 'VOIDED on every transaction of a chain that holds a void (this service answers no other state)' }),
    readOnly: z.boolean(),
    locked: z.boolean(),
    lockedByFiscalDocuments: z.array(ZFiscalDocumentRef),
    actions: z.array(ZAction).nullable(),
    // The reference's routing fields are optional and not nullable: this service routes nothing, so
    // it leaves them out (a strictly generated client refuses a null there).
    routedFrom: z.string().optional().openapi({ description: 'Never answered: this service routes no transactions' }),
    routingContext: ZRoutingContext.optional().openapi({ description: 'Never answered: this service routes no transactions' }),
    customerId: ZStringIdOut.optional(),
    guestName: z.string().nullable().openapi({ description: 'The GUEST recipient named by customerId; null when none (fall back to reservationName)' }),
    userId: ZUserIdOut.optional(),
    user: ZUserModel,
    externalRelationId: ZStringIdOut.optional(),
    externalRelationKind: z.enum(EXTERNAL_RELATION_KINDS).optional(),
    account: ZAccountView.optional(),
    reservationName: z.string().optional().openapi({ description: "The reservation's guest name (RESERVATION sources with an imported reservation)" }),
    checkinDate: z.iso.date().optional(),
    checkoutDate: z.iso.date().optional(),
    reservationStatus: z.enum(RESERVATION_STATUSES).optional(),
    roomName: z.string().optional().openapi({ description: 'The imported booked room named by subSourceId' }),
    paymentDetails: ZPaymentDetails.optional().openapi({ description: 'On PAYMENT transactions only' }),
    allocatedPayments: z.array(ZAllocatedPayment).nullable().optional().openapi({ description: 'On PAYMENT transactions only' }),
  })
  .openapi('FolioTransactionResponse');

export const ZGroupTotals = z
  .object({
    count: int32,
    quantity: z.number().openapi({ description: 'Σ quantity of the ITEM_SERVICE and ADDON rows' }),
    totalDebit: double,
    totalCredit: double,
  })
  .openapi('FolioTransactionGroupTotals');

export const ZTotals = z
  .object({
    count: z.int().min(0).openapi({ format: 'int64' }),
    totalDebit: double,
    totalCredit: double,
    currency: z.string().optional().openapi({ description: 'The property currency (left out when the property was never imported)' }),
    currencyScale: z.int().min(0),
  })
  .openapi('FolioTransactionTotals');

export const ZForeignCurrencyTotals = z
  .object({
    debit: z.record(z.string(), double).openapi({ description: 'Always empty: refunds are netted into credit' }),
    credit: z.record(z.string(), double).openapi({ description: 'totalCredit by tender currency, net; zero entries left out' }),
  })
  .openapi('ForeignCurrencyTotals');

export const ZListTransactionsResponse = z
  .object({
    groups: z
      .record(z.string(), z.object({ transactions: z.array(ZTransactionView), totals: ZGroupTotals }))
      .openapi({ description: 'Groups in the order of their first row; the key is the groupBy value ("default" without groupBy)' }),
    nextPageToken: z.string().nullable().openapi({ description: 'Send it as pageToken for the next page; null on the last page' }),
    totals: ZTotals.optional().openapi({ description: 'With includeTotal: over every row the filter matches' }),
    foreignCurrencyTotals: ZForeignCurrencyTotals.optional().openapi({
      description: 'With includeTotal, when a matching payment was tendered in a foreign currency',
    }),
  })
  .openapi('ListFolioTransactionsResponse');
export type TListTransactionsResponse = z.output<typeof ZListTransactionsResponse>;
export type TTransactionView = z.output<typeof ZTransactionView>;
export type TGroupTotals = z.output<typeof ZGroupTotals>;
export type TForeignCurrencyTotals = z.output<typeof ZForeignCurrencyTotals>;
