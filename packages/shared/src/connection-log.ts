import { pingRedis, type TPgPoolHandle, type TRedisClient } from './connections.js';
import { connectionFailureOf, type TStoreName } from './errors.js';
import type { Logger } from './logger.js';
import type { ObjectStorage } from './storage/object-storage.js';
import { within } from './within.js';

interface TOutage {
  since: number;
  suppressed: number;
  timer?: NodeJS.Timeout;
}

/**
 * A store's outage in the log as two lines, not a line per error: the first failure is a warning,
 * "redis unavailable" with that error's message; the errors after it are only counted; and when
 * the store answers again, "redis available again after 3105 ms, 212 errors suppressed". While a
 * store is away, its probe (a PING, a SELECT 1, a storage ping) runs every `probeEveryMs` to see
 * it come back, so the recovery is logged even when nothing else asks the store.
 */
export class ConnectionLog {
  private readonly outages = new Map<TStoreName, TOutage>();
  private readonly probes = new Map<TStoreName, () => Promise<unknown>>();
  /** One error reaches several listeners (a client and each BullMQ object on it): counted once. */
  private readonly seen = new WeakSet<object>();
  private closed = false;

  constructor(
    private readonly logger: Logger,
    private readonly probeEveryMs = 1_000,
  ) {}

  /** How to check that `store` answers again; the first registered stays. */
  probe(store: TStoreName, check: () => Promise<unknown>): void {
    if (!this.probes.has(store)) this.probes.set(store, check);
  }

  failed(store: TStoreName, error: unknown): void {
    if (typeof error === 'object' && error !== null) {
      if (this.seen.has(error)) return;
      this.seen.add(error);
    }
    const outage = this.outages.get(store);
    if (outage) {
      outage.suppressed += 1;
      return;
    }
    const { message, code } = (error ?? {}) as { message?: unknown; code?: unknown };
    this.logger.warn({ store, reason: String(message), ...(typeof code === 'string' ? { code } : {}) }, `${store} unavailable`);
    const started: TOutage = { since: Date.now(), suppressed: 0 };
    this.outages.set(store, started);
    this.scheduleProbe(store, started);
  }

  available(store: TStoreName): void {
    const outage = this.outages.get(store);
    if (!outage) return;
    clearTimeout(outage.timer);
    this.outages.delete(store);
    const downMs = Date.now() - outage.since;
    this.logger.info({ store, downMs, suppressed: outage.suppressed }, `${store} available again after ${downMs} ms, ${outage.suppressed} errors suppressed`);
  }

  /** Stops the probes (shutdown); an outage still open is left unlogged. */
  close(): void {
    this.closed = true;
    for (const outage of this.outages.values()) clearTimeout(outage.timer);
  }

  private scheduleProbe(store: TStoreName, outage: TOutage): void {
    const check = this.probes.get(store);
    if (!check || this.closed) return;
    outage.timer = setTimeout(() => {
      within(Promise.resolve().then(check), this.probeEveryMs).then(
        () => this.available(store),
        () => {
          if (this.outages.get(store) === outage) this.scheduleProbe(store, outage);
        },
      );
    }, this.probeEveryMs);
    // A probe must not keep a stopping process alive.
    outage.timer.unref();
  }
}

/** Errors of a Redis client go to the connection log (also: no `error` event without a listener). */
export function watchRedis<T extends TRedisClient>(client: T, log: ConnectionLog): T {
  client.on('error', (error: unknown) => log.failed('redis', error));
  client.on('ready', () => log.available('redis'));
  log.probe('redis', () => pingRedis(client));
  return client;
}

/**
 * Connection failures of a PostgreSQL pool go to the connection log, whoever ran the query: the
 * pool's query and connect are wrapped (their promise reaches the caller unchanged), and an idle
 * client that loses its server is reported too instead of crashing the process.
 */
export function watchPgPool(pool: TPgPoolHandle, log: ConnectionLog): TPgPoolHandle {
  const report = (error: unknown) => {
    if (connectionFailureOf(error)) log.failed('postgres', error);
  };
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  const reporting = (call: (...args: unknown[]) => unknown) => (...args: unknown[]) => {
    const result = call(...args);
    // Callback forms return nothing; the caller hears of the error either way.
    if (result instanceof Promise) result.catch(report);
    return result;
  };
  pool.query = reporting(query) as typeof pool.query;
  pool.connect = reporting(connect) as typeof pool.connect;
  pool.on('error', report);
  log.probe('postgres', () => query('SELECT 1') as Promise<unknown>);
  return pool;
}

/** The same store, with the failures that say it cannot be reached going to the connection log. */
export function watchStorage(storage: ObjectStorage, log: ConnectionLog): ObjectStorage {
  const reported = <T>(work: Promise<T>): Promise<T> =>
    work.catch((error: unknown) => {
      if (connectionFailureOf(error)) log.failed('storage', error);
      throw error;
    });
  log.probe('storage', () => storage.ping());
  return {
    driver: storage.driver,
    ping: () => storage.ping(),
    put: (key, body, contentType) => reported(storage.put(key, body, contentType)),
    putFile: (key, path, contentType) => reported(storage.putFile(key, path, contentType)),
    delete: (key) => reported(storage.delete(key)),
    presignedGet: (key, seconds, filename) => storage.presignedGet(key, seconds, filename),
    get: (key) => reported(storage.get(key)),
    size: (key) => reported(storage.size(key)),
  };
}
