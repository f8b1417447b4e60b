import { UnrecoverableError, type Job } from 'bullmq';
import type { z } from 'zod';
import { JOBS, type TJobName, type TJobResult, type TJobs } from '@folio-vault/shared/jobs/registry';
import type { Logger } from '@folio-vault/shared/logger';

export type THandler<N extends TJobName> = (payload: z.output<TJobs[N]['payload']>, job: Job) => Promise<TJobResult<N>>;
export type THandlers<N extends TJobName> = { [K in N]: THandler<K> };

/**
 * One processor for a queue: checks the job's name and payload against the registry (a payload
 * that does not validate will never validate: UnrecoverableError, no retries), runs the handler,
 * validates the result. Logs name the job id, queue and attempt, never the payload.
 */
export function createProcessor<N extends TJobName>(handlers: THandlers<N>, logger: Logger) {
  return async (job: Job): Promise<unknown> => {
    const name = job.name as N;
    const handler = handlers[name] as THandler<N> | undefined;
    let log = logger.child({ jobId: job.id, queue: job.queueName, job: job.name, attempt: job.attemptsMade + 1 });
    if (!handler || !Object.hasOwn(JOBS, name)) {
      log.error('unknown job name');
      throw new UnrecoverableError(`no processor for job ${job.name}`);
    }
    const definition = JOBS[name];
    const parsed = definition.payload.safeParse(job.data);
    if (!parsed.success) {
      log.error({ issues: parsed.error.issues.map((issue) => issue.path.join('.')) }, 'job payload does not match its contract');
      throw new UnrecoverableError(`payload of ${job.name} does not match its contract`);
    }
    // The request that caused the job, so its lines can be found with the API's.
    const requestId = (parsed.data as { requestId?: unknown }).requestId;
    if (typeof requestId === 'string') log = log.child({ requestId });
    const started = performance.now();
    try {
      const result = definition.result.parse(await handler(parsed.data as never, job));
      log.info({ ms: Math.round(performance.now() - started) }, 'job done');
      return result;
    } catch (error) {
      log.warn({ err: { type: (error as Error).name, message: (error as Error).message } }, 'job failed');
      throw error;
    }
  };
}
