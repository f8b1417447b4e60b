// One row of transaction-view.ts as the listing answers it: the reference accounting API's
// FolioTransactionResponse (docs/ledger.md#listing). Ids are strings, money is JSON numbers from
// the exact decimals, and an optional field the import did not carry is left out rather than
// answered empty. A transaction on a live invoice is `locked`, naming the invoice
// (lockedByFiscalDocuments, docs/fiscal-documents.md#the-listing). The fields this service has no
// notion of are answered as their truthful empties where the reference's type has one (no actions);
// the routing fields, whose types have no empty (a string, an object, neither nullable), are left out.

import type { TTransactionType, TTransactionView } from './listing-schemas.js';
import { currencyScale, decimalToNumber } from './money.js';
import type { TCodeGroup } from './enums.js';
import type { TPayment } from './stay-schemas.js';
import type { TTransactionRow } from './transaction-view.js';

export type { TTransactionView } from './listing-schemas.js';

/** The live fiscal document each locked transaction is on, by transaction id (FiscalDocumentSummary). */
export type TFiscalLocks = ReadonlyMap<string, TTransactionView['lockedByFiscalDocuments'][number]>;

/** The reference's type of each code group. It has none for N_A; an unclassified row reads as an adjustment. */
const TYPE_OF_GROUP: Record<TCodeGroup, TTransactionType> = {
  PAYMENT: 'payment',
  ITEM_SERVICE: 'product',
  ADDON: 'addon',
  ROOM_REVENUE_RATE: 'rate',
  ROOM_REVENUE_MANUAL: 'roomRevenue_manual',
  ROOM_REVENUE_CANCELLATION: 'roomRevenue_cancellation',
  ROOM_REVENUE_NO_SHOW: 'roomRevenue_no_show',
  TAX: 'tax',
  FEE: 'fee',
  CUSTOM_ITEM: 'custom_item',
  ACCOUNTS_RECEIVABLE: 'accountsReceivable',
  SPACE: 'space',
  CHANNEL_COMMISSION: 'channel_commission',
  GRATUITY: 'gratuity',
  SERVICE_CHARGE: 'service_charge',
  N_A: 'adjustment',
};

/** The reference derives the type from the code first: a code ending in "A" is an adjustment. */
export function transactionTypeOf(code: string, group: TCodeGroup): TTransactionType {
  return code.endsWith('A') ? 'adjustment' : TYPE_OF_GROUP[group];
}

/** `+01:00` for 60 minutes east of UTC, `-05:30` for 330 west, `+00:00` for UTC. */
export function utcOffsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Who posted: the system for no user or "0", an imported user, or a user id nothing was imported for. */
function userOf(row: TTransactionRow): TTransactionView['user'] {
  if (row.user_id === null || row.user_id === '0') return { id: '0', firstName: '', lastName: '', email: '', type: 'SYSTEM_USER' };
  if (row.user_first_name === null) return { id: row.user_id, firstName: '', lastName: '', email: '', type: 'UNKNOWN_USER' };
  return { id: row.user_id, firstName: row.user_first_name, lastName: row.user_last_name ?? '', email: row.user_email ?? '', type: 'REAL_USER' };
}

/** The method and the stored payment (amounts as numbers). The vault token id is not the listing's to answer. */
function paymentDetailsOf(row: TTransactionRow): NonNullable<TTransactionView['paymentDetails']> {
  const payment = row.payment;
  const details: NonNullable<TTransactionView['paymentDetails']> = {};
  if (row.payment_method) details.paymentMethod = row.payment_method;
  if (!payment) return details;
  details.paymentId = payment.paymentId;
  details.transactionType = payment.transactionType as TPayment['transactionType'];
  if (payment.gateway) details.gateway = payment.gateway;
  if (payment.creditCardType) details.creditCardType = payment.creditCardType;
  if (payment.cardTrailingDigits) details.cardTrailingDigits = payment.cardTrailingDigits;
  if (payment.amountPaid !== undefined) details.amountPaid = decimalToNumber(payment.amountPaid);
  if (payment.amountRefunded !== undefined) details.amountRefunded = decimalToNumber(payment.amountRefunded);
  if (payment.processingStatus) details.processingStatus = payment.processingStatus as NonNullable<TPayment['processingStatus']>;
  return details;
}

/** The stay: only on a RESERVATION row whose reservation (and, for roomName, booked room) was imported. */
function stayOf(row: TTransactionRow): Partial<TTransactionView> {
  const stay: Partial<TTransactionView> = {};
  if (row.reservation_guest_name !== null) {
    stay.reservationName = row.reservation_guest_name;
    if (row.checkin_date) stay.checkinDate = row.checkin_date;
    if (row.checkout_date) stay.checkoutDate = row.checkout_date;
    if (row.reservation_status) stay.reservationStatus = row.reservation_status;
  }
  if (row.room_name !== null) stay.roomName = row.room_name;
  return stay;
}

/** The imported optional fields, each left out when the import did not carry it. */
function importedOf(row: TTransactionRow): Partial<TTransactionView> {
  const fields: Partial<TTransactionView> = {};
  if (row.source_identifier) fields.sourceIdentifier = row.source_identifier;
  if (row.sub_source_id) fields.subSourceId = row.sub_source_id;
  if (row.sub_source_identifier) fields.subSourceIdentifier = row.sub_source_identifier;
  if (row.custom_transaction_code) fields.customTransactionCode = row.custom_transaction_code;
  if (row.general_ledger_custom_code) fields.generalLedgerCustomCode = row.general_ledger_custom_code;
  if (row.origin_id) fields.originId = row.origin_id;
  if (row.notes) fields.notes = row.notes;
  if (row.foreign_currency) fields.foreignCurrency = row.foreign_currency.trim();
  if (row.foreign_currency_amount !== null) fields.foreignCurrencyAmount = decimalToNumber(row.foreign_currency_amount);
  if (row.parent_id) fields.parentId = row.parent_id;
  if (row.customer_id) fields.customerId = row.customer_id;
  if (row.user_id !== null) fields.userId = row.user_id;
  if (row.external_relation_id) fields.externalRelationId = row.external_relation_id;
  if (row.external_relation_kind) fields.externalRelationKind = row.external_relation_kind as TTransactionView['externalRelationKind'];
  if (row.account) fields.account = row.account;
  return fields;
}

export function toTransactionView(row: TTransactionRow, locks: TFiscalLocks = new Map()): TTransactionView {
  const lock = locks.get(row.id);
  const currency = row.currency.trim();
  const isPayment = row.internal_code_group === 'PAYMENT';
  return {
    id: row.id,
    propertyId: row.property_id,
    folioId: row.folio_id,
    sourceKind: row.source_kind,
    sourceId: row.source_id,
    subSourceArchived: row.room_archived ?? false,
    transactionDatetime: row.transaction_datetime.toISOString(),
    transactionDatetimePropertyTime: `${row.property_time}${utcOffsetText(row.utc_offset_minutes)}`,
    serviceDate: row.service_date,
    createdAt: row.created_at.toISOString(),
    internalTransactionCode: row.internal_transaction_code,
    internalCodeGroup: row.internal_code_group,
    transactionType: transactionTypeOf(row.internal_transaction_code, row.internal_code_group),
    description: row.description,
    quantity: decimalToNumber(row.quantity),
    amount: decimalToNumber(row.amount),
    currency,
    currencyScale: currencyScale(currency),
    posted: row.posted,
    rootId: row.root_id,
    isVoid: row.is_void,
    // The void itself holds the void, so chain_voided covers it; is_void is the belt to the braces.
    ...(row.is_void || row.chain_voided ? { state: 'VOIDED' as const } : {}),
    readOnly: false,
    locked: lock !== undefined,
    lockedByFiscalDocuments: lock ? [lock] : [],
    actions: [],
    guestName: row.guest_name,
    user: userOf(row),
    ...importedOf(row),
    ...stayOf(row),
    ...(isPayment ? { paymentDetails: paymentDetailsOf(row), allocatedPayments: [] } : {}),
  };
}
