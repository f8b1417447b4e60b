import type { Queue, Worker } from 'bullmq';
import type { TWorkerConfig } from '@folio-vault/shared/config';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { AuditLog } from '@folio-vault/shared/vault/audit-log';
import type { TKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { jobVerifyKeys } from '@folio-vault/shared/vault/job-signature';
import type { TKeyProvider } from '@folio-vault/shared/vault/keys/key-provider';
import { VAULT_SWEEP_SCHEDULER_ID, vaultSweepJob } from '@folio-vault/shared/vault/vault-sweep-job';
import { queueWorker, type TWorkerDeps } from '../jobs/processor-base.js';
import { CardRepository } from './card-repository.js';
import { CardVault } from './card-vault.js';
import { CardForwarder } from './forward/card-forwarder.js';
import { ForwardAttempts } from './forward/forward-attempts.js';
import { GatewayClients } from './forward/gateway-client.js';
import { signedJobGate } from './job-gate.js';
import { forwardHandlers, vaultHandlers } from './vault-processor.js';
import { VaultSweep } from './vault-sweep.js';
import type { KeyCoverage } from './key-coverage.js';

export interface TVaultWorkers {
  workers: Worker[];
  /** The forward destinations' HTTP pools; closed after the workers. */
  gateways: GatewayClients;
}

/**
 * The vault's consumers: the vault queue (tokenize, read, delete, search, sweep) and the forward
 * queue, each WORKER_CONCURRENCY wide, with the key provider and the destinations' credentials that
 * only a worker holds (and what those keys cannot open, which the sweep says again when it changes). Both check every job the API signs against `jobKeys` (the APIs' public job
 * signing keys) before anything else (job-gate.ts).
 */
export function startVaultWorkers(config: TWorkerConfig, deps: TWorkerDeps, keys: TKeyProvider, jobKeys: TKeyring, coverage: KeyCoverage): TVaultWorkers {
  const { pool, logger, metrics } = deps;
  const audit = new AuditLog(pool);
  const gate = signedJobGate(jobVerifyKeys(jobKeys), audit, metrics);
  const repository = new CardRepository(pool);
  const vault = new CardVault(repository, keys, config.VAULT_CVV_HOLD_SECONDS);
  const attempts = new ForwardAttempts(pool);
  const sweep = new VaultSweep(repository, vault, audit, logger, attempts, coverage, metrics);
  const gateways = new GatewayClients(config.forwardGateways, { maxAnswerBytes: config.FORWARD_MAX_ANSWER_BYTES });
  const forwarder = new CardForwarder(vault, repository, attempts, gateways, config.forwardGateways, logger, metrics);
  // A forward still waiting on its gateway when the grace ends is handed back, and its client gets
  // FORWARD_OUTCOME_UNKNOWN: say so at start when a destination may wait longer than the grace.
  const slow = config.forwardGateways.filter((destination) => destination.timeoutMs >= config.SHUTDOWN_GRACE_MS);
  if (slow.length > 0) {
    logger.warn(
      { destinations: slow.map((destination) => destination.name), shutdownGraceMs: config.SHUTDOWN_GRACE_MS },
      'forward destinations may wait longer than SHUTDOWN_GRACE_MS: a forward in flight at shutdown would end as FORWARD_OUTCOME_UNKNOWN',
    );
  }
  return {
    workers: [
      queueWorker(config, deps, QUEUE_NAMES.vault, vaultHandlers(vault, sweep), { concurrency: config.WORKER_CONCURRENCY, gate }),
      queueWorker(config, deps, QUEUE_NAMES.forward, forwardHandlers(forwarder), { concurrency: config.WORKER_CONCURRENCY, gate }),
    ],
    gateways,
  };
}

/**
 * Upserts the vault sweep's job scheduler (one stable id: every worker upserting it at start leaves
 * one schedule, at the interval of the last one started).
 */
export async function scheduleVaultSweep(queue: Queue, everySeconds: number): Promise<void> {
  await queue.upsertJobScheduler(
    VAULT_SWEEP_SCHEDULER_ID,
    // BullMQ runs an `every` scheduler's first job at once: a worker that starts re-fingerprints old
    // records and shreds what expired while no worker ran, without waiting a whole interval.
    { every: everySeconds * 1000 },
    { name: vaultSweepJob.name, data: { version: 1 }, opts: vaultSweepJob.options },
  );
}
