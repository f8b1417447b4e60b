import type { ConnectionLog } from '@folio-vault/shared/connection-log';
import { connectionFailureOf } from '@folio-vault/shared/errors';
import type { Logger } from '@folio-vault/shared/logger';

/**
 * What a BullMQ worker's `error` event becomes in the log. Its connections failing (Redis away: an
 * ECONNREFUSED per reconnect attempt, per connection) is the connection log's, which logs the
 * outage once. A lost job lock ("Missing lock for job …", "could not renew lock for job …")
 * follows an outage or a stall: the job is handed out again and its handlers are safe to run
 * twice, so it is a warning. Anything else is an error of ours.
 */
export function logWorkerError(error: Error, queue: string, logger: Logger, connections: ConnectionLog): void {
  const store = connectionFailureOf(error);
  if (store) {
    connections.failed(store === 'postgres' || store === 'storage' ? store : 'redis', error);
    return;
  }
  if (/^(Missing lock for job|could not renew lock for job)/.test(error.message)) {
    logger.warn({ reason: error.message, queue }, 'job lock lost; the job is handed out again');
    return;
  }
  logger.error({ err: error, queue }, 'worker error');
}
