// Every statement on `fiscal_series`, `fiscal_documents` and `fiscal_document_transactions`
// (migration 023): the API's issue and credit (in their transactions), its reads, the listing's
// locks, and the workers' rendering of a document. The document itself is written once, whole;
// a trigger refuses any later change but its rendering.

import type { PoolClient } from 'pg';
import type { TPgPool } from '../connections.js';
import { inTransaction } from '../db/transaction.js';
import { insertDeliveries, type TDeliveryEvent } from '../webhooks/store.js';
import { ZFiscalDocument, type TFiscalDocument, type TFiscalFormat } from './document-model.js';
import type { TFiscalDocumentKind, TInvoiceStatus } from './schemas.js';

type TDb = TPgPool | PoolClient;

/** A stored file of a document: its object key, size and sha256. */
export interface TStoredFiscalFile {
  key: string;
  size: number;
  sha256: string;
}

export interface TFiscalDocumentRow {
  id: string;
  property_id: string;
  kind: TFiscalDocumentKind;
  series: string;
  sequence: string;
  number: string;
  source_kind: string;
  source_id: string;
  recipient_type: string;
  recipient_id: string;
  credits: string | null;
  /** The number of the invoice a credit note credits. */
  credits_number: string | null;
  /** An invoice's credit note, once credited. */
  credit_note_id: string | null;
  credit_note_number: string | null;
  document: TFiscalDocument;
  formats: TFiscalFormat[];
  status: TInvoiceStatus;
  error: string | null;
  files: Partial<Record<TFiscalFormat, TStoredFiscalFile>>;
  render_round: number;
  request_digest: string | null;
  created_at: Date;
  issued_at: Date | null;
}

const SELECT_DOCUMENT = `SELECT d.id, d.property_id, d.kind, d.series, d.sequence::text AS sequence, d.number, d.source_kind, d.source_id, d.recipient_type, d.recipient_id, d.credits,
    inv.number AS credits_number, cn.id AS credit_note_id, cn.number AS credit_note_number, d.document, d.formats, d.status, d.error,
    d.files, d.render_round, d.request_digest, d.created_at, d.issued_at
  FROM fiscal_documents d
  LEFT JOIN fiscal_documents inv ON inv.id = d.credits
  LEFT JOIN fiscal_documents cn ON cn.credits = d.id`;

/**
 * The next number of the property's series, its row locked until the caller's transaction ends:
 * created at 0 when missing, then read FOR UPDATE. Concurrent issues of the series wait here in
 * turn; one that rolls back leaves the number to the next.
 */
export async function takeNextNumber(client: PoolClient, propertyId: string, series: string): Promise<number> {
  await client.query('INSERT INTO fiscal_series (property_id, series) VALUES ($1, $2) ON CONFLICT DO NOTHING', [propertyId, series]);
  const locked = await client.query<{ last_number: string }>(
    'SELECT last_number::text AS last_number FROM fiscal_series WHERE property_id = $1 AND series = $2 FOR UPDATE', [propertyId, series],
  );
  const next = Number(locked.rows[0]!.last_number) + 1;
  await client.query('UPDATE fiscal_series SET last_number = $3 WHERE property_id = $1 AND series = $2', [propertyId, series, next]);
  return next;
}

/** Those of `transactionIds` on a live document of the property, with the document's number. */
export async function liveLocks(db: TDb, propertyId: string, transactionIds: string[]): Promise<Array<{ transaction_id: string; document_id: string; number: string }>> {
  if (transactionIds.length === 0) return [];
  const result = await db.query<{ transaction_id: string; document_id: string; number: string }>(
    `SELECT l.transaction_id::text AS transaction_id, d.id AS document_id, d.number
       FROM fiscal_document_transactions l JOIN fiscal_documents d ON d.id = l.document_id
      WHERE l.property_id = $1 AND l.transaction_id = ANY($2::bigint[]) AND l.live
      ORDER BY l.transaction_id`,
    [propertyId, transactionIds],
  );
  return result.rows;
}

/**
 * The listing's lock of each of `transactionIds` on a live document: one statement per page, on
 * the live links' index (docs/fiscal-documents.md#the-listing).
 */
export async function lockSummaries(
  db: TDb,
  propertyId: string,
  transactionIds: string[],
): Promise<Map<string, { id: string; number: string; kind: TFiscalDocumentKind; createdAt: string }>> {
  const locks = new Map<string, { id: string; number: string; kind: TFiscalDocumentKind; createdAt: string }>();
  if (transactionIds.length === 0) return locks;
  const result = await db.query<{ transaction_id: string; id: string; number: string; kind: TFiscalDocumentKind; created_at: Date }>(
    `SELECT l.transaction_id::text AS transaction_id, d.id, d.number, d.kind, d.created_at
       FROM fiscal_document_transactions l JOIN fiscal_documents d ON d.id = l.document_id
      WHERE l.property_id = $1 AND l.transaction_id = ANY($2::bigint[]) AND l.live`,
    [propertyId, transactionIds],
  );
  for (const row of result.rows) locks.set(row.transaction_id, { id: row.id, number: row.number, kind: row.kind, createdAt: row.created_at.toISOString() });
  return locks;
}

export interface TNewFiscalDocument {
  document: TFiscalDocument;
  propertyId: string;
  sequence: number;
  recipient: { type: string; id: string };
  credits?: string;
  formats: TFiscalFormat[];
  idempotencyKey?: string;
  requestDigest?: string;
}

/** Stores a document (status issuing) and links its transactions, live, in the caller's transaction. */
export async function insertDocument(client: PoolClient, record: TNewFiscalDocument, transactionIds: string[]): Promise<void> {
  const { document } = record;
  await client.query(
    `INSERT INTO fiscal_documents (id, property_id, kind, series, sequence, number, source_kind, source_id, recipient_type, recipient_id,
        credits, document, formats, status, idempotency_key, request_digest)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'issuing', $14, $15)`,
    [
      document.id, record.propertyId, document.kind, document.series, record.sequence, document.number, document.source.kind, document.source.id,
      record.recipient.type, record.recipient.id, record.credits ?? null, JSON.stringify(document), record.formats, record.idempotencyKey ?? null,
      record.requestDigest ?? null,
    ],
  );
  if (document.kind === 'INVOICE' && transactionIds.length > 0) {
    await client.query(
      `INSERT INTO fiscal_document_transactions (property_id, transaction_id, document_id)
       SELECT $1, t, $2 FROM unnest($3::bigint[]) AS t`,
      [record.propertyId, document.id, transactionIds],
    );
  }
}

/** Ends an invoice's links: its transactions are free to be invoiced again. */
export async function releaseTransactions(client: PoolClient, invoiceId: string): Promise<void> {
  await client.query('UPDATE fiscal_document_transactions SET live = false WHERE document_id = $1 AND live', [invoiceId]);
}

/**
 * A stored document read back through the model: jsonb keeps no key order, the model's parse gives
 * the document its fields in the model's order again (and checks it is one).
 */
const frozen = <T extends { document: TFiscalDocument }>(row: T): T => ({ ...row, document: ZFiscalDocument.parse(row.document) });

export async function findDocument(db: TDb, propertyId: string, id: string): Promise<TFiscalDocumentRow | undefined> {
  const result = await db.query<TFiscalDocumentRow>(`${SELECT_DOCUMENT} WHERE d.id = $1 AND d.property_id = $2`, [id, propertyId]);
  return result.rows[0] && frozen(result.rows[0]);
}

/** The invoice an issue with this Idempotency-Key made, if any. */
export async function findByIdempotencyKey(db: TDb, propertyId: string, key: string): Promise<TFiscalDocumentRow | undefined> {
  const result = await db.query<TFiscalDocumentRow>(
    `${SELECT_DOCUMENT} WHERE d.property_id = $1 AND d.idempotency_key = $2`, [propertyId, key],
  );
  return result.rows[0] && frozen(result.rows[0]);
}

/** A source's documents, newest first (at most `limit`). */
export async function listBySource(db: TDb, propertyId: string, sourceKind: string, sourceId: string, limit: number): Promise<TFiscalDocumentRow[]> {
  const result = await db.query<TFiscalDocumentRow>(
    `${SELECT_DOCUMENT} WHERE d.property_id = $1 AND d.source_kind = $2 AND d.source_id = $3 ORDER BY d.created_at DESC, d.sequence DESC LIMIT $4`,
    [propertyId, sourceKind, sourceId, limit],
  );
  return result.rows.map(frozen);
}

/** A document as its render job reads it: by id alone (the job names it). */
export async function findForRender(db: TDb, id: string): Promise<Pick<TFiscalDocumentRow, 'id' | 'property_id' | 'document' | 'formats' | 'status' | 'files'> | undefined> {
  const result = await db.query<Pick<TFiscalDocumentRow, 'id' | 'property_id' | 'document' | 'formats' | 'status' | 'files'>>(
    'SELECT id, property_id, document, formats, status, files FROM fiscal_documents WHERE id = $1', [id],
  );
  return result.rows[0] && frozen(result.rows[0]);
}

/**
 * Marks the document issued with its files, and records the deliveries of `event` in the same
 * transaction. A document already issued stays as it was (a second delivery of its job): no
 * event is recorded again.
 */
export async function markIssued(pool: TPgPool, id: string, files: Partial<Record<TFiscalFormat, TStoredFiscalFile>>, event: TDeliveryEvent): Promise<{ deliveryIds: string[] }> {
  return inTransaction(pool, async (client) => {
    const issued = await client.query(
      `UPDATE fiscal_documents SET status = 'issued', files = $2, error = NULL, issued_at = now() WHERE id = $1 AND status <> 'issued'`,
      [id, JSON.stringify(files)],
    );
    return { deliveryIds: issued.rowCount ? await insertDeliveries(client, event) : [] };
  });
}

/** A failed attempt that will be tried again: the reason is kept, the document stays issuing. */
export async function recordRenderError(db: TDb, id: string, error: string): Promise<void> {
  await db.query(`UPDATE fiscal_documents SET error = $2 WHERE id = $1 AND status = 'issuing'`, [id, error]);
}

/** The last attempt failed: the document is failed (the sweep renders it again later), with `event`'s deliveries. */
export async function markFailed(pool: TPgPool, id: string, error: string, event: TDeliveryEvent): Promise<{ deliveryIds: string[] }> {
  return inTransaction(pool, async (client) => {
    const failed = await client.query(
      `UPDATE fiscal_documents SET status = 'failed', error = $2, failed_at = now() WHERE id = $1 AND status = 'issuing'`, [id, error],
    );
    return { deliveryIds: failed.rowCount ? await insertDeliveries(client, event) : [] };
  });
}

/**
 * What the render sweep enqueues: documents issuing for longer than `staleSeconds` (their job may
 * have been lost between the commit and its enqueue), and failed ones whose last failure is
 * `retrySeconds` old, which go back to issuing under a new round. Each with its round.
 */
export async function documentsToRender(pool: TPgPool, staleSeconds: number, retrySeconds: number, limit = 100): Promise<Array<{ id: string; property_id: string; render_round: number }>> {
  const retried = await pool.query<{ id: string; property_id: string; render_round: number }>(
    `UPDATE fiscal_documents SET status = 'issuing', render_round = render_round + 1
      WHERE id IN (SELECT id FROM fiscal_documents WHERE status = 'failed' AND failed_at <= now() - make_interval(secs => $1) ORDER BY failed_at LIMIT $2)
      RETURNING id, property_id, render_round`,
    [retrySeconds, limit],
  );
  const stale = await pool.query<{ id: string; property_id: string; render_round: number }>(
    `SELECT id, property_id, render_round FROM fiscal_documents
      WHERE status = 'issuing' AND created_at <= now() - make_interval(secs => $1) AND NOT (id = ANY($2::uuid[]))
      ORDER BY created_at LIMIT $3`,
    [staleSeconds, retried.rows.map((row) => row.id), limit],
  );
  return [...retried.rows, ...stale.rows];
}
