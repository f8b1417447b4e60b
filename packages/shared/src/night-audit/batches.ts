// Starting and reading night-audit batches (docs/night-audit.md), shared by the API, the scheduled
// job and `npm run night-audit`. A batch is one per (property, business date, format), so its id is
// derived from them: a re-run keeps the id, rewrites the same object keys and replaces the items. A
// batch queued or running is answered as it is, never started twice.
//
// Every statement on `night_audit_batches` and `night_audit_items` is in this module (the start,
// status and expiry) and batch-items.ts (what the worker records of each source and the manifest).

import type { FlowProducer } from 'bullmq';
import { v5 as uuidv5 } from 'uuid';
import type { z } from 'zod';
import type { TPgPool } from '../connections.js';
import { inTransaction } from '../db/transaction.js';
import { AppError } from '../errors.js';
import type { TExpiredCounts } from '../exports/export-store.js';
import { nightAuditManifestJob, nightAuditSourceJob, sourcesPerJob } from './night-audit-job.js';
import type { ZBatchStatus } from './schemas.js';
import { findPropertyProfile } from '../properties/property-store.js';
import { auditObjectKey, selectAuditSources, type TAuditSource } from './selection.js';
import { batchRunSubject, webhookEvent } from '../webhooks/events.js';
import { insertDeliveries } from '../webhooks/store.js';
import { inSpan, linkedJobOptions, parentedJobOptions, tracedOrNewTrace } from '../tracing/spans.js';

/** The uuid v5 namespace of batch ids (batchIdOf). */
const BATCH_NAMESPACE = '6f1d3c52-8b0e-4c6a-9a57-3f2b8f7e4d21';

/** The status answer as its schema (schemas.ts) declares it, so the code and the API document agree. */
export type TBatchStatusBody = z.output<typeof ZBatchStatus>;
export type TBatchStatus = TBatchStatusBody['status'];

export function batchIdOf(propertyId: string, businessDate: string, format: 'PDF' | 'XLSX'): string {
  return uuidv5(`${propertyId}:${businessDate}:${format}`, BATCH_NAMESPACE);
}

type TBegun = { inFlight: TBatchStatus } | { run: number };

/** NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY's default: a property's batches handed to the workers at once. */
export const MAX_RUNNING_PER_PROPERTY = 4;

/**
 * In one transaction under the batch's advisory lock: the batch in flight, or a new run of it
 * waiting for a place (dispatchWaiting) with one pending item per source of the business date.
 * Every statement runs on the transaction's own client: a second connection asked of the pool
 * while this one is held would deadlock a pool that many starts hold at once.
 *
 * A source of an earlier run that this run no longer lists keeps its item, `retired` and moved to
 * this run, until this run's manifest job has deleted its object (retiredItems), whatever the
 * item's status (a failed source may have stored its file before its record failed): the folder
 * then holds exactly the files the new manifest names.
 */
async function beginRun(pool: TPgPool, batchId: string, propertyId: string, businessDate: string, format: 'PDF' | 'XLSX', timezone: string): Promise<TBegun> {
  return inTransaction(pool, async (client): Promise<TBegun> => {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`night-audit:${batchId}`]);
    const existing = await client.query<{ status: TBatchStatus; run: number }>('SELECT status, run FROM night_audit_batches WHERE id = $1', [batchId]);
    const current = existing.rows[0];
    // A batch in flight is answered, not started twice.
    if (current && (current.status === 'queued' || current.status === 'running')) return { inFlight: current.status };
    const run = (current?.run ?? 0) + 1;
    const sources = await selectAuditSources(client, propertyId, businessDate, timezone);
    const keys = sources.map((s) => auditObjectKey(propertyId, businessDate, s, format));
    await client.query(
      `INSERT INTO night_audit_batches (id, property_id, business_date, format, run, status, total, dispatched)
       VALUES ($1, $2, $3, $4, $5, 'queued', $6, false)
       ON CONFLICT (id) DO UPDATE SET run = EXCLUDED.run, status = 'queued', total = EXCLUDED.total, dispatched = false,
         manifest_key = NULL, completed_at = NULL, expires_at = NULL, created_at = now()`,
      [batchId, propertyId, businessDate, format, run, sources.length],
    );
    await client.query(
      `UPDATE night_audit_items SET status = 'retired', run = $2, updated_at = now()
        WHERE batch_id = $1 AND NOT (object_key = ANY($3::text[]))`,
      [batchId, run, keys],
    );
    await client.query('DELETE FROM night_audit_items WHERE batch_id = $1 AND run <> $2', [batchId, run]);
    if (sources.length > 0) {
      await client.query(
        `INSERT INTO night_audit_items (batch_id, source_kind, source_id, run, status, object_key)
         SELECT $1, s.kind, s.id, $2, 'pending', s.key
           FROM jsonb_to_recordset($3::jsonb) AS s(kind text, id bigint, key text)`,
        [batchId, run, JSON.stringify(sources.map((s, i) => ({ kind: s.sourceKind, id: s.sourceId, key: keys[i] })))],
      );
    }
    return { run };
  });
}

export interface TStartOptions {
  /** The property's time zone when the caller has read it already (the scheduled start): one query fewer. */
  timezone?: string;
  /** Sources a job of this batch; sourcesPerJob's when not given (tests give their own). */
  chunkSize?: number;
  /** NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY. */
  maxRunning?: number;
}

/**
 * Starts a run of the batch (or answers the one in flight). The run is handed to the queue at once
 * when fewer than `maxRunning` batches of the property are, and otherwise waits `queued` until a
 * batch of the property ends (the manifest job calls dispatchWaiting). 503 when its flow could not
 * be queued: the run is then `failed` with `night_audit.failed` recorded.
 */
export async function startNightAudit(
  pool: TPgPool,
  flows: FlowProducer,
  propertyId: string,
  businessDate: string,
  format: 'PDF' | 'XLSX',
  options: TStartOptions = {},
): Promise<{ batchId: string; status: TBatchStatus; started: boolean }> {
  const batchId = batchIdOf(propertyId, businessDate, format);
  const timezone = options.timezone ?? (await findPropertyProfile(pool, propertyId))?.timezone ?? 'UTC';
  const begun = await beginRun(pool, batchId, propertyId, businessDate, format, timezone);
  if ('inFlight' in begun) return { batchId, status: begun.inFlight, started: false };
  const { failed } = await dispatchWaiting(pool, flows, propertyId, options.maxRunning ?? MAX_RUNNING_PER_PROPERTY, { [batchId]: options.chunkSize });
  if (failed.some((f) => f.batchId === batchId)) {
    throw AppError.unavailable('The night audit could not be queued; retry shortly.').withCause(failed.find((f) => f.batchId === batchId)!.error);
  }
  return { batchId, status: 'queued', started: true };
}

type TWaiting = { id: string; run: number; business_date: string; format: 'PDF' | 'XLSX' };

/**
 * Hands the property's waiting batches to the queue, oldest first, while fewer than `maxRunning`
 * of its batches are handed and not ended. Each one in a transaction under the property's advisory
 * lock, held while its flow is added, so dispatchers of one property (API processes, workers) never
 * hand out more than `maxRunning`. The flow is added before the batch is marked dispatched and its
 * job ids name the run: a dispatcher that dies between the two leaves the batch waiting, and the
 * next dispatch adds the same flow again, which BullMQ answers with the jobs it has.
 *
 * A batch whose flow the queue refuses is failed and `night_audit.failed` recorded in the same
 * transaction (the webhook sweep sends it: the queue just refused a job); answered in `failed`, and
 * the dispatch stops there.
 */
export async function dispatchWaiting(
  pool: TPgPool,
  flows: FlowProducer,
  propertyId: string,
  maxRunning: number,
  chunkSizes: Record<string, number | undefined> = {},
): Promise<{ dispatched: string[]; failed: Array<{ batchId: string; error: Error }> }> {
  const dispatched: string[] = [];
  for (;;) {
    const step = await inTransaction(pool, async (client): Promise<{ batchId: string; error?: Error } | undefined> => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`night-audit-property:${propertyId}`]);
      const next = await client.query<TWaiting & { handed: number }>(
        `SELECT id, run, to_char(business_date, 'YYYY-MM-DD') AS business_date, format,
                (SELECT count(*)::int FROM night_audit_batches WHERE property_id = $1 AND status IN ('queued', 'running') AND dispatched) AS handed
           FROM night_audit_batches
          WHERE property_id = $1 AND status = 'queued' AND NOT dispatched
          ORDER BY created_at, id LIMIT 1`,
        [propertyId],
      );
      const batch = next.rows[0];
      if (!batch || batch.handed >= maxRunning) return undefined;
      const items = await client.query<{ source_kind: TAuditSource['sourceKind']; source_id: string }>(
        `SELECT source_kind, source_id::text FROM night_audit_items WHERE batch_id = $1 AND run = $2 AND status = 'pending' ORDER BY source_kind, source_id`,
        [batch.id, batch.run],
      );
      const sources = items.rows.map((row): TAuditSource => ({ sourceKind: row.source_kind, sourceId: row.source_id }));
      try {
        await addBatchFlow(flows, { batchId: batch.id, run: batch.run, propertyId, businessDate: batch.business_date, format: batch.format }, sources, chunkSizes[batch.id]);
      } catch (error) {
        await client.query(`UPDATE night_audit_batches SET status = 'failed', completed_at = now() WHERE id = $1 AND run = $2`, [batch.id, batch.run]);
        const data = { batchId: batch.id, propertyId, status: 'failed', error: 'The night audit could not be queued.' };
        await insertDeliveries(client, webhookEvent('night_audit.failed', batchRunSubject(batch.id, batch.run), data));
        return { batchId: batch.id, error: error as Error };
      }
      await client.query('UPDATE night_audit_batches SET dispatched = true WHERE id = $1 AND run = $2', [batch.id, batch.run]);
      return { batchId: batch.id };
    });
    if (!step) return { dispatched, failed: [] };
    // The queue refused a flow: the next ones would fare no better now. They stay waiting, for the
    // property's next start or batch end.
    if (step.error) return { dispatched, failed: [{ batchId: step.batchId, error: step.error }] };
    dispatched.push(step.batchId);
  }
}

/**
 * The run's flow: `night-audit-source` children of `chunkSize` sources on the night-audit-export
 * queue, with a `night-audit-manifest` parent. Job ids name the run, so a re-run is a new flow
 * while a redelivered (or re-added) job stays the same job. With tracing on, in the batch's span
 * (under the request that started it, or a trace of its own): the manifest's job is its child, and
 * each piece's job starts a trace of its own linked to it, so a batch of thousands of sources is
 * not one trace (docs/operations.md#tracing).
 */
async function addBatchFlow(
  flows: FlowProducer,
  batch: { batchId: string; run: number; propertyId: string; businessDate: string; format: 'PDF' | 'XLSX' },
  sources: TAuditSource[],
  chunkSize?: number,
): Promise<void> {
  const { batchId, run } = batch;
  const ref = { version: 1 as const, ...batch };
  const size = chunkSize ?? sourcesPerJob(sources.length);
  const chunks = Array.from({ length: Math.ceil(sources.length / size) }, (_, i) => sources.slice(i * size, (i + 1) * size));
  const attributes = {
    'folio.night_audit.batch_id': batchId, 'folio.night_audit.run': run, 'folio.property_id': batch.propertyId,
    'folio.night_audit.business_date': batch.businessDate, 'folio.export.format': batch.format,
    'folio.night_audit.sources': sources.length, 'folio.night_audit.jobs': chunks.length,
  };
  await inSpan('night-audit batch', attributes, async () => {
    await flows.add({
      name: nightAuditManifestJob.name,
      queueName: nightAuditManifestJob.queue,
      data: ref,
      opts: { ...nightAuditManifestJob.options, jobId: `na-${batchId}-${run}`, ...parentedJobOptions() },
      children: chunks.map((chunk, index) => ({
        name: nightAuditSourceJob.name,
        queueName: nightAuditSourceJob.queue,
        data: { ...ref, sources: chunk },
        opts: { ...nightAuditSourceJob.options, jobId: `na-${batchId}-${run}-${index + 1}`, ...linkedJobOptions() },
      })),
    });
  }, { parent: tracedOrNewTrace() });
}

export async function nightAuditStatus(pool: TPgPool, propertyId: string, batchId: string): Promise<TBatchStatusBody> {
  const result = await pool.query<{
    business_date: string; format: 'PDF' | 'XLSX'; status: TBatchStatus; total: number; manifest_key: string | null; expires_at: Date | null; completed: number; failed: number;
  }>(
    `SELECT to_char(b.business_date, 'YYYY-MM-DD') AS business_date, b.format, b.status, b.total, b.manifest_key, b.expires_at,
            count(*) FILTER (WHERE i.status = 'completed')::int AS completed,
            count(*) FILTER (WHERE i.status = 'failed')::int AS failed
       FROM night_audit_batches b LEFT JOIN night_audit_items i ON i.batch_id = b.id
      WHERE b.id = $1 AND b.property_id = $2
      GROUP BY b.id`,
    [batchId, propertyId],
  );
  const row = result.rows[0];
  if (!row) throw AppError.notFound('The night-audit batch');
  return {
    batchId,
    businessDate: row.business_date,
    format: row.format,
    status: row.status,
    total: row.total,
    completed: row.completed,
    failed: row.failed,
    // An expired batch's manifest is deleted: its key would name nothing.
    manifestKey: row.status === 'expired' ? null : row.manifest_key,
    ...(row.expires_at ? { expiresAt: row.expires_at.toISOString() } : {}),
  };
}

/** What the retention sweep deleted of night-audit batches. */
export interface TExpiredBatches {
  batches: number;
  files: number;
  manifests: number;
}

/**
 * Expires up to `limit` finished batches past `expires_at` (NIGHT_AUDIT_RETENTION_DAYS,
 * docs/export.md#retention): `remove` deletes every item's file and the manifest while the rows are
 * locked, then the batches are marked expired in the same transaction. A batch re-run is never due
 * (beginRun clears its expiry), and SKIP LOCKED lets sweeps on several workers share the work.
 */
export async function expireDueBatches(pool: TPgPool, limit: number, remove: (objectKey: string) => Promise<void>): Promise<TExpiredBatches> {
  return inTransaction(pool, async (client) => {
    const due = await client.query<{ id: string; manifest_key: string | null }>(
      `SELECT id, manifest_key FROM night_audit_batches
        WHERE status IN ('completed', 'completed_with_failures', 'failed') AND expires_at <= now()
        ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    const ids = due.rows.map((row) => row.id);
    const expired: TExpiredBatches = { batches: ids.length, files: 0, manifests: 0 };
    if (ids.length === 0) return expired;
    const items = await client.query<{ object_key: string }>('SELECT object_key FROM night_audit_items WHERE batch_id = ANY($1::uuid[])', [ids]);
    for (const item of items.rows) {
      await remove(item.object_key);
      expired.files += 1;
    }
    // The PDF and XLSX batches of one date share manifest.json: a manifest another batch that is
    // not expiring still names stays (the file keys differ by their extension).
    const shared = await client.query<{ manifest_key: string }>(
      `SELECT DISTINCT manifest_key FROM night_audit_batches
        WHERE manifest_key = ANY($1::text[]) AND NOT (id = ANY($2::uuid[])) AND status <> 'expired'`,
      [due.rows.flatMap((row) => (row.manifest_key ? [row.manifest_key] : [])), ids],
    );
    const keep = new Set(shared.rows.map((row) => row.manifest_key));
    for (const key of new Set(due.rows.flatMap((row) => (row.manifest_key && !keep.has(row.manifest_key) ? [row.manifest_key] : [])))) {
      await remove(key);
      expired.manifests += 1;
    }
    await client.query(`UPDATE night_audit_batches SET status = 'expired' WHERE id = ANY($1::uuid[])`, [ids]);
    return expired;
  });
}

/**
 * Batches of every property the retention sweep has expired, and those of them due in the last 24
 * hours (by expires_at), for the operator's delivery panel (apps/api/src/ops/delivery-panel.ts).
 */
export async function expiredBatchCounts(pool: TPgPool): Promise<TExpiredCounts> {
  const result = await pool.query<TExpiredCounts>(
    `SELECT count(*)::float8 AS "all", count(*) FILTER (WHERE expires_at >= now() - interval '24 hours')::float8 AS "last24h"
       FROM night_audit_batches WHERE status = 'expired'`,
  );
  return result.rows[0]!;
}
