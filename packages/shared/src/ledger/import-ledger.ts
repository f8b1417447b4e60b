import type { PoolClient } from 'pg';
import type { TPgPool } from '../connections.js';
import { inTransaction } from '../db/transaction.js';
import { AppError, type TFieldError } from '../errors.js';
import type { TFolio, TImportRequest, TProperty, TRecipient, TTransaction } from './schemas.js';

/**
 * Upserts a batch of ledger records for one property in one PostgreSQL transaction: all of it or
 * none of it. Rows go in as one jsonb parameter per chunk (jsonb_to_recordset), so a batch of
 * tens of thousands of transactions is a handful of statements.
 */
export interface TImportCounts {
  property: number;
  recipients: number;
  folios: number;
  transactions: number;
}

const CHUNK = 5_000;

/** Field errors for records that belong elsewhere or repeat an id; empty when the batch is sound. */
export function importProblems(propertyId: string, data: TImportRequest): TFieldError[] {
  const problems: TFieldError[] = [];
  if (data.property && data.property.id !== propertyId) {
    problems.push({ path: 'property.id', message: 'must be the X-Property-Id of the request' });
  }
  const check = <T extends { id: string; propertyId?: string }>(list: T[], name: string, key: (record: T) => string) => {
    const seen = new Set<string>();
    list.forEach((record, index) => {
      if (record.propertyId !== undefined && record.propertyId !== propertyId) {
        problems.push({ path: `${name}.${index}.propertyId`, message: 'belongs to another property than X-Property-Id' });
      }
      const id = key(record);
      if (seen.has(id)) problems.push({ path: `${name}.${index}.id`, message: 'appears twice in this request' });
      seen.add(id);
    });
  };
  check(data.recipients, 'recipients', (r: TRecipient) => `${r.type}:${r.id}`);
  check(data.folios, 'folios', (f: TFolio) => f.id);
  check(data.transactions, 'transactions', (t: TTransaction) => t.id);
  return problems;
}

export async function importLedger(pool: TPgPool, propertyId: string, data: TImportRequest): Promise<TImportCounts> {
  const problems = importProblems(propertyId, data);
  if (problems.length > 0) throw AppError.invalid(problems.slice(0, 100), 'Some records do not belong to this property or repeat an id; nothing was written.');
  await inTransaction(pool, async (client) => {
    if (data.property) await upsertProperty(client, data.property);
    for (let i = 0; i < data.recipients.length; i += CHUNK) await upsertRecipients(client, propertyId, data.recipients.slice(i, i + CHUNK));
    for (let i = 0; i < data.folios.length; i += CHUNK) await upsertFolios(client, propertyId, data.folios.slice(i, i + CHUNK));
    const roots = await resolveRoots(client, propertyId, data.transactions);
    for (let i = 0; i < data.transactions.length; i += CHUNK) {
      await upsertTransactions(client, propertyId, data.transactions.slice(i, i + CHUNK), roots);
    }
  });
  return {
    property: data.property ? 1 : 0,
    recipients: data.recipients.length,
    folios: data.folios.length,
    transactions: data.transactions.length,
  };
}

async function upsertProperty(client: PoolClient, property: TProperty): Promise<void> {
  await client.query(
    `INSERT INTO properties (id, name, address, currency, timezone, language, gateway_mode, night_audit_time)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, address = EXCLUDED.address, currency = EXCLUDED.currency,
       timezone = EXCLUDED.timezone, language = EXCLUDED.language, gateway_mode = EXCLUDED.gateway_mode,
       night_audit_time = EXCLUDED.night_audit_time, updated_at = now()`,
    [property.id, property.name, property.address ?? null, property.currency, property.timezone, property.language ?? null, property.gatewayMode, property.nightAuditTime ?? null],
  );
}

async function upsertRecipients(client: PoolClient, propertyId: string, rows: TRecipient[]): Promise<void> {
  await client.query(
    `INSERT INTO recipients (property_id, type, id, name, address, email, tax_id, document_number)
     SELECT $1, r.type, r.id, r.name, r.address, r.email, r."taxId", r."documentNumber"
       FROM jsonb_to_recordset($2::jsonb) AS r(type text, id bigint, name text, address text, email text, "taxId" text, "documentNumber" text)
     ON CONFLICT (property_id, type, id) DO UPDATE SET name = EXCLUDED.name, address = EXCLUDED.address, email = EXCLUDED.email,
       tax_id = EXCLUDED.tax_id, document_number = EXCLUDED.document_number, updated_at = now()`,
    [propertyId, JSON.stringify(rows)],
  );
}

async function upsertFolios(client: PoolClient, propertyId: string, rows: TFolio[]): Promise<void> {
  await client.query(
    `INSERT INTO folios (property_id, id, source_kind, source_id, source_identifier, name, parent_id)
     SELECT $1, f.id, f."sourceKind", f."sourceId", f."sourceIdentifier", f.name, f."parentId"
       FROM jsonb_to_recordset($2::jsonb) AS f(id bigint, "sourceKind" text, "sourceId" bigint, "sourceIdentifier" text, name text, "parentId" bigint)
     ON CONFLICT (property_id, id) DO UPDATE SET source_kind = EXCLUDED.source_kind, source_id = EXCLUDED.source_id,
       source_identifier = EXCLUDED.source_identifier, name = EXCLUDED.name, parent_id = EXCLUDED.parent_id, updated_at = now()`,
    [propertyId, JSON.stringify(rows)],
  );
}

/**
 * The chain (root id) of each transaction: its rootId when given; else its parent's chain (a
 * void without a rootId joins the chain of what it voids), found in this batch or already
 * stored; else its own id.
 */
async function resolveRoots(client: PoolClient, propertyId: string, rows: TTransaction[]): Promise<Map<string, string>> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const missingParents = [...new Set(rows.filter((r) => !r.rootId && r.parentId && !byId.has(r.parentId)).map((r) => r.parentId!))];
  const storedRoots = new Map<string, string>();
  if (missingParents.length > 0) {
    const stored = await client.query<{ id: string; root_id: string }>(
      'SELECT id, root_id FROM transactions WHERE property_id = $1 AND id = ANY($2::bigint[])',
      [propertyId, missingParents],
    );
    for (const row of stored.rows) storedRoots.set(row.id, row.root_id);
  }
  const roots = new Map<string, string>();
  const rootOf = (row: TTransaction, depth = 0): string => {
    const known = roots.get(row.id);
    if (known) return known;
    let root = row.rootId ?? row.id;
    if (!row.rootId && row.parentId && depth < 50) {
      const parent = byId.get(row.parentId);
      root = parent && parent.id !== row.id ? rootOf(parent, depth + 1) : (storedRoots.get(row.parentId) ?? row.parentId);
    }
    roots.set(row.id, root);
    return root;
  };
  for (const row of rows) rootOf(row);
  return roots;
}

async function upsertTransactions(client: PoolClient, propertyId: string, rows: TTransaction[], roots: Map<string, string>): Promise<void> {
  const records = rows.map((row) => ({ ...row, rootId: roots.get(row.id) }));
  await client.query(
    `INSERT INTO transactions (property_id, id, folio_id, source_kind, source_id, source_identifier, sub_source_id,
        sub_source_identifier, transaction_datetime, service_date, internal_transaction_code, internal_code_group,
        origin_id, payment_method, description, notes, quantity, amount, currency, posted, parent_id, root_id, is_void, user_id)
     SELECT $1, t.id, t."folioId", t."sourceKind", t."sourceId", t."sourceIdentifier", t."subSourceId", t."subSourceIdentifier",
        t."transactionDatetime", t."serviceDate", t."internalTransactionCode", t."internalCodeGroup", t."originId",
        t."paymentMethod", t.description, t.notes, t.quantity, t.amount, t.currency, t.posted, t."parentId", t."rootId",
        t."isVoid", t."userId"
       FROM jsonb_to_recordset($2::jsonb) AS t(id bigint, "folioId" bigint, "sourceKind" text, "sourceId" bigint,
        "sourceIdentifier" text, "subSourceId" bigint, "subSourceIdentifier" text, "transactionDatetime" timestamptz,
        "serviceDate" date, "internalTransactionCode" text, "internalCodeGroup" text, "originId" bigint, "paymentMethod" text,
        description text, notes text, quantity numeric, amount numeric, currency text, posted boolean, "parentId" bigint,
        "rootId" bigint, "isVoid" boolean, "userId" text)
     ON CONFLICT (property_id, id) DO UPDATE SET folio_id = EXCLUDED.folio_id, source_kind = EXCLUDED.source_kind,
        source_id = EXCLUDED.source_id, source_identifier = EXCLUDED.source_identifier, sub_source_id = EXCLUDED.sub_source_id,
        sub_source_identifier = EXCLUDED.sub_source_identifier, transaction_datetime = EXCLUDED.transaction_datetime,
        service_date = EXCLUDED.service_date, internal_transaction_code = EXCLUDED.internal_transaction_code,
        internal_code_group = EXCLUDED.internal_code_group, origin_id = EXCLUDED.origin_id, payment_method = EXCLUDED.payment_method,
        description = EXCLUDED.description, notes = EXCLUDED.notes, quantity = EXCLUDED.quantity, amount = EXCLUDED.amount,
        currency = EXCLUDED.currency, posted = EXCLUDED.posted, parent_id = EXCLUDED.parent_id, root_id = EXCLUDED.root_id,
        is_void = EXCLUDED.is_void, user_id = EXCLUDED.user_id, updated_at = now()`,
    [propertyId, JSON.stringify(records)],
  );
}
