import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, inject } from 'vitest';
import { GATEWAY_MODE_TTL_MS, gatewayModeOf, rememberedGatewayModes } from '@folio-vault/api/vault/gateway-mode-cache';
import { createDatabase } from '../support/world.js';

/**
 * The gateway-mode cache (a kept performance measure, apps/api/src/vault/gateway-mode-cache.ts) against a real PostgreSQL database of its own (cloned from the migrated
 * template). The pool counts the queries it is asked to run, and the cache's clock is stepped by
 * hand, so "no query within the TTL" and "a query after it" are counts, not timings.
 */
let database: { name: string; url: string };
let pool: pg.Pool;
let queries = 0;
let now = 0;

const clock = () => now;

async function setMode(propertyId: number, mode: 'test' | 'live'): Promise<void> {
  await pool.query(
    `INSERT INTO properties (id, name, currency, timezone, gateway_mode) VALUES ($1, 'Cache Hotel', 'EUR', 'Europe/Madrid', $2)
     ON CONFLICT (id) DO UPDATE SET gateway_mode = EXCLUDED.gateway_mode`,
    [propertyId, mode],
  );
}

beforeAll(async () => {
  database = await createDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    queries += 1;
    return query(...args);
  }) as typeof pool.query;
});

afterAll(async () => {
  await pool?.end();
  if (!database) return;
  const admin = new pg.Client({ connectionString: inject('postgresUrl') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`);
  await admin.end();
});

beforeEach(async () => {
  await pool.query('DELETE FROM properties');
  now = 1_000_000;
});

/** Queries the cache sends while `action` runs (the test's own statements are not counted). */
async function queriesOf<T>(action: () => Promise<T>): Promise<[T, number]> {
  const before = queries;
  const result = await action();
  return [result, queries - before];
}

describe('rememberedGatewayModes', () => {
  it('answers a known mode from memory within the TTL, without asking PostgreSQL', async () => {
    await setMode(1, 'test');
    const modes = rememberedGatewayModes(() => pool, GATEWAY_MODE_TTL_MS, clock);
    expect(await queriesOf(() => modes('1'))).toEqual(['test', 1]);

    // The row changes, but within the TTL the remembered mode stands and PostgreSQL is not asked.
    await setMode(1, 'live');
    now += GATEWAY_MODE_TTL_MS - 1;
    expect(await queriesOf(() => modes('1'))).toEqual(['test', 0]);
    expect(await queriesOf(() => modes('1'))).toEqual(['test', 0]);
  });

  it('asks again once the TTL has passed, and sees a changed mode', async () => {
    await setMode(1, 'test');
    const modes = rememberedGatewayModes(() => pool, GATEWAY_MODE_TTL_MS, clock);
    await modes('1');
    await setMode(1, 'live');
    now += GATEWAY_MODE_TTL_MS;
    expect(await queriesOf(() => modes('1'))).toEqual(['live', 1]);
    // Remembered again from this answer, for a new TTL.
    now += GATEWAY_MODE_TTL_MS - 1;
    expect(await queriesOf(() => modes('1'))).toEqual(['live', 0]);
  });

  it('does not remember an unknown property: it asks every time and sees the property once imported', async () => {
    const modes = rememberedGatewayModes(() => pool, GATEWAY_MODE_TTL_MS, clock);
    expect(await queriesOf(() => modes('2'))).toEqual([undefined, 1]);
    expect(await queriesOf(() => modes('2'))).toEqual([undefined, 1]);
    await setMode(2, 'live');
    expect(await queriesOf(() => modes('2'))).toEqual(['live', 1]);
    expect(await queriesOf(() => modes('2'))).toEqual(['live', 0]);
  });

  it('forgets a property that is gone once its TTL has passed', async () => {
    await setMode(3, 'test');
    const modes = rememberedGatewayModes(() => pool, GATEWAY_MODE_TTL_MS, clock);
    await modes('3');
    await pool.query('DELETE FROM properties WHERE id = 3');
    now += GATEWAY_MODE_TTL_MS;
    expect(await queriesOf(() => modes('3'))).toEqual([undefined, 1]);
    expect(await queriesOf(() => modes('3'))).toEqual([undefined, 1]);
  });

  it('remembers each property on its own', async () => {
    await setMode(4, 'test');
    await setMode(5, 'live');
    const modes = rememberedGatewayModes(() => pool, GATEWAY_MODE_TTL_MS, clock);
    expect(await queriesOf(() => modes('4'))).toEqual(['test', 1]);
    expect(await queriesOf(() => modes('5'))).toEqual(['live', 1]);
    expect(await queriesOf(() => Promise.all([modes('4'), modes('5')]))).toEqual([['test', 'live'], 0]);
  });
});

describe('gatewayModeOf (PERFORMANCE_MEASURES_OFF=gateway-mode-cache)', () => {
  it('asks PostgreSQL every time and sees a change at once', async () => {
    await setMode(6, 'test');
    const modes = gatewayModeOf(() => pool);
    expect(await queriesOf(() => modes('6'))).toEqual(['test', 1]);
    await setMode(6, 'live');
    expect(await queriesOf(() => modes('6'))).toEqual(['live', 1]);
  });
});
