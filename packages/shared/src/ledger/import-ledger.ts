import type { PoolClient } from 'pg';
import type { TPgPool } from '../connections.js';
import { inTransaction } from '../db/transaction.js';
import { AppError, type TFieldError } from '../errors.js';
import { upsertProperty } from '../properties/property-store.js';
import { storedRootIds, upsertFolios, upsertRecipients, upsertTransactions } from './ledger-store.js';
import type { TFolio, TImportRequest, TRecipient, TTransaction } from './schemas.js';

/**
 * Upserts a batch of ledger records for one property in one PostgreSQL transaction: all of it or
 * none of it. Rows go in as one jsonb parameter per chunk (jsonb_to_recordset), so a batch of
 * tens of thousands of transactions is a handful of statements (they live in ledger-store.ts and,
 * for the property, ../properties/property-store.ts).
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
      const chunk = data.transactions.slice(i, i + CHUNK);
      await upsertTransactions(client, propertyId, chunk.map((row) => ({ ...row, rootId: roots.get(row.id) })));
    }
  });
  return {
    property: data.property ? 1 : 0,
    recipients: data.recipients.length,
    folios: data.folios.length,
    transactions: data.transactions.length,
  };
}

/**
 * The chain (root id) of each transaction: its rootId when given; else its parent's chain (a
 * void without a rootId joins the chain of what it voids), found in this batch or already
 * stored; else its own id.
 */
async function resolveRoots(client: PoolClient, propertyId: string, rows: TTransaction[]): Promise<Map<string, string>> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const missingParents = [...new Set(rows.filter((r) => !r.rootId && r.parentId && !byId.has(r.parentId)).map((r) => r.parentId!))];
  const storedRoots = missingParents.length > 0 ? await storedRootIds(client, propertyId, missingParents) : new Map<string, string>();
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
