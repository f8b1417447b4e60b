// Jobs only the API can ask for (docs/security.md#jobs-only-the-api-can-ask-for): the vault and
// forward queues' check of every signed job, before its payload is read, a transit envelope opened
// or a record touched. A job whose signature is missing, does not verify, names a key the worker
// does not hold, or has expired is refused for good (UnrecoverableError: never retried), and the
// refusal has one owner here: its audit event (`job.refused`: the job's name, property, token id
// and reason, never the payload), its metric and its log line. Whoever can write to Redis can put
// a job on the queue; only the API can sign one.

import { UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from '@folio-vault/shared/logger';
import type { TMetrics } from '@folio-vault/shared/metrics';
import type { AuditLog } from '@folio-vault/shared/vault/audit-log';
import { jobRefusal, type TJobVerifyKeys } from '@folio-vault/shared/vault/job-signature';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import type { TJobGate } from '../jobs/processor-base.js';

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const modeOf = (value: unknown): TTokenizationMode | undefined => (value === 'test' || value === 'live' ? value : undefined);

/** The gate of the vault and forward queues, checking with the APIs' public keys (VAULT_JOB_VERIFY_KEYS). */
export function signedJobGate(keys: TJobVerifyKeys, audit: AuditLog, metrics?: Pick<TMetrics, 'vaultJobsRefused'>): TJobGate {
  return async (job: Job, log: Logger) => {
    const refusal = jobRefusal(keys, job.name, job.data);
    if (!refusal) return;
    metrics?.vaultJobsRefused.inc({ queue: job.queueName, name: job.name, reason: refusal });
    log.warn({ reason: refusal }, 'vault job refused: its signature does not verify');
    // What the job claims to be about, each kept only when well-formed (audit-log.ts): the data is
    // anyone's, so nothing else of it is read.
    const data = (job.data ?? {}) as Record<string, unknown>;
    const mode = modeOf(data.mode);
    const [tokenId, propertyId] = [text(data.tokenId), text(data.propertyId)];
    await audit
      .record([{
        action: 'job.refused',
        job: { name: job.name, refusal },
        requestId: text(data.requestId) ?? `job:${job.id ?? ''}`,
        ...(tokenId ? { tokenId } : {}),
        ...(propertyId ? { propertyId } : {}),
        ...(mode ? { mode } : {}),
      }])
      .catch((error: unknown) => log.error({ err: { message: (error as Error).message } }, 'audit event not written'));
    throw new UnrecoverableError(`vault job refused: ${refusal}`);
  };
}
