// What the worker records of a night-audit batch's sources and of its manifest
// (apps/worker/src/night-audit/night-auditor.ts); the start, status and expiry are in batches.ts.
// Every statement on `night_audit_items` is in these two modules.

import type { TPgPool } from '../connections.js';
import { inTransaction } from '../db/transaction.js';
import { insertDeliveries, type TDeliveryEvent } from '../webhooks/store.js';

/** One source of one run of a batch: only the current run may write its item. */
export interface TBatchItemRef {
  batchId: string;
  run: number;
  sourceKind: string;
  sourceId: string;
}

export interface TBatchItemRow {
  source_kind: string;
  source_id: string;
  status: string;
  object_key: string;
  folio_ids: string[];
  size: string | null;
  sha256: string | null;
  pages: number | null;
  rows: number | null;
  error: string | null;
}

/** Records a source's file, and marks the batch running if it was still queued. */
export async function recordSourceExported(
  pool: TPgPool,
  item: TBatchItemRef,
  file: { size: number; sha256: string; pages: number; rows: number; folioIds: string[] },
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(`UPDATE night_audit_batches SET status = 'running' WHERE id = $1 AND run = $2 AND status = 'queued'`, [item.batchId, item.run]);
    await client.query(
      `UPDATE night_audit_items SET status = 'completed', size = $5, sha256 = $6, pages = $7, rows = $8, folio_ids = $9::bigint[],
              error = NULL, updated_at = now()
        WHERE batch_id = $1 AND source_kind = $2 AND source_id = $3 AND run = $4`,
      [item.batchId, item.sourceKind, item.sourceId, item.run, file.size, file.sha256, file.pages, file.rows, file.folioIds],
    );
  });
}

/**
 * Which of `sources` this run has completed already: a chunk job run again (a retry, a stalled job
 * handed out twice) exports only the rest, so a source gets one file and one result however often
 * its job runs.
 */
export async function completedSources(
  pool: TPgPool,
  batch: { batchId: string; run: number },
  sources: ReadonlyArray<{ sourceKind: string; sourceId: string }>,
): Promise<Set<string>> {
  const result = await pool.query<{ source: string }>(
    `SELECT i.source_kind || '-' || i.source_id AS source
       FROM night_audit_items i JOIN unnest($3::text[], $4::bigint[]) AS s(kind, id) ON i.source_kind = s.kind AND i.source_id = s.id
      WHERE i.batch_id = $1 AND i.run = $2 AND i.status = 'completed'`,
    [batch.batchId, batch.run, sources.map((s) => s.sourceKind), sources.map((s) => s.sourceId)],
  );
  return new Set(result.rows.map((row) => row.source));
}

/** A completed item stays completed: a late failure of a redelivery does not undo its file. */
export async function recordSourceFailed(pool: TPgPool, item: TBatchItemRef, error: string): Promise<void> {
  await pool.query(
    `UPDATE night_audit_items SET status = 'failed', error = $5, updated_at = now()
      WHERE batch_id = $1 AND source_kind = $2 AND source_id = $3 AND run = $4 AND status <> 'completed'`,
    [item.batchId, item.sourceKind, item.sourceId, item.run, error],
  );
}

/** The run's items in manifest order (its sources: retired items are an earlier run's). */
export async function batchItems(pool: TPgPool, batchId: string, run: number): Promise<TBatchItemRow[]> {
  const items = await pool.query<TBatchItemRow>(
    `SELECT source_kind, source_id, status, object_key, folio_ids::text[] AS folio_ids, size::text AS size, sha256, pages, rows, error
       FROM night_audit_items WHERE batch_id = $1 AND run = $2 AND status <> 'retired' ORDER BY source_kind, source_id`,
    [batchId, run],
  );
  return items.rows;
}

/** Objects of an earlier run's sources that this run no longer lists (batches.ts, beginRun). */
export async function retiredItems(pool: TPgPool, batchId: string, run: number): Promise<string[]> {
  const items = await pool.query<{ object_key: string }>(`SELECT object_key FROM night_audit_items WHERE batch_id = $1 AND run = $2 AND status = 'retired'`, [batchId, run]);
  return items.rows.map((row) => row.object_key);
}

/** Their objects deleted: the items go. */
export async function dropRetiredItems(pool: TPgPool, batchId: string, run: number, objectKeys: string[]): Promise<void> {
  await pool.query(`DELETE FROM night_audit_items WHERE batch_id = $1 AND run = $2 AND status = 'retired' AND object_key = ANY($3::text[])`, [batchId, run, objectKeys]);
}

/**
 * Ends the run once its manifest is stored, and records the deliveries of `event` in the same
 * transaction; answers their ids, to enqueue once committed. With failures, items still pending (a
 * child that never reported) are marked failed first, so the counts agree with the manifest. A run
 * ended already (its manifest job run again) is left as it is and announces nothing twice.
 */
export async function closeBatch(
  pool: TPgPool,
  batch: { batchId: string; run: number; withFailures: boolean; manifestKey: string },
  /** NIGHT_AUDIT_RETENTION_DAYS: the files and manifest are kept that long from now. */
  retentionDays: number,
  event: TDeliveryEvent,
): Promise<{ deliveryIds: string[] }> {
  const { batchId, run, withFailures, manifestKey } = batch;
  return inTransaction(pool, async (client) => {
    if (withFailures) {
      await client.query(`UPDATE night_audit_items SET status = 'failed', error = COALESCE(error, 'did not finish') WHERE batch_id = $1 AND run = $2 AND status = 'pending'`, [batchId, run]);
    }
    const closed = await client.query(
      `UPDATE night_audit_batches SET status = $3, manifest_key = $4, completed_at = now(), expires_at = now() + make_interval(days => $5)
        WHERE id = $1 AND run = $2 AND status IN ('queued', 'running')`,
      [batchId, run, withFailures ? 'completed_with_failures' : 'completed', manifestKey, retentionDays],
    );
    return { deliveryIds: closed.rowCount ? await insertDeliveries(client, event) : [] };
  });
}

/**
 * Ends a run whose manifest job failed for good: `failed`, its files kept NIGHT_AUDIT_RETENTION_DAYS
 * like a finished run's (the retention sweep deletes them), and `event` (night_audit.failed)
 * recorded in the same transaction; answers the deliveries' ids, to enqueue once committed. A run
 * ended already announces nothing.
 */
export async function failBatch(pool: TPgPool, batch: { batchId: string; run: number }, retentionDays: number, event: TDeliveryEvent): Promise<{ deliveryIds: string[] }> {
  return inTransaction(pool, async (client) => {
    const failed = await client.query(
      `UPDATE night_audit_batches SET status = 'failed', completed_at = now(), expires_at = now() + make_interval(days => $3)
        WHERE id = $1 AND run = $2 AND status IN ('queued', 'running')`,
      [batch.batchId, batch.run, retentionDays],
    );
    return { deliveryIds: failed.rowCount ? await insertDeliveries(client, event) : [] };
  });
}
