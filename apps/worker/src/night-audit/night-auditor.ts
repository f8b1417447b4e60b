import type { FlowProducer } from 'bullmq';
import type { z } from 'zod';
import type { TPgPool } from '@folio-vault/shared/connections';
import { LANGUAGES, type TLanguage } from '@folio-vault/shared/i18n/languages';
import type { nightAuditManifestJob, nightAuditScheduledJob, nightAuditSourceJob } from '@folio-vault/shared/night-audit/night-audit-job';
import type { Logger } from '@folio-vault/shared/logger';
import { batchItems, closeBatch, recordSourceExported, recordSourceFailed, startNightAudit } from '@folio-vault/shared/night-audit/batches';
import { findPropertyProfile } from '@folio-vault/shared/properties/property-store';
import { auditExportRequest, auditObjectKey, manifestKey, previousLocalDate } from '@folio-vault/shared/night-audit/selection';
import { ZFolioExportRequest } from '@folio-vault/shared/exports/schemas';
import type { ObjectStorage } from '@folio-vault/shared/storage/object-storage';
import { buildFolioDocument, loadProperty } from '../exports/build-document.js';
import type { FolioExporter } from '../exports/folio-exporter.js';

/**
 * The worker's side of night audits: one source's export (a flow child), the manifest (the flow's
 * parent, once every child has finished or failed for good), and the scheduled start. Every step
 * is safe to run twice: items are keyed by (batch, source) and only the current run may write them.
 */
type TSourcePayload = z.output<(typeof nightAuditSourceJob)['payload']>;
type TManifestPayload = z.output<(typeof nightAuditManifestJob)['payload']>;
type TScheduledPayload = z.output<(typeof nightAuditScheduledJob)['payload']>;

export class NightAuditor {
  constructor(
    private readonly pool: TPgPool,
    private readonly exporter: FolioExporter,
    private readonly storage: ObjectStorage,
    private readonly flows: FlowProducer,
  ) {}

  async exportSource(payload: TSourcePayload, log: Logger) {
    // Four round trips a source (a batch is thousands of them): the property (its language too),
    // the folios, the rows, and one statement that records the file and marks the batch running.
    const property = await loadProperty(this.pool, payload.propertyId);
    const language = (LANGUAGES as readonly string[]).includes(property.language ?? '') ? (property.language as TLanguage) : 'en';
    const source = { sourceKind: payload.sourceKind, sourceId: payload.sourceId };
    const request = ZFolioExportRequest.parse(auditExportRequest(source, payload.businessDate, payload.format));
    const document = await buildFolioDocument(this.pool, payload.propertyId, language, request, new Date(), property);
    const key = auditObjectKey(payload.propertyId, payload.businessDate, source, payload.format);
    const published = await this.exporter.publish(document, payload.format, key, log);
    await recordSourceExported(this.pool, payload, { ...published, folioIds: document.folios.map((f) => f.id) });
    return published;
  }

  async sourceFailed(payload: TSourcePayload, error: string): Promise<void> {
    await recordSourceFailed(this.pool, payload, error);
  }

  async writeManifest(payload: TManifestPayload) {
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
    // night_audit.completed is recorded in the closing transaction, its job added once committed.
    const announced = this.exporter.webhooks?.nightAuditCompleted(payload, outcome);
    await closeBatch(this.pool, payload.batchId, payload.run, failures.length > 0, key, this.exporter.retention.nightAuditDays, announced?.publish);
    await announced?.enqueue();
    return outcome;
  }

  async scheduled(payload: TScheduledPayload, now = new Date()) {
    const timezone = (await findPropertyProfile(this.pool, payload.propertyId))?.timezone;
    const businessDate = previousLocalDate(now, timezone ?? 'UTC');
    if (timezone === undefined) return { businessDate };
    const { batchId } = await startNightAudit(this.pool, this.flows, payload.propertyId, businessDate, 'PDF', timezone);
    return { batchId, businessDate };
  }
}
