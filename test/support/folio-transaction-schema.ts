// The answer of POST /accounting/v1.0/folios/transactions as the reference accounting API types it
// (FolioTransactionResponse and the objects around it), written out by hand as a JSON Schema
// (draft-07) so the tests judge the listing against the reference rather than against our own zod
// schemas. Types, formats and enums are the reference's, and so is nullability: only what the
// reference marks nullable (`guestName`, `actions`, `allocatedPayments`) accepts null. `required`
// holds every property except those docs/ledger.md#listing lets the service leave out (optional
// imported fields, the stay, paymentDetails and allocatedPayments off PAYMENT rows, state, the
// routing fields it never answers, the totals' currency of a property never imported). Extra
// properties are allowed: the service adds `isVoid`.
//
// One deliberate widening of the reference: `nextPageToken` accepts null, which is what
// docs/ledger.md#listing answers on the last page.

import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type TSchema = Record<string, unknown>;

const str: TSchema = { type: 'string' };
const bool: TSchema = { type: 'boolean' };
const dateTime: TSchema = { type: 'string', format: 'date-time' };
const date: TSchema = { type: 'string', format: 'date' };
const double: TSchema = { type: 'number', format: 'double' };
const int32: TSchema = { type: 'integer', format: 'int32' };
const int64: TSchema = { type: 'integer', format: 'int64' };
const enumOf = (...values: string[]): TSchema => ({ type: 'string', enum: values });
const nullable = (schema: TSchema): TSchema => ({ anyOf: [schema, { type: 'null' }] });
const object = (properties: Record<string, TSchema>, required: string[] = Object.keys(properties)): TSchema => ({
  type: 'object',
  properties,
  required,
});

export const TRANSACTION_TYPES = [
  'payment', 'product', 'addon', 'rate', 'roomRevenue_manual', 'roomRevenue_cancellation', 'roomRevenue_no_show', 'tax', 'fee',
  'custom_item', 'accountsReceivable', 'adjustment', 'space', 'channel_commission', 'gratuity', 'service_charge', 'check_discount',
];
const CODE_GROUPS = [
  'ROOM_REVENUE_RATE', 'ROOM_REVENUE_MANUAL', 'ROOM_REVENUE_CANCELLATION', 'ROOM_REVENUE_NO_SHOW', 'ITEM_SERVICE', 'ADDON',
  'CUSTOM_ITEM', 'FEE', 'TAX', 'PAYMENT', 'ACCOUNTS_RECEIVABLE', 'SPACE', 'CHANNEL_COMMISSION', 'GRATUITY', 'SERVICE_CHARGE', 'N_A',
];
const EXTERNAL_RELATION_KINDS = [
  'ROOM', 'PAYMENT', 'ITEM', 'ITEM_POS', 'ADDON', 'RESERVATION', 'ACCOUNTS_RECEIVABLE', 'ROOM_REVENUE', 'TAX', 'FEE', 'ADJUSTMENT',
  'PAYMENT_FEE', 'BOOKABLE_RESOURCE', 'CHANNEL_COMMISSION', 'CITY_LEDGER', 'GRATUITY', 'CHECK_ITEM', 'CHECK_SERVICE_CHARGE',
  'CHECK_DISCOUNT', 'CHANNEL_COMMISSION_MANUAL',
];
const FISCAL_DOCUMENT_KINDS = [
  'INVOICE', 'CREDIT_NOTE', 'RECEIPT', 'RECTIFY_INVOICE', 'PRO_FORMA_INVOICE', 'REFUND_RECEIPT', 'INVOICE_RECEIPT', 'ADVANCE_INVOICE', 'SETTLEMENT_INVOICE',
];

export const USER_MODEL = object({
  id: str,
  firstName: str,
  lastName: str,
  email: str,
  type: enumOf('REAL_USER', 'SYSTEM_USER', 'UNKNOWN_USER'),
});

export const PAYMENT_DETAILS = object(
  {
    paymentId: str,
    transactionType: enumOf('Purchase', 'Capture', 'Refund', 'Authorize', 'Void', 'Record'),
    paymentMethod: str,
    gateway: str,
    creditCardType: str,
    cardTrailingDigits: str,
    amountPaid: double,
    amountRefunded: double,
    processingStatus: enumOf('unconfirmed', 'confirmed'),
  },
  [],
);

const ROUTING_CONTEXT = object({ groupProfileId: str, groupProfileName: str, groupProfileIdentifier: str, reservationId: str, reservationName: str }, []);
const ACCOUNT = object(
  { id: str, description: str, name: str, category: enumOf('DEPOSITS'), chartOfAccountType: enumOf('LIABILITIES', 'REVENUE', 'ASSETS', 'EQUITY', 'EXPENSES') },
  [],
);
const ACTION = object({ type: str, parameters: { type: 'object', additionalProperties: str } }, []);
const FISCAL_DOCUMENT = object({ id: str, number: str, kind: enumOf(...FISCAL_DOCUMENT_KINDS), createdAt: dateTime }, []);
const ALLOCATED_PAYMENT = object({ id: int64, allocatedAmount: { type: 'number' }, transactionId: str, description: str, totalToAllocate: { type: 'number' } }, []);

const TRANSACTION_PROPERTIES: Record<string, TSchema> = {
  id: str,
  propertyId: str,
  amount: { type: 'number' },
  currency: str,
  currencyScale: { type: 'integer' },
  description: str,
  notes: str,
  quantity: int32,
  transactionType: enumOf(...TRANSACTION_TYPES),
  internalTransactionCode: str,
  internalCodeGroup: enumOf(...CODE_GROUPS),
  customTransactionCode: str,
  generalLedgerCustomCode: str,
  transactionDatetime: dateTime,
  transactionDatetimePropertyTime: dateTime,
  serviceDate: date,
  createdAt: dateTime,
  sourceId: str,
  sourceKind: enumOf('RESERVATION', 'HOUSE_ACCOUNT', 'GROUP_PROFILE', 'ACCOUNTS_RECEIVABLE_LEDGER'),
  subSourceId: str,
  subSourceIdentifier: str,
  subSourceArchived: { type: 'boolean', default: false },
  sourceIdentifier: str,
  parentId: str,
  rootId: str,
  originId: str,
  routedFrom: str,
  customerId: str,
  userId: str,
  externalRelationId: str,
  externalRelationKind: enumOf(...EXTERNAL_RELATION_KINDS),
  account: ACCOUNT,
  folioId: str,
  posted: bool,
  state: enumOf('VOIDED', 'TRANSFERRED', 'CANCELLED', 'REFUNDED', 'DELETED'),
  readOnly: bool,
  reservationName: str,
  guestName: nullable(str),
  roomName: str,
  checkinDate: date,
  checkoutDate: date,
  reservationStatus: enumOf('checked_out', 'checked_in', 'confirmed', 'canceled', 'not_confirmed', 'inquiry', 'deleted', 'no_show'),
  user: USER_MODEL,
  actions: nullable({ type: 'array', items: ACTION }),
  paymentDetails: PAYMENT_DETAILS,
  routingContext: ROUTING_CONTEXT,
  locked: bool,
  lockedByFiscalDocuments: { type: 'array', items: FISCAL_DOCUMENT },
  allocatedPayments: nullable({ type: 'array', items: ALLOCATED_PAYMENT }),
  foreignCurrency: str,
  foreignCurrencyAmount: double,
};

/** The properties the service may leave out (docs/ledger.md#listing); every other one is required. */
export const OPTIONAL_TRANSACTION_PROPERTIES = [
  'sourceIdentifier', 'subSourceId', 'subSourceIdentifier', 'notes', 'originId', 'parentId', 'customTransactionCode',
  'generalLedgerCustomCode', 'customerId', 'userId', 'externalRelationId', 'externalRelationKind', 'account', 'foreignCurrency',
  'foreignCurrencyAmount', 'reservationName', 'checkinDate', 'checkoutDate', 'reservationStatus', 'roomName', 'paymentDetails',
  'allocatedPayments', 'state', 'routedFrom', 'routingContext',
];

export const FOLIO_TRANSACTION_RESPONSE = object(
  TRANSACTION_PROPERTIES,
  Object.keys(TRANSACTION_PROPERTIES).filter((name) => !OPTIONAL_TRANSACTION_PROPERTIES.includes(name)),
);

const GROUP_TOTALS = object({ count: int32, quantity: int32, totalDebit: double, totalCredit: double });
const TOTALS = object(
  { count: int64, totalDebit: { type: 'number' }, totalCredit: { type: 'number' }, currency: str, currencyScale: { type: 'integer' } },
  ['count', 'totalDebit', 'totalCredit', 'currencyScale'],
);
const FOREIGN_CURRENCY_TOTALS = object({
  debit: { type: 'object', additionalProperties: { type: 'number' } },
  credit: { type: 'object', additionalProperties: { type: 'number' } },
});

export const LISTING_RESPONSE: TSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  ...object(
    {
      groups: { type: 'object', additionalProperties: object({ transactions: { type: 'array', items: FOLIO_TRANSACTION_RESPONSE }, totals: GROUP_TOTALS }) },
      nextPageToken: nullable(str),
      totals: TOTALS,
      foreignCurrencyTotals: FOREIGN_CURRENCY_TOTALS,
    },
    ['groups', 'nextPageToken'],
  ),
};

/** A validator of a whole listing answer; its errors name the path of each problem. */
export function listingValidator(): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: true });
  addFormats.default(ajv);
  return ajv.compile(LISTING_RESPONSE);
}
