// Every statement on the ledger tables `recipients`, `folios` and `transactions`: the import's
// upserts, the listing's page and totals, what an export and a night audit read, and the API's
// checks of what an export request refers to. The pieces of SQL these statements share are built
// elsewhere in this folder: which rows a filter selects (transaction-filter.ts), the columns of a
// transaction (transaction-view.ts) and the order and keyset (sort.ts). The `properties` table has
// its own module (packages/shared/src/properties/property-store.ts).

import type { PoolClient } from 'pg';
import type { TPgPool } from '../connections.js';
import type { TFolio, TRecipient, TTransaction } from './schemas.js';
import type { TSourceKind } from './enums.js';
import { afterSql, orderBySql, sortValuesSql, type TSortKey } from './sort.js';
import { SqlParams, transactionFilterSql, type TTransactionFilter } from './transaction-filter.js';
import { documentColumnsSql, transactionColumnsSql, transactionJoinsSql, type TDocumentTransactionRow, type TTransactionRow } from './transaction-view.js';
import type { TElectronicAddress, TPostalAddress, TTransactionVat } from './invoice-fields.js';

type TDb = TPgPool | PoolClient;
type TRecipientType = TRecipient['type'];

export interface TFolioRow {
  id: string;
  name: string;
  source_identifier: string | null;
}

export interface TRecipientRow {
  name: string;
  address: string | null;
  tax_id: string | null;
  document_number: string | null;
}

export type TSortedTransactionRow = TTransactionRow & Record<`sort_${number}`, string | null>;

export async function upsertRecipients(client: PoolClient, propertyId: string, rows: TRecipient[]): Promise<void> {
  await client.query(
    `INSERT INTO recipients (property_id, type, id, name, address, email, tax_id, document_number, vat_id, company_id, postal_address, electronic_address)
     SELECT $1, r.type, r.id, r.name, r.address, r.email, r."taxId", r."documentNumber", r."vatId", r."companyId", r."postalAddress", r."electronicAddress"
       FROM jsonb_to_recordset($2::jsonb) AS r(type text, id bigint, name text, address text, email text, "taxId" text, "documentNumber" text,
        "vatId" text, "companyId" text, "postalAddress" jsonb, "electronicAddress" jsonb)
     ON CONFLICT (property_id, type, id) DO UPDATE SET name = EXCLUDED.name, address = EXCLUDED.address, email = EXCLUDED.email,
       tax_id = EXCLUDED.tax_id, document_number = EXCLUDED.document_number, vat_id = EXCLUDED.vat_id, company_id = EXCLUDED.company_id,
       postal_address = EXCLUDED.postal_address, electronic_address = EXCLUDED.electronic_address, updated_at = now()`,
    [propertyId, JSON.stringify(rows)],
  );
}

export async function upsertFolios(client: PoolClient, propertyId: string, rows: TFolio[]): Promise<void> {
  await client.query(
    `INSERT INTO folios (property_id, id, source_kind, source_id, source_identifier, name, parent_id)
     SELECT $1, f.id, f."sourceKind", f."sourceId", f."sourceIdentifier", f.name, f."parentId"
       FROM jsonb_to_recordset($2::jsonb) AS f(id bigint, "sourceKind" text, "sourceId" bigint, "sourceIdentifier" text, name text, "parentId" bigint)
     ON CONFLICT (property_id, id) DO UPDATE SET source_kind = EXCLUDED.source_kind, source_id = EXCLUDED.source_id,
       source_identifier = EXCLUDED.source_identifier, name = EXCLUDED.name, parent_id = EXCLUDED.parent_id, updated_at = now()`,
    [propertyId, JSON.stringify(rows)],
  );
}

/** The stored chain (root id) of each of `ids` that is stored, by id. */
export async function storedRootIds(client: PoolClient, propertyId: string, ids: string[]): Promise<Map<string, string>> {
  const stored = await client.query<{ id: string; root_id: string }>('SELECT id, root_id FROM transactions WHERE property_id = $1 AND id = ANY($2::bigint[])', [
    propertyId,
    ids,
  ]);
  return new Map(stored.rows.map((row) => [row.id, row.root_id]));
}

/** The card token and card fields stored on those of `ids` whose payment names a token, by transaction id. */
export async function storedCardPayments(
  db: TDb,
  propertyId: string,
  ids: string[],
): Promise<Map<string, { cardTokenId: string; creditCardType: string; cardTrailingDigits: string }>> {
  const stored = await db.query<{ id: string; card_token_id: string; credit_card_type: string | null; card_trailing_digits: string | null }>(
    `SELECT id, payment->>'cardTokenId' AS card_token_id, payment->>'creditCardType' AS credit_card_type,
            payment->>'cardTrailingDigits' AS card_trailing_digits
       FROM transactions WHERE property_id = $1 AND id = ANY($2::bigint[]) AND payment ? 'cardTokenId'`,
    [propertyId, ids],
  );
  return new Map(
    stored.rows.map((row) => [row.id, { cardTokenId: row.card_token_id, creditCardType: row.credit_card_type ?? '', cardTrailingDigits: row.card_trailing_digits ?? '' }]),
  );
}

/** `rows` carry their resolved root id (import-ledger.ts resolves chains). */
export async function upsertTransactions(client: PoolClient, propertyId: string, rows: Array<TTransaction & { rootId: string | undefined }>): Promise<void> {
  await client.query(
    `INSERT INTO transactions (property_id, id, folio_id, source_kind, source_id, source_identifier, sub_source_id,
        sub_source_identifier, transaction_datetime, service_date, internal_transaction_code, internal_code_group,
        origin_id, payment_method, description, notes, quantity, amount, currency, posted, parent_id, root_id, is_void, user_id,
        custom_transaction_code, general_ledger_custom_code, customer_id, external_relation_id, external_relation_kind,
        account, foreign_currency, foreign_currency_amount, payment, vat)
     SELECT $1, t.id, t."folioId", t."sourceKind", t."sourceId", t."sourceIdentifier", t."subSourceId", t."subSourceIdentifier",
        t."transactionDatetime", t."serviceDate", t."internalTransactionCode", t."internalCodeGroup", t."originId",
        t."paymentMethod", t.description, t.notes, t.quantity, t.amount, t.currency, t.posted, t."parentId", t."rootId",
        t."isVoid", t."userId", t."customTransactionCode", t."generalLedgerCustomCode", t."customerId", t."externalRelationId",
        t."externalRelationKind", t.account, t."foreignCurrency", t."foreignCurrencyAmount", t.payment, t.vat
       FROM jsonb_to_recordset($2::jsonb) AS t(id bigint, "folioId" bigint, "sourceKind" text, "sourceId" bigint,
        "sourceIdentifier" text, "subSourceId" bigint, "subSourceIdentifier" text, "transactionDatetime" timestamptz,
        "serviceDate" date, "internalTransactionCode" text, "internalCodeGroup" text, "originId" bigint, "paymentMethod" text,
        description text, notes text, quantity numeric, amount numeric, currency text, posted boolean, "parentId" bigint,
        "rootId" bigint, "isVoid" boolean, "userId" text, "customTransactionCode" text, "generalLedgerCustomCode" text,
        "customerId" text, "externalRelationId" text, "externalRelationKind" text, account jsonb, "foreignCurrency" text,
        "foreignCurrencyAmount" numeric, payment jsonb, vat jsonb)
     ON CONFLICT (property_id, id) DO UPDATE SET folio_id = EXCLUDED.folio_id, source_kind = EXCLUDED.source_kind,
        source_id = EXCLUDED.source_id, source_identifier = EXCLUDED.source_identifier, sub_source_id = EXCLUDED.sub_source_id,
        sub_source_identifier = EXCLUDED.sub_source_identifier, transaction_datetime = EXCLUDED.transaction_datetime,
        service_date = EXCLUDED.service_date, internal_transaction_code = EXCLUDED.internal_transaction_code,
        internal_code_group = EXCLUDED.internal_code_group, origin_id = EXCLUDED.origin_id, payment_method = EXCLUDED.payment_method,
        description = EXCLUDED.description, notes = EXCLUDED.notes, quantity = EXCLUDED.quantity, amount = EXCLUDED.amount,
        currency = EXCLUDED.currency, posted = EXCLUDED.posted, parent_id = EXCLUDED.parent_id, root_id = EXCLUDED.root_id,
        is_void = EXCLUDED.is_void, user_id = EXCLUDED.user_id, custom_transaction_code = EXCLUDED.custom_transaction_code,
        general_ledger_custom_code = EXCLUDED.general_ledger_custom_code, customer_id = EXCLUDED.customer_id,
        external_relation_id = EXCLUDED.external_relation_id, external_relation_kind = EXCLUDED.external_relation_kind,
        account = EXCLUDED.account, foreign_currency = EXCLUDED.foreign_currency,
        foreign_currency_amount = EXCLUDED.foreign_currency_amount, payment = EXCLUDED.payment, vat = EXCLUDED.vat, updated_at = now()`,
    [propertyId, JSON.stringify(rows)],
  );
}

/** A source exists when the property has a folio or a transaction of it. */
export async function sourceExists(db: TDb, propertyId: string, sourceKind: TSourceKind, sourceId: string): Promise<boolean> {
  const result = await db.query(
    `SELECT 1 FROM folios WHERE property_id = $1 AND source_kind = $2 AND source_id = $3
       UNION ALL
       SELECT 1 FROM transactions WHERE property_id = $1 AND source_kind = $2 AND source_id = $3
       LIMIT 1`,
    [propertyId, sourceKind, sourceId],
  );
  return (result.rowCount ?? 0) > 0;
}

/** How many of `folioIds` are folios of the source. */
export async function countFoliosOfSource(db: TDb, propertyId: string, sourceKind: TSourceKind, sourceId: string, folioIds: string[]): Promise<number> {
  const found = await db.query<{ id: string }>(
    'SELECT id FROM folios WHERE property_id = $1 AND source_kind = $2 AND source_id = $3 AND id = ANY($4::bigint[])',
    [propertyId, sourceKind, sourceId, folioIds],
  );
  return found.rowCount ?? 0;
}

/** The source's folios in id order; only `folioIds` when given. */
export async function foliosOfSource(
  db: TDb,
  propertyId: string,
  sourceKind: TSourceKind,
  sourceId: string,
  folioIds: string[] | undefined,
): Promise<TFolioRow[]> {
  const result = await db.query<TFolioRow>(
    `SELECT id, name, source_identifier FROM folios
        WHERE property_id = $1 AND source_kind = $2 AND source_id = $3 AND ($4::bigint[] IS NULL OR id = ANY($4::bigint[]))
        ORDER BY id`,
    [propertyId, sourceKind, sourceId, folioIds ?? null],
  );
  return result.rows;
}

export async function recipientExists(db: TDb, propertyId: string, type: TRecipientType, id: string): Promise<boolean> {
  const found = await db.query('SELECT 1 FROM recipients WHERE property_id = $1 AND type = $2 AND id = $3', [propertyId, type, id]);
  return Boolean(found.rowCount);
}

export async function findRecipient(db: TDb, propertyId: string, type: TRecipientType, id: string): Promise<TRecipientRow | undefined> {
  const result = await db.query<TRecipientRow>(
    'SELECT name, address, tax_id, document_number FROM recipients WHERE property_id = $1 AND type = $2 AND id = $3',
    [
    propertyId,
    type,
    id,
  ],
  );
  return result.rows[0];
}

/** The folios of a source: imported as folios, or named by its transactions; in id order. */
export async function folioIdsOfSource(db: TDb, propertyId: string, sourceKind: TSourceKind, sourceId: string): Promise<string[]> {
  const result = await db.query<{ id: string }>(
    `SELECT id::text AS id FROM folios WHERE property_id = $1 AND source_kind = $2 AND source_id = $3
     UNION
     SELECT DISTINCT folio_id::text FROM transactions WHERE property_id = $1 AND source_kind = $2 AND source_id = $3
     ORDER BY 1`,
    [propertyId, sourceKind, sourceId],
  );
  return result.rows.map((row) => row.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
}

/** The vault card tokens the payments of these folios name. */
export async function cardTokenIdsOfFolios(db: TDb, propertyId: string, folioIds: string[]): Promise<string[]> {
  const result = await db.query<{ token: string }>(
    `SELECT DISTINCT payment->>'cardTokenId' AS token FROM transactions
      WHERE property_id = $1 AND folio_id = ANY($2::bigint[]) AND internal_code_group = 'PAYMENT' AND payment ? 'cardTokenId'`,
    [propertyId, folioIds],
  );
  return result.rows.map((row) => row.token);
}

/** A recipient as an invoice's buyer reads it (docs/fiscal-documents.md#issuing). */
export interface TRecipientPartyRow {
  name: string;
  email: string | null;
  vat_id: string | null;
  company_id: string | null;
  postal_address: TPostalAddress | null;
  electronic_address: TElectronicAddress | null;
}

export async function findRecipientParty(db: TDb, propertyId: string, type: TRecipientType, id: string): Promise<TRecipientPartyRow | undefined> {
  const result = await db.query<TRecipientPartyRow>(
    'SELECT name, email, vat_id, company_id, postal_address, electronic_address FROM recipients WHERE property_id = $1 AND type = $2 AND id = $3',
    [propertyId, type, id],
  );
  return result.rows[0];
}

/** A transaction as an invoice reads it: its own columns and whether its chain holds a void. */
export interface TInvoiceRowRecord {
  id: string;
  folio_id: string;
  source_identifier: string | null;
  transaction_datetime: Date;
  service_date: string;
  internal_code_group: TTransactionRow['internal_code_group'];
  description: string;
  notes: string | null;
  quantity: string;
  amount: string;
  currency: string;
  posted: boolean;
  parent_id: string | null;
  origin_id: string | null;
  payment_method: string | null;
  vat: TTransactionVat | null;
  payment: TTransactionRow['payment'];
  chain_voided: boolean;
}

/** Every transaction of the folios, voided and pending included, by folio, time and id. */
export async function invoiceRowsOfFolios(db: TDb, propertyId: string, folioIds: string[]): Promise<TInvoiceRowRecord[]> {
  const result = await db.query<TInvoiceRowRecord>(
    `SELECT t.id, t.folio_id, t.source_identifier, t.transaction_datetime, to_char(t.service_date, 'YYYY-MM-DD') AS service_date, t.internal_code_group,
            t.description, t.notes, t.quantity::text AS quantity, t.amount::text AS amount, t.currency, t.posted, t.parent_id,
            t.origin_id, t.payment_method, t.vat, t.payment,
            EXISTS (SELECT 1 FROM transactions v WHERE v.property_id = t.property_id AND v.root_id = t.root_id AND v.is_void) AS chain_voided
       FROM transactions t WHERE t.property_id = $1 AND t.folio_id = ANY($2::bigint[])
      ORDER BY t.folio_id, t.transaction_datetime, t.id`,
    [propertyId, folioIds],
  );
  return result.rows;
}

/**
 * Every row the filter selects, in the order of `keys`, as a folio document reads it (no joined
 * table: TDocumentTransactionRow), in keyset batches of `batch` rows, each yielded whole: an export
 * of 50,000 rows never holds more than one batch of database rows beside what its caller keeps of
 * them, and pays one step of the generator a batch, not one a row.
 */
export async function* selectTransactions(db: TDb, filter: TTransactionFilter, keys: TSortKey[], batch = 2_000): AsyncGenerator<TDocumentTransactionRow[]> {
  let after: Array<string | null> | undefined;
  for (;;) {
    const page = await sortedPage<TDocumentTransactionRow>(db, filter, keys, after, batch, () => documentColumnsSql(), '');
    if (page.length) yield page;
    const last = page[page.length - 1];
    if (!last || page.length < batch) return;
    after = keys.map((_, i) => last[`sort_${i}`] ?? null);
  }
}

/**
 * Up to `limit` rows the filter selects after the sort values `after` (from the start without),
 * each with its sort values as text (`sort_0`, `sort_1`, …) for the next page token. The page is
 * chosen first and only its rows are joined to the tables beside them (then put back in order).
 */
export function pageOfTransactions(
  db: TDb,
  filter: TTransactionFilter,
  timezone: string,
  keys: TSortKey[],
  after: Array<string | null> | undefined,
  limit: number,
): Promise<TSortedTransactionRow[]> {
  return sortedPage<TTransactionRow>(db, filter, keys, after, limit, (params) => transactionColumnsSql(params.add(timezone)), transactionJoinsSql());
}

/** A page of the filter's rows in the order of `keys`: `columns` of each (their parameters added first), `joins` beside. */
async function sortedPage<TRow>(
  db: TDb,
  filter: TTransactionFilter,
  keys: TSortKey[],
  after: Array<string | null> | undefined,
  limit: number,
  columns: (params: SqlParams) => string,
  joins: string,
): Promise<Array<TRow & Record<`sort_${number}`, string | null>>> {
  const params = new SqlParams();
  const selected = columns(params);
  const where = transactionFilterSql(filter, params);
  const keyset = after ? ` AND ${afterSql(keys, after, params)}` : '';
  const limitParam = params.add(limit, 'int');
  const page = await db.query<TRow & Record<`sort_${number}`, string | null>>(
    `SELECT ${selected}, ${sortValuesSql(keys)}
         FROM (SELECT * FROM transactions t WHERE ${where}${keyset} ORDER BY ${orderBySql(keys)} LIMIT ${limitParam}) t
         ${joins}
        ORDER BY ${orderBySql(keys)}`,
    params.values,
  );
  return page.rows;
}

/**
 * How many rows the filter selects, counting no further than `upTo` when given: whether a source
 * is past a bound costs at most that many index entries, whatever its size.
 */
export async function countTransactions(db: TDb, filter: TTransactionFilter, upTo?: number): Promise<number> {
  const params = new SqlParams();
  const where = transactionFilterSql(filter, params);
  const limit = upTo === undefined ? '' : ` LIMIT ${params.add(upTo, 'int')}`;
  const result = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM (SELECT 1 FROM transactions t WHERE ${where}${limit}) selected`, params.values);
  return result.rows[0]!.count;
}

/** Count, debits and credits (decimal text, summed in NUMERIC) of every row the filter selects. */
export async function sumTransactions(db: TDb, filter: TTransactionFilter, creditGroups: Iterable<string>): Promise<{ count: string; debit: string; credit: string }> {
  const params = new SqlParams();
  const where = transactionFilterSql(filter, params);
  const credits = params.add([...creditGroups], 'text[]');
  const result = await db.query<{ count: string; debit: string; credit: string }>(
    `SELECT count(*)::text AS count,
            COALESCE(sum(t.amount) FILTER (WHERE NOT t.internal_code_group = ANY(${credits})), 0)::text AS debit,
            COALESCE(-sum(t.amount) FILTER (WHERE t.internal_code_group = ANY(${credits})), 0)::text AS credit
       FROM transactions t WHERE ${where}`,
    params.values,
  );
  return result.rows[0]!;
}

/**
 * Net credit (decimal text, NUMERIC) of every row the filter selects, by tender currency: PAYMENT
 * rows with a foreign currency as −Σ foreign_currency_amount under it, every other credit row as
 * −Σ amount under `propertyCurrency` (the row's currency when the property has none). `foreign`
 * marks the entries of foreign-tendered payments.
 */
export async function foreignCurrencyCredits(
  db: TDb,
  filter: TTransactionFilter,
  creditGroups: Iterable<string>,
  propertyCurrency: string | null,
): Promise<Array<{ currency: string; foreign: boolean; net: string }>> {
  const params = new SqlParams();
  const where = transactionFilterSql(filter, params);
  const credits = params.add([...creditGroups], 'text[]');
  const home = params.add(propertyCurrency, 'text');
  const tendered = `(t.internal_code_group = 'PAYMENT' AND t.foreign_currency IS NOT NULL)`;
  const result = await db.query<{ currency: string; foreign: boolean; net: string }>(
    `SELECT CASE WHEN ${tendered} THEN t.foreign_currency::text ELSE COALESCE(${home}, t.currency::text) END AS currency,
            bool_or(${tendered}) AS foreign,
            (-sum(CASE WHEN ${tendered} THEN t.foreign_currency_amount ELSE t.amount END))::text AS net
       FROM transactions t WHERE ${where} AND t.internal_code_group = ANY(${credits})
      GROUP BY 1 ORDER BY 1`,
    params.values,
  );
  return result.rows;
}

/**
 * Every RESERVATION and HOUSE_ACCOUNT with a transaction on a local date in `timezone`
 * (PostgreSQL turns the local midnights into instants, DST included).
 */
export async function sourcesWithTransactionsOn(
  db: TDb,
  propertyId: string,
  localDate: string,
  timezone: string,
): Promise<Array<{ source_kind: 'RESERVATION' | 'HOUSE_ACCOUNT'; source_id: string }>> {
  const result = await db.query<{ source_kind: 'RESERVATION' | 'HOUSE_ACCOUNT'; source_id: string }>(
    `SELECT DISTINCT source_kind, source_id FROM transactions
      WHERE property_id = $1 AND source_kind IN ('RESERVATION', 'HOUSE_ACCOUNT')
        AND transaction_datetime >= ($2::date::timestamp AT TIME ZONE $3)
        AND transaction_datetime < (($2::date + 1)::timestamp AT TIME ZONE $3)
      ORDER BY source_kind, source_id`,
    [propertyId, localDate, timezone],
  );
  return result.rows;
}
