// Upserts a batch of ledger records for one property in one PostgreSQL transaction: all of it or
// none of it. Rows go in as one jsonb parameter per chunk (jsonb_to_recordset), so a batch of
// tens of thousands of transactions is a handful of statements (they live in ledger-store.ts and,
// for the property, ../properties/property-store.ts).

import type { PoolClient } from 'pg';
import type { TPgPool } from '../connections.js';
import { inTransaction } from '../db/transaction.js';
import { AppError, type TFieldError } from '../errors.js';
import { upsertProperty } from '../properties/property-store.js';
import { storedCardPayments, storedRootIds, upsertFolios, upsertRecipients, upsertTransactions } from './ledger-store.js';
import type { TFolio, TImportRequest, TRecipient, TTransaction } from './schemas.js';
import type { TReservation, TUser } from './stay-schemas.js';
import { upsertReservations, upsertUsers } from './stay-store.js';
import { pacer } from './pacer.js';

/** How many records of each kind a batch upserted. */
export interface TImportCounts {
  property: number;
  recipients: number;
  reservations: number;
  users: number;
  folios: number;
  transactions: number;
}

/** What the vault knows of a card token: the payment's card fields (docs/ledger.md#card-payments). */
export interface TCardTokenLabel {
  creditCardType: string;
  cardTrailingDigits: string;
}
/**
 * The labels of those of `tokenIds` that are current tokens (test or live) of the property; an id
 * missing from the answer is not one. The API asks the vault workers; ledger:import reads the vault.
 */
export type TCardTokenResolver = (tokenIds: string[]) => Promise<Map<string, TCardTokenLabel>>;

// Rows per statement. Serialising a chunk's jsonb parameter is one stretch of work on the event
// loop: 1,000 rows keep it to a few milliseconds while the statements stay few (60 for 60,000 rows).
const CHUNK = 1_000;

/**
 * Field errors for records that belong elsewhere or repeat an id; empty when the batch is sound.
 * It pauses between records (pacer.ts): a list of 100,000 is checked without holding the event loop.
 */
export async function importProblems(propertyId: string, data: TImportRequest): Promise<TFieldError[]> {
  const problems: TFieldError[] = [];
  const pause = pacer();
  if (data.property && data.property.id !== propertyId) {
    problems.push({ path: 'property.id', message: 'must be the X-Property-Id of the request' });
  }
  const check = async <T extends { id: string; propertyId?: string }>(list: T[], name: string, key: (record: T) => string) => {
    const seen = new Set<string>();
    for (const [index, record] of list.entries()) {
      if (record.propertyId !== undefined && record.propertyId !== propertyId) {
        problems.push({ path: `${name}.${index}.propertyId`, message: 'belongs to another property than X-Property-Id' });
      }
      const id = key(record);
      if (seen.has(id)) problems.push({ path: `${name}.${index}.id`, message: 'appears twice in this request' });
      seen.add(id);
      await pause();
    }
  };
  await check(data.recipients, 'recipients', (r: TRecipient) => `${r.type}:${r.id}`);
  await check(data.reservations, 'reservations', (r: TReservation) => r.id);
  // A booked room belongs to one reservation: the same room id under two would move it silently.
  // (A repeated reservation is refused by its id alone.)
  const roomOwners = new Map<string, number>();
  const reservationIds = new Set<string>();
  data.reservations.forEach((reservation, index) => {
    if (reservationIds.has(reservation.id)) return;
    reservationIds.add(reservation.id);
    reservation.rooms?.forEach((room, position) => {
      const owner = roomOwners.get(room.id);
      if (owner !== undefined && owner !== index) problems.push({ path: `reservations.${index}.rooms.${position}.id`, message: `is a room of reservations.${owner} too` });
      roomOwners.set(room.id, owner ?? index);
    });
  });
  await check(data.users, 'users', (u: TUser) => u.id);
  await check(data.folios, 'folios', (f: TFolio) => f.id);
  await check(data.transactions, 'transactions', (t: TTransaction) => t.id);
  return problems;
}

/**
 * Checks every payment's cardTokenId against the vault and fills the payment's card fields the
 * import left out from the token's brand and last four. Field errors for ids that name no current
 * token of the property — unless the stored transaction already carries that token: re-running an
 * import after its token expired or was deleted keeps what the first run checked and copied.
 */
export async function labelCardPayments(
  pool: TPgPool,
  propertyId: string,
  transactions: TTransaction[],
  cardTokens: TCardTokenResolver,
): Promise<{ transactions: TTransaction[]; problems: TFieldError[] }> {
  const ids = [...new Set(transactions.flatMap((row) => (row.payment?.cardTokenId ? [row.payment.cardTokenId] : [])))];
  if (ids.length === 0) return { transactions, problems: [] };
  const labels = await cardTokens(ids);
  const unknown = transactions.filter((row) => row.payment?.cardTokenId && !labels.has(row.payment.cardTokenId)).map((row) => row.id);
  const stored = unknown.length > 0 ? await storedCardPayments(pool, propertyId, unknown) : new Map<string, TCardTokenLabel & { cardTokenId: string }>();
  const problems: TFieldError[] = [];
  const labelled = transactions.map((row, index) => {
    const tokenId = row.payment?.cardTokenId;
    if (!row.payment || !tokenId) return row;
    const kept = stored.get(row.id);
    const label = labels.get(tokenId) ?? (kept?.cardTokenId === tokenId ? kept : undefined);
    if (!label) {
      problems.push({ path: `transactions.${index}.payment.cardTokenId`, message: 'is not a current card token of this property' });
      return row;
    }
    return { ...row, payment: { ...row.payment, creditCardType: row.payment.creditCardType ?? label.creditCardType, cardTrailingDigits: row.payment.cardTrailingDigits ?? label.cardTrailingDigits } };
  });
  return { transactions: labelled, problems };
}

export async function importLedger(pool: TPgPool, propertyId: string, data: TImportRequest, cardTokens: TCardTokenResolver): Promise<TImportCounts> {
  const problems = await importProblems(propertyId, data);
  if (problems.length > 0) throw AppError.invalid(problems);
  const { transactions, problems: cardProblems } = await labelCardPayments(pool, propertyId, data.transactions, cardTokens);
  if (cardProblems.length > 0) throw AppError.invalid(cardProblems);
  await inTransaction(pool, async (client) => {
    if (data.property) await upsertProperty(client, data.property);
    for (let i = 0; i < data.recipients.length; i += CHUNK) await upsertRecipients(client, propertyId, data.recipients.slice(i, i + CHUNK));
    for (let i = 0; i < data.reservations.length; i += CHUNK) await upsertReservations(client, propertyId, data.reservations.slice(i, i + CHUNK));
    for (let i = 0; i < data.users.length; i += CHUNK) await upsertUsers(client, propertyId, data.users.slice(i, i + CHUNK));
    for (let i = 0; i < data.folios.length; i += CHUNK) await upsertFolios(client, propertyId, data.folios.slice(i, i + CHUNK));
    const roots = await resolveRoots(client, propertyId, transactions);
    for (let i = 0; i < transactions.length; i += CHUNK) {
      const chunk = transactions.slice(i, i + CHUNK);
      await upsertTransactions(client, propertyId, chunk.map((row) => ({ ...row, rootId: roots.get(row.id) })));
    }
  });
  return {
    property: data.property ? 1 : 0,
    recipients: data.recipients.length,
    reservations: data.reservations.length,
    users: data.users.length,
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
  const pause = pacer();
  for (const row of rows) {
    rootOf(row);
    await pause();
  }
  return roots;
}
