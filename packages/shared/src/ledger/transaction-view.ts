import type { TCodeGroup, TSourceKind } from './schemas.js';
import { currencyScale, decimalToNumber } from './money.js';

/**
 * A transaction as the listing answers it (the accounting API's FolioTransactionResponse: ids as
 * strings, amounts as decimal numbers) and the SQL that reads it.
 */
export interface TTransactionRow {
  id: string;
  property_id: string;
  folio_id: string;
  source_kind: TSourceKind;
  source_id: string;
  source_identifier: string | null;
  sub_source_id: string | null;
  sub_source_identifier: string | null;
  transaction_datetime: Date;
  property_time: string;
  property_date: string;
  service_date: string;
  internal_transaction_code: string;
  internal_code_group: TCodeGroup;
  origin_id: string | null;
  payment_method: string | null;
  description: string;
  notes: string | null;
  quantity: string;
  amount: string;
  currency: string;
  posted: boolean;
  parent_id: string | null;
  root_id: string;
  is_void: boolean;
  chain_voided: boolean;
  user_id: string | null;
  created_at: Date;
}

/** Columns of TTransactionRow; `$tz` is the property's time zone parameter. */
export function transactionColumnsSql(tz: string, alias = 't'): string {
  const t = alias;
  return `${t}.id, ${t}.property_id, ${t}.folio_id, ${t}.source_kind, ${t}.source_id, ${t}.source_identifier, ${t}.sub_source_id,
    ${t}.sub_source_identifier, ${t}.transaction_datetime,
    to_char(${t}.transaction_datetime AT TIME ZONE ${tz}, 'YYYY-MM-DD"T"HH24:MI:SS') AS property_time,
    to_char(${t}.transaction_datetime AT TIME ZONE ${tz}, 'YYYY-MM-DD') AS property_date,
    to_char(${t}.service_date, 'YYYY-MM-DD') AS service_date, ${t}.internal_transaction_code, ${t}.internal_code_group,
    ${t}.origin_id, ${t}.payment_method, ${t}.description, ${t}.notes, ${t}.quantity::text AS quantity,
    ${t}.amount::text AS amount, ${t}.currency, ${t}.posted, ${t}.parent_id, ${t}.root_id, ${t}.is_void,
    EXISTS (SELECT 1 FROM transactions v WHERE v.property_id = ${t}.property_id AND v.root_id = ${t}.root_id AND v.is_void) AS chain_voided,
    ${t}.user_id, ${t}.created_at`;
}

const TRANSACTION_TYPES: Record<TCodeGroup, string> = {
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

export function toTransactionView(row: TTransactionRow) {
  return {
    id: row.id,
    propertyId: row.property_id,
    folioId: row.folio_id,
    sourceKind: row.source_kind,
    sourceId: row.source_id,
    ...(row.source_identifier ? { sourceIdentifier: row.source_identifier } : {}),
    ...(row.sub_source_id ? { subSourceId: row.sub_source_id } : {}),
    ...(row.sub_source_identifier ? { subSourceIdentifier: row.sub_source_identifier } : {}),
    transactionDatetime: row.transaction_datetime.toISOString(),
    transactionDatetimePropertyTime: row.property_time,
    serviceDate: row.service_date,
    internalTransactionCode: row.internal_transaction_code,
    internalCodeGroup: row.internal_code_group,
    // The reference derives the type from the code: a code ending in "A" is an adjustment.
    transactionType: row.internal_transaction_code.endsWith('A') ? 'adjustment' : TRANSACTION_TYPES[row.internal_code_group],
    ...(row.origin_id ? { originId: row.origin_id } : {}),
    ...(row.payment_method ? { paymentDetails: { paymentMethod: row.payment_method } } : {}),
    description: row.description,
    ...(row.notes ? { notes: row.notes } : {}),
    quantity: decimalToNumber(row.quantity),
    amount: decimalToNumber(row.amount),
    currency: row.currency.trim(),
    currencyScale: currencyScale(row.currency.trim()),
    posted: row.posted,
    ...(row.parent_id ? { parentId: row.parent_id } : {}),
    rootId: row.root_id,
    isVoid: row.is_void,
    ...(row.chain_voided && !row.is_void ? { state: 'VOIDED' as const } : {}),
    ...(row.user_id ? { userId: row.user_id } : {}),
    createdAt: row.created_at.toISOString(),
  };
}

export type TTransactionView = ReturnType<typeof toTransactionView>;
