import { UnrecoverableError, Worker, type Job, type WorkerOptions } from 'bullmq';
import type { z } from 'zod';
import type { TWorkerConfig } from '@folio-vault/shared/config';
import type { TPgPool, TRedisClient } from '@folio-vault/shared/connections';
import { JOBS, type TJobName, type TJobResult, type TJobs } from '@folio-vault/shared/jobs/registry';
import type { Logger } from '@folio-vault/shared/logger';
import type { TMetrics } from '@folio-vault/shared/metrics';
import { queuesOf, type TQueueName } from '@folio-vault/shared/queues';
import { queueTelemetry } from '@folio-vault/shared/tracing/spans';
import { attemptOf } from './attempts.js';

export type THandler<N extends TJobName> = (payload: z.output<TJobs[N]['payload']>, job: Job) => Promise<TJobResult<N>>;
export type THandlers<N extends TJobName> = { [K in N]: THandler<K> };

/**
 * The check of a signed job (its definition's `signed`) before anything else reads it: resolves
 * when the job may run, throws UnrecoverableError when it is refused (vault/job-gate.ts).
 */
export type TJobGate = (job: Job, log: Logger) => Promise<void>;

/**
 * One processor for a queue: checks the job's name against the registry, a signed job's signature
 * with `gate` (a queue of signed jobs without one refuses them), then the payload (a payload that
 * does not validate will never validate: UnrecoverableError, no retries), runs the handler,
 * validates the result. Logs name the job id, queue and attempt, never the payload. With `metrics`,
 * every attempt is counted (jobs_total) and, when it reaches its handler, timed
 * (job_duration_seconds), by queue, job name and outcome.
 */
export function createProcessor<N extends TJobName>(handlers: THandlers<N>, logger: Logger, metrics?: TMetrics, gate?: TJobGate) {
  return async (job: Job): Promise<unknown> => {
    const name = job.name as N;
    const handler = handlers[name] as THandler<N> | undefined;
    let log = logger.child({ jobId: job.id, queue: job.queueName, job: job.name, attempt: attemptOf(job).number });
    if (!handler || !Object.hasOwn(JOBS, name)) {
      log.error('unknown job name');
      // Not a label value: a job name nobody registered could be anything.
      metrics?.jobsTotal.inc({ queue: job.queueName, name: 'unknown', outcome: 'failed' });
      throw new UnrecoverableError(`no processor for job ${job.name}`);
    }
    const definition: TJobs[TJobName] = JOBS[name];
    if ('signed' in definition && definition.signed) {
      if (!gate) throw new UnrecoverableError(`no signature check for job ${job.name} on this queue`);
      try {
        await gate(job, log);
      } catch (error) {
        metrics?.jobsTotal.inc({ queue: job.queueName, name, outcome: 'failed' });
        throw error;
      }
    }
    const parsed = definition.payload.safeParse(job.data);
    if (!parsed.success) {
      log.error({ issues: parsed.error.issues.map((issue) => issue.path.join('.')) }, 'job payload does not match its contract');
      metrics?.jobsTotal.inc({ queue: job.queueName, name, outcome: 'failed' });
      throw new UnrecoverableError(`payload of ${job.name} does not match its contract`);
    }
    // The request that caused the job, so its lines can be found with the API's.
    const requestId = (parsed.data as { requestId?: unknown }).requestId;
    if (typeof requestId === 'string') log = log.child({ requestId });
    const started = performance.now();
    const observe = (outcome: 'completed' | 'failed') => {
      const labels = { queue: job.queueName, name, outcome };
      metrics?.jobDuration.observe(labels, (performance.now() - started) / 1000);
      metrics?.jobsTotal.inc(labels);
    };
    try {
      const result = definition.result.parse(await handler(parsed.data as never, job));
      const done = { ms: Math.round(performance.now() - started) };
      if ('housekeeping' in definition && definition.housekeeping) log.debug(done, 'job done');
      else log.info(done, 'job done');
      observe('completed');
      return result;
    } catch (error) {
      // A wrapped error (e.g. StorageWriteError) carries the driver's reason in its cause.
      const cause = (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : undefined;
      log.warn({ err: { type: (error as Error).name, message: (error as Error).message, ...(cause ? { cause } : {}) } }, 'job failed');
      observe('failed');
      throw error;
    }
  };
}

/** What every domain's queue worker is built with (worker.ts hands the same to each). */
export interface TWorkerDeps {
  pool: TPgPool;
  connection: TRedisClient;
  logger: Logger;
  metrics: TMetrics;
  /** BullMQ's job lock and stalled-job check (WORKER_LOCK_MS). */
  locking: { lockDuration: number; stalledInterval: number };
}

/** A queue's BullMQ worker running `handlers`, `concurrency` jobs at once: how every domain builds its own. */
export function queueWorker<N extends TJobName>(
  config: TWorkerConfig,
  deps: TWorkerDeps,
  queue: string,
  handlers: THandlers<N>,
  options: { concurrency: number; settings?: WorkerOptions['settings']; gate?: TJobGate },
): Worker {
  const { gate, ...workerOptions } = options;
  return new Worker(queue, createProcessor(handlers, deps.logger, deps.metrics, gate), {
    connection: deps.connection,
    prefix: config.QUEUE_PREFIX,
    // A queue outside WORKER_QUEUES is never taken from: worker.ts closes its worker at once.
    autorun: queuesOf(config.WORKER_QUEUES).has(queue as TQueueName),
    // With tracing on, each job's processing span continues the trace of the request that added it.
    ...queueTelemetry(),
    ...deps.locking,
    ...workerOptions,
  });
}
