// A property's share of the API's PostgreSQL pool (docs/operations.md#a-database-share-per-property):
// one property holds at most `perProperty` of the pool's connections at once, so one tenant's heavy
// reads queue behind each other, not in front of another tenant's requests. A semaphore per property
// in front of the pool: a statement, or a transaction's connection, takes a permit first and gives it
// back when the statement ends or the connection is released. Past the share a property's requests
// wait their turn, first come first served, for at most the pool-wait budget, then answer 503.
//
// A transaction holds one permit from its BEGIN to its COMMIT or ROLLBACK and runs every statement
// on its own client: one that asked the property's share for a second connection while holding
// the first would wait on itself (db/transaction.ts).

import type { PoolClient } from 'pg';
import type { TPgPool } from '../connections.js';
import { AppError } from '../errors.js';

/** What a request answers when its property's share stayed full for the whole pool-wait budget. */
export const SHARE_BUSY_DETAILS = "The PostgreSQL database is busy with this property's other requests; retry shortly.";

/** The share of a pool of `poolSize` connections a fraction gives: rounded down, at least one connection. */
export function connectionsPerProperty(poolSize: number, fraction: number): number {
  return Math.max(1, Math.floor(poolSize * fraction));
}

interface TWaiter {
  grant(): void;
}

/** Per key, at most `limit` permits at once; the others wait in arrival order. */
export class KeyedSemaphore {
  private readonly held = new Map<string, { count: number; waiting: TWaiter[] }>();

  constructor(readonly limit: number) {}

  /**
   * A permit for `key`, or a rejection with `timeout()`'s error when none came within `waitMs`.
   * The function it resolves to gives the permit back; calling it again does nothing.
   */
  acquire(key: string, waitMs: number, timeout: () => Error): Promise<() => void> {
    const entry = this.held.get(key) ?? { count: 0, waiting: [] };
    this.held.set(key, entry);
    if (entry.count < this.limit) {
      entry.count += 1;
      return Promise.resolve(this.releaser(key, entry));
    }
    return new Promise((resolve, reject) => {
      const waiter: TWaiter = {
        grant: () => {
          clearTimeout(timer);
          resolve(this.releaser(key, entry));
        },
      };
      const timer = setTimeout(() => {
        entry.waiting.splice(entry.waiting.indexOf(waiter), 1);
        reject(timeout());
      }, waitMs);
      entry.waiting.push(waiter);
    });
  }

  /** Permits of `key` held now, and requests waiting for one. */
  usage(key: string): { held: number; waiting: number } {
    const entry = this.held.get(key);
    return { held: entry?.count ?? 0, waiting: entry?.waiting.length ?? 0 };
  }

  private releaser(key: string, entry: { count: number; waiting: TWaiter[] }): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The permit passes straight to the first in line; a key nobody holds or waits for is forgotten.
      const next = entry.waiting.shift();
      if (next) return next.grant();
      entry.count -= 1;
      if (entry.count === 0) this.held.delete(key);
    };
  }
}

/** The API's pool behind a share per property: `of(propertyId)` is what that property's requests query. */
export class PropertyShares {
  private readonly permits: KeyedSemaphore;
  private readonly waitMs: number;
  /** False when the share is the whole pool (DB_SHARE_PER_PROPERTY=1): the pool's own queue is the only one. */
  private readonly shared: boolean;

  /**
   * `poolSize` and `share`: PG_POOL_SIZE and DB_SHARE_PER_PROPERTY; `waitMs`: how long a request
   * waits for its turn (PG_POOL_WAIT_MS) before it answers 503.
   */
  constructor(
    /** The pool itself, for what serves no one property: the audit trail, the operator's panel, a signed link's export. */
    readonly pool: TPgPool,
    options: { poolSize: number; share: number; waitMs: number },
  ) {
    const perProperty = connectionsPerProperty(options.poolSize, options.share);
    this.permits = new KeyedSemaphore(perProperty);
    this.waitMs = options.waitMs;
    this.shared = perProperty < options.poolSize;
  }

  /** The pool as `propertyId`'s requests see it: each statement, each transaction's connection, within the property's share. */
  of(propertyId: string): TPgPool {
    if (!this.shared) return this.pool;
    const permit = () =>
      this.permits.acquire(propertyId, this.waitMs, () =>
        AppError.unavailable(SHARE_BUSY_DETAILS).withCause(
          new Error(`property ${propertyId} held its ${this.permits.limit} connections of the pool for the whole pool-wait budget (${this.waitMs} ms)`),
        ),
      );
    const query = async (...args: unknown[]) => {
      const release = await permit();
      try {
        return await (this.pool.query as (...args: unknown[]) => Promise<unknown>)(...args);
      } finally {
        release();
      }
    };
    const connect = async (): Promise<PoolClient> => {
      const release = await permit();
      let client: PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        release();
        throw error;
      }
      // The pool gives each checkout a release of its own; the permit goes back with it.
      const giveBack = client.release.bind(client);
      client.release = (error?: Error | boolean) => {
        release();
        giveBack(error);
      };
      return client;
    };
    // Promise forms only, as the service's code uses them.
    return { query: query as TPgPool['query'], connect };
  }

  /** Connections `propertyId` holds now, and requests waiting for one (the tests look). */
  usage(propertyId: string): { held: number; waiting: number } {
    return this.permits.usage(propertyId);
  }
}
