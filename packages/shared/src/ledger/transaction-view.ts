// A transaction as the listing and the exports read it, and the SQL that reads it: its own columns,
// and from the tables beside it the stay (reservation and booked room), who posted it (users) and
// the guest it names (a GUEST recipient whose id is its customerId). transaction-response.ts turns
// a row into the listing's answer.

import type { TCodeGroup, TReservationStatus, TSourceKind } from './enums.js';
import type { TAccount } from './stay-schemas.js';

/** The payment object as stored (jsonb): amounts as decimal text. */
export interface TStoredPayment {
  paymentId: string;
  transactionType: string;
  gateway?: string;
  creditCardType?: string;
  cardTrailingDigits?: string;
  amountPaid?: string;
  amountRefunded?: string;
  processingStatus?: string;
  cardTokenId?: string;
}

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
  /** Minutes east of UTC of the property's time zone at transaction_datetime. */
  utc_offset_minutes: number;
  custom_transaction_code: string | null;
  general_ledger_custom_code: string | null;
  customer_id: string | null;
  external_relation_id: string | null;
  external_relation_kind: string | null;
  account: TAccount | null;
  foreign_currency: string | null;
  foreign_currency_amount: string | null;
  payment: TStoredPayment | null;
  /** From the reservation (RESERVATION sources that have one imported). */
  reservation_guest_name: string | null;
  reservation_status: TReservationStatus | null;
  checkin_date: string | null;
  checkout_date: string | null;
  /** From the booked room named by sub_source_id. */
  room_name: string | null;
  room_type_name: string | null;
  room_archived: boolean | null;
  /** From the user named by user_id; null when not imported. */
  user_first_name: string | null;
  user_last_name: string | null;
  user_email: string | null;
  /** The GUEST recipient named by customer_id. */
  guest_name: string | null;
}

/**
 * Columns of TTransactionRow: a document's (documentColumnsSql) and the rest; `$tz` is the
 * property's time zone parameter. The columns of r, rr, u and g come from transactionJoinsSql.
 */
export function transactionColumnsSql(tz: string, alias = 't'): string {
  const t = alias;
  return `${documentColumnsSql(t)}, ${t}.property_id, ${t}.source_kind, ${t}.source_id,
    to_char(${t}.transaction_datetime AT TIME ZONE ${tz}, 'YYYY-MM-DD"T"HH24:MI:SS') AS property_time,
    to_char(${t}.transaction_datetime AT TIME ZONE ${tz}, 'YYYY-MM-DD') AS property_date,
    ${t}.origin_id, ${t}.payment_method, ${t}.currency, ${t}.user_id, ${t}.created_at,
    (extract(epoch FROM (${t}.transaction_datetime AT TIME ZONE ${tz}) - (${t}.transaction_datetime AT TIME ZONE 'UTC')) / 60)::int AS utc_offset_minutes,
    ${t}.custom_transaction_code, ${t}.general_ledger_custom_code, ${t}.customer_id, ${t}.external_relation_id,
    ${t}.external_relation_kind, ${t}.account,
    r.guest_name AS reservation_guest_name, r.status AS reservation_status,
    to_char(r.checkin_date, 'YYYY-MM-DD') AS checkin_date, to_char(r.checkout_date, 'YYYY-MM-DD') AS checkout_date,
    rr.room_name, rr.room_type_name, rr.archived AS room_archived,
    u.first_name AS user_first_name, u.last_name AS user_last_name, u.email AS user_email, g.name AS guest_name`;
}

/**
 * What a folio document keeps of a transaction (the export's read, ledger-store.ts
 * selectTransactions): the transaction's own columns that the document prints, totals or groups by,
 * none of the tables beside it. An export reads up to EXPORT_MAX_ROWS of these, and every column it
 * does not need costs its decoding and its garbage per row.
 */
export type TDocumentTransactionRow = Pick<
  TTransactionRow,
  | 'id' | 'folio_id' | 'source_identifier' | 'sub_source_id' | 'sub_source_identifier' | 'transaction_datetime' | 'service_date'
  | 'internal_transaction_code' | 'internal_code_group' | 'description' | 'notes' | 'quantity' | 'amount' | 'posted' | 'parent_id'
  | 'root_id' | 'is_void' | 'chain_voided' | 'foreign_currency' | 'foreign_currency_amount' | 'payment'
>;

/** Columns of TDocumentTransactionRow: the transaction's own, each as the listing reads it too (transactionColumnsSql). */
export function documentColumnsSql(alias = 't'): string {
  const t = alias;
  return `${t}.id, ${t}.folio_id, ${t}.source_identifier, ${t}.sub_source_id, ${t}.sub_source_identifier, ${t}.transaction_datetime,
    to_char(${t}.service_date, 'YYYY-MM-DD') AS service_date, ${t}.internal_transaction_code, ${t}.internal_code_group,
    ${t}.description, ${t}.notes, ${t}.quantity::text AS quantity, ${t}.amount::text AS amount, ${t}.posted, ${t}.parent_id, ${t}.root_id, ${t}.is_void,
    EXISTS (SELECT 1 FROM transactions v WHERE v.property_id = ${t}.property_id AND v.root_id = ${t}.root_id AND v.is_void) AS chain_voided,
    ${t}.foreign_currency, ${t}.foreign_currency_amount::text AS foreign_currency_amount, ${t}.payment`;
}

/**
 * The recipient id a customer_id names, as a bigint: customer_id is a free string, and it names a
 * recipient only when it is that recipient's id as the service writes it (digits, no leading zero,
 * within int64); otherwise NULL, which joins nothing. CASE tests in order, so the casts only ever
 * see digits that fit.
 */
function customerRecipientIdSql(t: string): string {
  return `CASE WHEN ${t}.customer_id !~ '^[1-9][0-9]{0,18}$' THEN NULL
      WHEN ${t}.customer_id::numeric > 9223372036854775807 THEN NULL
      ELSE ${t}.customer_id::bigint END`;
}

/** The tables beside a transaction, each by primary key (a row finds at most one of each). */
export function transactionJoinsSql(alias = 't'): string {
  const t = alias;
  return `LEFT JOIN reservations r ON ${t}.source_kind = 'RESERVATION' AND r.property_id = ${t}.property_id AND r.id = ${t}.source_id
    LEFT JOIN reservation_rooms rr ON ${t}.source_kind = 'RESERVATION' AND rr.property_id = ${t}.property_id AND rr.id = ${t}.sub_source_id
    LEFT JOIN users u ON u.property_id = ${t}.property_id AND u.id = ${t}.user_id
    LEFT JOIN recipients g ON g.property_id = ${t}.property_id AND g.type = 'GUEST' AND g.id = ${customerRecipientIdSql(t)}`;
}

