import { FlowProducer, Queue, QueueEvents } from 'bullmq';
import type { TApiConfig } from '@folio-vault/shared/config';
import { watchPgPool, watchRedis, watchStorage, type ConnectionLog } from '@folio-vault/shared/connection-log';
import { createPgPool, createPgProbe, createRedis, pgBudgetOf, quiet, type TPgPoolHandle, type TRedisClient } from '@folio-vault/shared/connections';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { closeConnections, type TCloser } from '@folio-vault/shared/shutdown';
import { createStorage } from '@folio-vault/shared/storage/create-storage';
import { queueTelemetry } from '@folio-vault/shared/tracing/spans';
import type { ObjectStorage } from '@folio-vault/shared/storage/object-storage';

/**
 * What the API holds open for its whole life (no per-request clients): one producer connection for
 * every queue, a QueueEvents per waited-on queue, the PostgreSQL pool and the storage client.
 */
export interface TApiResources {
  redis: TRedisClient;
  pool: TPgPoolHandle;
  /** /readyz's PostgreSQL check: a connection of its own, never waiting behind the pool. */
  pgProbe: { check(): Promise<void> };
  storage: ObjectStorage;
  vaultQueue: Queue;
  vaultEvents: QueueEvents;
  forwardQueue: Queue;
  forwardEvents: QueueEvents;
  exportQueue: Queue;
  exportEvents: QueueEvents;
  flows: FlowProducer;
  nightAuditQueue: Queue;
  /** Every queue of QUEUE_NAMES, for /admin/queues and the queue_jobs metric. */
  queues: Queue[];
  /** Each close bounded (createCloser): with Redis gone, QueueEvents.close() waits for it forever. */
  close(closer: TCloser): Promise<void>;
}

/** `connections` logs an outage of Redis, PostgreSQL or storage once, however many requests meet it. */
export async function openApiResources(config: TApiConfig, connections: ConnectionLog): Promise<TApiResources> {
  const redis = watchRedis(createRedis(config, 'producer'), connections);
  // As the API's role, which has no privilege on the vault's tables (docs/operations.md#database-roles).
  // Requests' budgets: a request over one answers 503 naming PostgreSQL (errors.ts).
  const pool = watchPgPool(createPgPool(config.API_DATABASE_URL, { max: config.PG_POOL_SIZE, budget: pgBudgetOf(config, 'api') }), connections);
  const pgProbe = createPgProbe(config.API_DATABASE_URL);
  // With tracing on, every job added carries the request's trace (tracing/bullmq-telemetry.ts).
  const queueOptions = { connection: redis, prefix: config.QUEUE_PREFIX, ...queueTelemetry() };
  const openQueue = (name: string) => quiet(new Queue(name, queueOptions));
  // QueueEvents read with a blocking XREAD: each gets a connection of its own.
  const eventConnections: TRedisClient[] = [];
  const openEvents = async (name: string) => {
    const connection = watchRedis(createRedis(config, 'events'), connections);
    eventConnections.push(connection);
    const events = quiet(new QueueEvents(name, { connection, prefix: config.QUEUE_PREFIX }));
    await events.waitUntilReady();
    return events;
  };

  const vaultQueue = openQueue(QUEUE_NAMES.vault);
  const vaultEvents = await openEvents(QUEUE_NAMES.vault);
  const forwardQueue = openQueue(QUEUE_NAMES.forward);
  const forwardEvents = await openEvents(QUEUE_NAMES.forward);
  const exportQueue = openQueue(QUEUE_NAMES.export);
  const exportEvents = await openEvents(QUEUE_NAMES.export);
  const flows = quiet(new FlowProducer(queueOptions));
  const nightAuditQueue = openQueue(QUEUE_NAMES.nightAudit);
  // The producer queues above are reused, the others opened on the same connection.
  const opened: Queue[] = [];
  const queues = Object.values(QUEUE_NAMES).map((name) => {
    const existing = [vaultQueue, forwardQueue, exportQueue, nightAuditQueue].find((queue) => queue.name === name);
    if (existing) return existing;
    const queue = openQueue(name);
    opened.push(queue);
    return queue;
  });

  return {
    redis,
    pool,
    pgProbe,
    storage: watchStorage(createStorage(config), connections),
    vaultQueue,
    vaultEvents,
    forwardQueue,
    forwardEvents,
    exportQueue,
    exportEvents,
    flows,
    nightAuditQueue,
    queues,
    async close(closer) {
      const closing: Array<[string, { close(): Promise<void> }]> = [
        ['vault queue events', vaultEvents],
        ['forward queue events', forwardEvents],
        ['export queue events', exportEvents],
        ...[vaultQueue, forwardQueue, exportQueue, nightAuditQueue, ...opened].map((queue): [string, Queue] => [`queue ${queue.name}`, queue]),
        ['flow producer', flows],
        ['postgresql probe', { close: () => pgProbe.end() }],
      ];
      await closeConnections(
        closer,
        closing.map(([what, closable]) => [what, () => closable.close()] as const),
        [redis, ...eventConnections],
        pool,
      );
    },
  };
}
