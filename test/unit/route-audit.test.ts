import { PassThrough } from 'node:stream';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouteAudit } from '@folio-vault/api/http/route-audit';
import { createLogger } from '@folio-vault/shared/logger';
import { AuditLog, type TAuditEvent } from '@folio-vault/shared/vault/audit-log';
import { countingPool } from '../support/counting-pool.js';
import { createDatabase } from '../support/world.js';

/**
 * The API's audit writer (apps/api/src/http/route-audit.ts) against a real PostgreSQL database of
 * its own: every event is one row, written by a statement of its own, and `flush` waits for the
 * writes still in flight (the API's shutdown relies on it). The pool counts the statements it is
 * asked to run.
 */
let pool: pg.Pool;
let statements: () => number;

beforeAll(async () => {
  const database = await createDatabase();
  ({ pool, statements } = countingPool(database.url));
});
afterAll(async () => pool?.end());

const event = (requestId: string): TAuditEvent => ({ action: 'token.read', httpStatus: 200, propertyId: '1', mode: 'test', requestId, subject: 'night-clerk' });

async function rows(prefix: string): Promise<string[]> {
  const result = await pool.query<{ request_id: string }>('SELECT request_id FROM audit.vault_events WHERE request_id LIKE $1 ORDER BY request_id', [`${prefix}%`]);
  return result.rows.map((row) => row.request_id);
}

describe('the API audit writer', () => {
  it('writes each event as a row of its own, one statement an event, all written once flush resolves', async () => {
    const audit = new RouteAudit(new AuditLog(pool));
    const logger = createLogger({ destination: new PassThrough() });
    const before = statements();
    for (const id of ['e-1', 'e-2', 'e-3']) audit.write(event(id), logger);
    await audit.flush();
    expect(statements() - before).toBe(3);
    expect(await rows('e-')).toEqual(['e-1', 'e-2', 'e-3']);
  });
});
