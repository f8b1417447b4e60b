import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, inject } from 'vitest';
import { findPropertyGatewayMode } from '@folio-vault/shared/properties/property-store';
import { countingPool } from '../support/counting-pool.js';
import { createDatabase } from '../support/world.js';

/**
 * A property's gateway mode as the API's tokenize and forward checks read it
 * (findPropertyGatewayMode, on every request) against a real PostgreSQL database of its own
 * (cloned from the migrated template). The pool counts the queries it is asked to run.
 */
let database: { name: string; url: string };
let pool: pg.Pool;
let queries: () => number;

async function setMode(propertyId: number, mode: 'test' | 'live'): Promise<void> {
  await pool.query(
    `INSERT INTO properties (id, name, currency, timezone, gateway_mode) VALUES ($1, 'Cache Hotel', 'EUR', 'Europe/Madrid', $2)
     ON CONFLICT (id) DO UPDATE SET gateway_mode = EXCLUDED.gateway_mode`,
    [propertyId, mode],
  );
}

beforeAll(async () => {
  database = await createDatabase();
  ({ pool, statements: queries } = countingPool(database.url));
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
});

/** Queries sent while `action` runs (the test's own statements are not counted). */
async function queriesOf<T>(action: () => Promise<T>): Promise<[T, number]> {
  const before = queries();
  const result = await action();
  return [result, queries() - before];
}

describe('the gateway mode of a property', () => {
  it('is read from PostgreSQL on every ask, so a changed mode is seen at once', async () => {
    await setMode(6, 'test');
    const modeOf = (id: string) => findPropertyGatewayMode(pool, id);
    expect(await queriesOf(() => modeOf('6'))).toEqual(['test', 1]);
    await setMode(6, 'live');
    expect(await queriesOf(() => modeOf('6'))).toEqual(['live', 1]);
  });

  it('is unknown for a property not imported, and known once it is', async () => {
    expect(await queriesOf(() => findPropertyGatewayMode(pool, '2'))).toEqual([undefined, 1]);
    await setMode(2, 'live');
    expect(await queriesOf(() => findPropertyGatewayMode(pool, '2'))).toEqual(['live', 1]);
  });
});
