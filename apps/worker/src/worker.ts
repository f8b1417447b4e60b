import { Worker } from 'bullmq';
import { vaultKeys, type TConfig } from '@folio-vault/shared/config';
import { createPgPool, createRedis } from '@folio-vault/shared/connections';
import type { TVaultJobData, TVaultJobName, TVaultJobResult } from '@folio-vault/shared/jobs/registry';
import type { Logger } from '@folio-vault/shared/logger';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { createStorage } from '@folio-vault/shared/storage/create-storage';
import { ExportRepository } from './export/export-repository.js';
import { FolioExporter } from './export/folio-exporter.js';
import { RenderPool } from './export/render-pool.js';
import { createProcessor } from './processors/base.js';
import { exportHandlers } from './processors/export.js';
import { vaultHandlers } from './processors/vault.js';
import { CardRepository } from './vault/card-repository.js';
import { CardVault } from './vault/card-vault.js';

export interface TRunningWorker {
  /** Finishes active jobs (up to the grace period), then closes connections. */
  close(): Promise<void>;
}

export async function startWorker(config: TConfig, logger: Logger): Promise<TRunningWorker> {
  const pool = createPgPool(config.DATABASE_URL, { max: Math.min(config.WORKER_CONCURRENCY, 20) });
  const connection = createRedis(config.REDIS_URL, 'worker');
  const vault = new CardVault(new CardRepository(pool), vaultKeys(config));

  const renderer = new RenderPool(config.EXPORT_CONCURRENCY);
  const exportRepository = new ExportRepository(pool);
  const exporter = new FolioExporter(pool, exportRepository, createStorage(config), renderer);

  const vaultWorker = new Worker<TVaultJobData, TVaultJobResult, TVaultJobName>(
    QUEUE_NAMES.vault,
    createProcessor(vaultHandlers(vault), logger) as never,
    { connection, prefix: config.QUEUE_PREFIX, concurrency: config.WORKER_CONCURRENCY },
  );
  // Renders run in the render pool, so the export worker takes as many jobs as the pool has processes.
  const exportWorker = new Worker(QUEUE_NAMES.export, createProcessor(exportHandlers(exporter, exportRepository, logger), logger), {
    connection,
    prefix: config.QUEUE_PREFIX,
    concurrency: config.EXPORT_CONCURRENCY,
  });
  const workers = [vaultWorker, exportWorker];
  for (const worker of workers) {
    worker.on('error', (error) => logger.error({ err: { message: error.message }, queue: worker.name }, 'worker error'));
  }
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  logger.info({ queues: [QUEUE_NAMES.vault, QUEUE_NAMES.export], concurrency: config.WORKER_CONCURRENCY, exportConcurrency: config.EXPORT_CONCURRENCY }, 'worker ready');

  return {
    async close() {
      // worker.close() waits for active jobs; past the grace period, force it: jobs still active
      // are handed back (their locks lapse and another worker takes them as stalled).
      const graceful = Promise.all(workers.map((worker) => worker.close()));
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        graceful.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), config.SHUTDOWN_GRACE_MS);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) {
        logger.warn('active jobs did not finish within the grace period; handing them back');
        await Promise.all(workers.map((worker) => worker.close(true)));
      }
      await renderer.close();
      connection.disconnect();
      await pool.end();
    },
  };
}
