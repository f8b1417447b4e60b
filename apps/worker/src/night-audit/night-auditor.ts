// The worker's side of night audits: a chunk of sources' exports (a flow child), the manifest (the
// flow's parent, once every child has finished or failed for good), and the scheduled start. Every
// step is safe to run twice: items are keyed by (batch, source), only the current run may write
// them, and a chunk run again skips the sources it completed.

import type { FlowProducer } from 'bullmq';
import type { z } from 'zod';
import type { TPgPool } from '@folio-vault/shared/connections';
import { LANGUAGES, type TLanguage } from '@folio-vault/shared/i18n/languages';
import type { nightAuditManifestJob, nightAuditScheduledJob, nightAuditSourceJob } from '@folio-vault/shared/night-audit/night-audit-job';
import type { Logger } from '@folio-vault/shared/logger';
import { batchItems, closeBatch, completedSources, dropRetiredItems, failBatch, recordSourceExported, recordSourceFailed, retiredItems } from '@folio-vault/shared/night-audit/batch-items';
import { dispatchWaiting, startNightAudit } from '@folio-vault/shared/night-audit/batches';
import { findPropertyProfile, type TPropertyProfile } from '@folio-vault/shared/properties/property-store';
import { auditExportRequest, auditObjectKey, manifestKey, previousLocalDate, type TAuditSource } from '@folio-vault/shared/night-audit/selection';
import { ZFolioExportRequest } from '@folio-vault/shared/exports/schemas';
import { batchRunSubject, nightAuditCompletedEvent, webhookEvent } from '@folio-vault/shared/webhooks/events';
import type { ObjectStorage } from '@folio-vault/shared/storage/object-storage';
import { buildFolioDocument, loadProperty } from '../exports/build-document.js';
import type { FolioExporter } from '../exports/folio-exporter.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';

type TSourcePayload = z.output<(typeof nightAuditSourceJob)['payload']>;

/**
 * Sources of one job in flight at once: while one renders (in the render pool), the next one's rows
 * are read and the previous one's file is stored, so neither the worker nor its render process
 * waits for the other. More would only queue in the render pool.
 */
const SOURCES_IN_FLIGHT = 2;

/** The sources of a chunk that failed, each with its reason; the others were exported. */
export class SourcesFailedError extends Error {
  constructor(
    readonly failures: Array<{ source: TAuditSource; message: string }>,
    of: number,
  ) {
    super(`${failures.length} of ${of} night-audit sources failed: ${failures[0]?.message ?? ''}`);
    this.name = 'SourcesFailedError';
  }
}

type TManifestPayload = z.output<(typeof nightAuditManifestJob)['payload']>;
type TScheduledPayload = z.output<(typeof nightAuditScheduledJob)['payload']>;

export class NightAuditor {
  constructor(
    private readonly pool: TPgPool,
    private readonly exporter: FolioExporter,
    private readonly storage: ObjectStorage,
    private readonly flows: FlowProducer,
    private readonly outbox: WebhookOutbox,
    /** NIGHT_AUDIT_RETENTION_DAYS: how long a batch's files and manifest are kept. */
    private readonly retentionDays: number,
    /** NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY: a batch that ends hands its place to the next one waiting. */
    private readonly maxRunning: number,
  ) {}

  /**
   * Exports the chunk's sources not completed yet, SOURCES_IN_FLIGHT at a time; every source is
   * recorded as soon as its file is stored. A failed source does not stop the others: the job then
   * fails with all of them (SourcesFailedError) and its retry exports only those. Round trips: the
   * property and the chunk's completed sources once a chunk; a source's folios, rows and stay
   * (buildFolioDocument) and one statement that records its file and marks the batch running.
   */
  async exportSources(payload: TSourcePayload, log: Logger) {
    const { sources } = payload;
    const [property, done] = await Promise.all([loadProperty(this.pool, payload.propertyId), completedSources(this.pool, payload, sources)]);
    const pending = sources.filter((source) => !done.has(`${source.sourceKind}-${source.sourceId}`));
    const failures: SourcesFailedError['failures'] = [];
    let next = 0;
    const lane = async () => {
      while (next < pending.length) {
        const source = pending[next++]!;
        try {
          await this.exportSource(payload, source, property, log);
        } catch (error) {
          const message = (error as Error).message.slice(0, 300);
          log.warn({ sourceKind: source.sourceKind, sourceId: source.sourceId, err: { message } }, 'night-audit source failed');
          failures.push({ source, message });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SOURCES_IN_FLIGHT, pending.length) }, lane));
    if (failures.length > 0) throw new SourcesFailedError(failures, pending.length);
    return { exported: pending.length, skipped: sources.length - pending.length };
  }

  private async exportSource(payload: TSourcePayload, source: TAuditSource, property: TPropertyProfile, log: Logger): Promise<void> {
    const language = (LANGUAGES as readonly string[]).includes(property.language ?? '') ? (property.language as TLanguage) : 'en';
    const request = ZFolioExportRequest.parse(auditExportRequest(source, payload.businessDate, payload.format));
    const document = await buildFolioDocument(this.pool, payload.propertyId, language, request, new Date(), property, { maxRows: this.exporter.maxRows });
    const key = auditObjectKey(payload.propertyId, payload.businessDate, source, payload.format);
    const published = await this.exporter.publish(document, payload.format, key, log, undefined, 'batch');
    const item = { batchId: payload.batchId, run: payload.run, ...source };
    await recordSourceExported(this.pool, item, { ...published, folioIds: document.folios.map((f) => f.id) });
  }

  /** The last attempt's failures, into the batch (a source completed meanwhile stays completed). */
  async sourcesFailed(payload: TSourcePayload, failures: SourcesFailedError['failures']): Promise<void> {
    for (const { source, message } of failures) {
      await recordSourceFailed(this.pool, { batchId: payload.batchId, run: payload.run, ...source }, message);
    }
  }

  /**
   * Deletes the objects of sources this run no longer lists, writes manifest.json, ends the run
   * (announcing it once) and hands the property's place to its next waiting batch. Safe to run
   * again: a failure after the run ended (the hand-over) retries only what is left to do.
   */
  async writeManifest(payload: TManifestPayload) {
    const retired = await retiredItems(this.pool, payload.batchId, payload.run);
    for (const key of retired) await this.storage.delete(key);
    if (retired.length > 0) await dropRetiredItems(this.pool, payload.batchId, payload.run, retired);
    const items = await batchItems(this.pool, payload.batchId, payload.run);
    const files = items.filter((i) => i.status === 'completed');
    // A child that never reported (it cannot happen with ignoreDependencyOnFailure, but a manifest
    // must not claim a file it does not have) counts as failed.
    const failures = items.filter((i) => i.status !== 'completed');
    const manifest = {
      propertyId: payload.propertyId,
      businessDate: payload.businessDate,
      format: payload.format,
      batchId: payload.batchId,
      run: payload.run,
      generatedAt: new Date().toISOString(),
      total: items.length,
      files: files.map((i) => ({
        key: i.object_key, sourceKind: i.source_kind, sourceId: i.source_id, folioIds: i.folio_ids,
        size: Number(i.size), sha256: i.sha256, pages: i.pages, rows: i.rows,
      })),
      failures: failures.map((i) => ({ key: i.object_key, sourceKind: i.source_kind, sourceId: i.source_id, error: i.error ?? 'did not finish' })),
    };
    const key = manifestKey(payload.propertyId, payload.businessDate);
    await this.storage.put(key, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), 'application/json');
    const outcome = { manifestKey: key, total: items.length, completed: files.length, failed: failures.length };
    const batch = { batchId: payload.batchId, run: payload.run, withFailures: failures.length > 0, manifestKey: key };
    const recorded = await closeBatch(this.pool, batch, this.retentionDays, nightAuditCompletedEvent(payload, outcome));
    await this.outbox.enqueue(recorded.deliveryIds);
    await this.handOver(payload.propertyId);
    return outcome;
  }

  /**
   * The manifest job failed for good (its last attempt): the run ends `failed` with
   * `night_audit.failed`, and its place goes to the property's next waiting batch.
   */
  async manifestFailed(payload: TManifestPayload, message: string): Promise<void> {
    const data = { batchId: payload.batchId, propertyId: payload.propertyId, status: 'failed', error: `The manifest could not be written: ${message}` };
    const event = webhookEvent('night_audit.failed', batchRunSubject(payload.batchId, payload.run), data);
    const recorded = await failBatch(this.pool, payload, this.retentionDays, event);
    await this.outbox.enqueue(recorded.deliveryIds);
    await this.handOver(payload.propertyId);
  }

  /** A batch the queue refuses here is failed and announced by dispatchWaiting: nothing is left to retry. */
  private async handOver(propertyId: string): Promise<void> {
    await dispatchWaiting(this.pool, this.flows, propertyId, this.maxRunning);
  }

  async scheduled(payload: TScheduledPayload, now = new Date()) {
    const timezone = (await findPropertyProfile(this.pool, payload.propertyId))?.timezone;
    const businessDate = previousLocalDate(now, timezone ?? 'UTC');
    if (timezone === undefined) return { businessDate };
    const { batchId } = await startNightAudit(this.pool, this.flows, payload.propertyId, businessDate, 'PDF', { timezone, maxRunning: this.maxRunning });
    return { batchId, businessDate };
  }
}
