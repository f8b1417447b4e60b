// docs/ledger.md#import (camelCase, as the accounting API it mirrors): the import's records. Their
// field types are in field-schemas.ts, the stay, users and payment objects in stay-schemas.ts, the
// listing's request and answer in listing-schemas.ts.

import { ZInt64Id } from '../schemas/common.js';
import { z } from '../schemas/zod.js';
import { parseDescriptionFilter } from './description-filters.js';
import { LANGUAGES } from '../i18n/languages.js';

import { optionalEmail, optionalFreeText, optionalId, optionalPhone, optionalStringId, optionalText, optionalWebsite, text, ZCurrency, ZDecimal, ZIsoDate, ZIsoDateTime, ZTimeZone } from './field-schemas.js';
import { CODE_GROUPS, SOURCE_KINDS } from './enums.js';
import { EXTERNAL_RELATION_KINDS, ZAccount, ZPayment, ZReservation, ZUser, ZUserId } from './stay-schemas.js';
import { partyFields, ZIban, ZPropertyTaxes, ZTransactionVat } from './invoice-fields.js';

export { ZCurrency, ZDecimal, ZIsoDate, ZIsoDateTime, ZTimeZone } from './field-schemas.js';

export const RECIPIENT_TYPES = ['GUEST', 'CONTACT', 'GROUP', 'COMPANY', 'GROUP_PROFILE', 'GROUP_PROFILE_CONTACT'] as const;

export const ZProperty = z
  .strictObject({
    id: ZInt64Id,
    name: text(200),
    address: optionalFreeText(500),
    /** The hotel's own tax id, phone, e-mail and website: printed in a folio's header when given. */
    taxId: optionalText(64),
    phone: optionalPhone,
    email: optionalEmail,
    website: optionalWebsite,
    currency: ZCurrency,
    timezone: ZTimeZone,
    language: z.enum(LANGUAGES).nullish().transform((v) => v ?? undefined),
    gatewayMode: z.enum(['test', 'live']),
    nightAuditTime: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a local time HH:MM')
      .nullish()
      .transform((v) => v ?? undefined),
    /** The seller of its invoices (docs/ledger.md#invoice-data): legal name, VAT id, company id, postal and electronic address. */
    legalName: optionalText(200),
    ...partyFields,
    iban: ZIban.nullish().transform((v) => v ?? undefined),
    /** The taxes TAX rows name by their originId, with their VAT category and rate. */
    taxes: ZPropertyTaxes.nullish().transform((v) => v ?? undefined),
  })
  .openapi('LedgerProperty');

/** Records may name their property; when they do it must be the request's (docs/ledger.md#import). */
const ownerProperty = { propertyId: optionalId };

export const ZRecipient = z
  .strictObject({
    type: z.enum(RECIPIENT_TYPES),
    id: ZInt64Id,
    name: text(200),
    address: optionalFreeText(500),
    email: optionalEmail,
    taxId: optionalText(64),
    documentNumber: optionalText(64),
    /** The buyer of an invoice made out to this recipient (docs/ledger.md#invoice-data). */
    ...partyFields,
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

/** Groups whose rows are sold (their own VAT may be given): every debit but TAX; ACCOUNTS_RECEIVABLE is a credit. */
const CHARGE_GROUPS: ReadonlySet<string> = new Set(CODE_GROUPS.filter((group) => !['TAX', 'PAYMENT', 'ACCOUNTS_RECEIVABLE'].includes(group)));

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
    notes: optionalFreeText(2000),
    quantity: ZDecimal,
    amount: ZDecimal,
    currency: ZCurrency,
    posted: z.boolean(),
    parentId: optionalId,
    rootId: optionalId,
    isVoid: z.boolean().nullish().transform((v) => v ?? false),
    userId: ZUserId.nullish().transform((v) => v ?? undefined),
    customTransactionCode: optionalText(50),
    generalLedgerCustomCode: optionalText(50),
    customerId: optionalStringId,
    externalRelationId: optionalStringId,
    externalRelationKind: z.enum(EXTERNAL_RELATION_KINDS).nullish().transform((v) => v ?? undefined),
    account: ZAccount.nullish().transform((v) => v ?? undefined),
    foreignCurrency: ZCurrency.nullish().transform((v) => v ?? undefined),
    foreignCurrencyAmount: ZDecimal.nullish().transform((v) => v ?? undefined),
    payment: ZPayment.nullish().transform((v) => v ?? undefined),
    /** A charge's own VAT, when no TAX row carries it (docs/fiscal-documents.md#vat-from-the-ledger). */
    vat: ZTransactionVat.nullish().transform((v) => v ?? undefined),
    ...ownerProperty,
  })
  .superRefine((transaction, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (transaction.isVoid && !transaction.parentId) problem('parentId', 'is required on a void (it names the transaction voided)');
    if (transaction.payment && transaction.internalCodeGroup !== 'PAYMENT') problem('payment', 'is only for transactions of internalCodeGroup PAYMENT');
    if (transaction.vat && !CHARGE_GROUPS.has(transaction.internalCodeGroup)) {
      problem('vat', 'is only for charges: a TAX row names its tax by originId, and payments carry no VAT');
    }
    const { foreignCurrency, foreignCurrencyAmount, amount } = transaction;
    if (foreignCurrency !== undefined && foreignCurrencyAmount === undefined) problem('foreignCurrencyAmount', 'is required with foreignCurrency');
    if (foreignCurrencyAmount !== undefined && foreignCurrency === undefined) problem('foreignCurrency', 'is required with foreignCurrencyAmount');
    if (foreignCurrency !== undefined && foreignCurrency === transaction.currency) problem('foreignCurrency', 'must differ from currency (it names the currency tendered)');
    if (foreignCurrencyAmount !== undefined && signOf(foreignCurrencyAmount) !== signOf(amount)) {
      problem('foreignCurrencyAmount', 'must carry the same sign as amount');
    }
  })
  .openapi('LedgerTransaction');

export type TProperty = z.output<typeof ZProperty>;
export type TRecipient = z.output<typeof ZRecipient>;
export type TFolio = z.output<typeof ZFolio>;
export type TTransaction = z.output<typeof ZTransaction>;

/** -1, 0 or 1 of a decimal string. */
function signOf(decimal: string): number {
  if (/^-?0*(\.0*)?$/.test(decimal)) return 0;
  return decimal.startsWith('-') ? -1 : 1;
}

const MAX_RECORDS = 100_000;
/** The import's lists and the schema of one record of each. */
export const IMPORT_LISTS = { recipients: ZRecipient, reservations: ZReservation, users: ZUser, folios: ZFolio, transactions: ZTransaction } as const;
export type TImportListName = keyof typeof IMPORT_LISTS;
const importList = <T extends z.ZodType>(record: T) => z.array(record).max(MAX_RECORDS).nullish().transform((v) => v ?? []);
const ZImportProperty = ZProperty.nullish().transform((v) => v ?? undefined);
export const ZImportRequest = z
  .strictObject({
    property: ZImportProperty,
    recipients: importList(ZRecipient),
    reservations: importList(ZReservation),
    users: importList(ZUser),
    folios: importList(ZFolio),
    transactions: importList(ZTransaction),
  })
  .openapi('LedgerImportRequest', {
    // A night's room charge and its card payment on one reservation's folio, the README's session's,
    // with what an invoice to the company needs (the seller's identity and the charge's VAT).
    example: {
      property: {
        id: 1, name: 'Hotel Miramar Lisboa', currency: 'EUR', timezone: 'Europe/Lisbon', gatewayMode: 'test', vatId: 'PT509123456',
        postalAddress: { lines: ['Rua da Prata 12'], city: 'Lisboa', postcode: '1100-419', countryCode: 'PT' },
      },
      recipients: [
        { type: 'COMPANY', id: 1001, name: 'Atlântica Viagens, Lda.', vatId: 'PT509876543', postalAddress: { lines: ['Av. da Liberdade 110'], city: 'Lisboa', postcode: '1250-146', countryCode: 'PT' } },
      ],
      folios: [{ id: 10, sourceKind: 'RESERVATION', sourceId: 500, sourceIdentifier: 'RES-500', name: 'Main folio' }],
      transactions: [
        {
          id: 1, folioId: 10, sourceKind: 'RESERVATION', sourceId: 500, transactionDatetime: '2026-11-20T23:00:00Z', serviceDate: '2026-11-20',
          internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: 'Room 204 — nightly rate',
          quantity: '1', amount: '120.10', currency: 'EUR', posted: true, vat: { category: 'S', rate: '6' },
        },
        {
          id: 2, folioId: 10, sourceKind: 'RESERVATION', sourceId: 500, transactionDatetime: '2026-11-21T09:30:00Z', serviceDate: '2026-11-21',
          internalTransactionCode: '9000', internalCodeGroup: 'PAYMENT', paymentMethod: 'cards_visa', description: 'Card payment',
          quantity: '1', amount: '-120.10', currency: 'EUR', posted: true, payment: { paymentId: '7001', transactionType: 'Purchase' },
        },
      ],
    },
  });
export type TImportRequest = z.output<typeof ZImportRequest>;
/**
 * The same request with each list's records left unchecked: the API checks a large import's records
 * one at a time (apps/api/src/ledger/import-body.ts) against IMPORT_LISTS, and this the rest.
 */
const unchecked = importList(z.unknown());
export const ZImportEnvelope = z.strictObject({
  property: ZImportProperty,
  recipients: unchecked,
  reservations: unchecked,
  users: unchecked,
  folios: unchecked,
  transactions: unchecked,
});

const ZCount = z.int().min(0);
export const ZImportResponse = z
  .object({ property: ZCount, recipients: ZCount, reservations: ZCount, users: ZCount, folios: ZCount, transactions: ZCount })
  .openapi('LedgerImportResponse');

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

