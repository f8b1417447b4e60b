import type { Queue } from 'bullmq';
import type { TPgPool } from '@folio-vault/shared/connections';
import { ExportStore, EXPIRE_BATCH } from '@folio-vault/shared/exports/export-store';
import { RETENTION_SWEEP_SCHEDULER_ID, retentionSweepJob } from '@folio-vault/shared/exports/retention-sweep-job';
import type { TJobResult } from '@folio-vault/shared/jobs/registry';
import type { Logger } from '@folio-vault/shared/logger';
import type { TMetrics } from '@folio-vault/shared/metrics';
import { expireDueBatches } from '@folio-vault/shared/night-audit/batches';
import type { ObjectStorage } from '@folio-vault/shared/storage/object-storage';

/** At most this many batches of each kind in one run: the next run carries on. */
const MAX_BATCHES = 20;
/** Night-audit batches per transaction: each holds a file per source, so fewer than exports. */
const NIGHT_AUDIT_BATCH = 20;

/**
 * The retention sweep (docs/export.md#retention), run by the `retention-sweep` job every
 * RETENTION_SWEEP_SECONDS: on-demand exports past `expires_at` (EXPORT_RETENTION_SECONDS after
 * completion) lose their object and become `expired`; night-audit batches past theirs
 * (NIGHT_AUDIT_RETENTION_DAYS) lose every file and the manifest. The two are apart: one never
 * touches the other's objects. Deletes come before the status change commits, so a sweep that
 * dies half-way leaves the rows due and the next run deletes again (at least once; a missing
 * object is no error).
 */
export class RetentionSweep {
  private readonly store: ExportStore;

  constructor(
    private readonly pool: TPgPool,
    private readonly storage: ObjectStorage,
    private readonly logger: Logger,
    private readonly metrics?: TMetrics,
  ) {
    this.store = new ExportStore(pool);
  }

  async run(): Promise<TJobResult<'retention-sweep'>> {
    const totals = { exports: 0, nightAuditBatches: 0, nightAuditFiles: 0, nightAuditManifests: 0 };
    const remove = (key: string) => this.storage.delete(key);
    for (let n = 0; n < MAX_BATCHES; n += 1) {
      const expired = await this.store.expireDue(remove);
      totals.exports += expired;
      this.metrics?.retentionSweepDeleted.inc({ kind: 'export' }, expired);
      if (expired < EXPIRE_BATCH) break;
    }
    for (let n = 0; n < MAX_BATCHES; n += 1) {
      const expired = await expireDueBatches(this.pool, NIGHT_AUDIT_BATCH, remove);
      totals.nightAuditBatches += expired.batches;
      totals.nightAuditFiles += expired.files;
      totals.nightAuditManifests += expired.manifests;
      this.metrics?.retentionSweepDeleted.inc({ kind: 'night_audit_file' }, expired.files);
      this.metrics?.retentionSweepDeleted.inc({ kind: 'night_audit_manifest' }, expired.manifests);
      if (expired.batches < NIGHT_AUDIT_BATCH) break;
    }
    if (Object.values(totals).some((count) => count > 0)) this.logger.info(totals, 'retention sweep');
    return totals;
  }
}

/**
 * Upserts the retention sweep's job scheduler (one stable id: every worker upserting it at start
 * leaves one schedule, at the interval of the last one started). BullMQ runs an `every`
 * scheduler's first job at once, so what expired while no worker ran goes without waiting.
 */
export async function scheduleRetentionSweep(queue: Queue, everySeconds: number): Promise<void> {
  await queue.upsertJobScheduler(
    RETENTION_SWEEP_SCHEDULER_ID,
    { every: everySeconds * 1000 },
    { name: retentionSweepJob.name, data: { version: 1 }, opts: retentionSweepJob.options },
  );
}
