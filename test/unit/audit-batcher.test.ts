import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBatched, writeEach } from '@folio-vault/api/http/audit-batcher';
import { AuditLog, type TAuditEvent } from '@folio-vault/shared/vault/audit-log';
import { createDatabase } from '../support/world.js';

/**
 * The audit writes of the API (apps/api/src/http/audit-batcher.ts) against a real PostgreSQL
 * database of its own: the events of one turn of the event loop go in one statement (a kept
 * performance measure), each caller still waits for its own row; with the measure off, one
 * statement an event. The pool counts the statements it is asked to run.
 */
let pool: pg.Pool;
let statements = 0;

beforeAll(async () => {
  const database = await createDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    statements += 1;
    return query(...args);
  }) as typeof pool.query;
});
afterAll(async () => pool?.end());

const event = (requestId: string): TAuditEvent => ({ action: 'token.read', httpStatus: 200, propertyId: '1', mode: 'test', requestId, subject: 'night-clerk' });

async function rows(prefix: string): Promise<string[]> {
  const result = await pool.query<{ request_id: string }>('SELECT request_id FROM audit.vault_events WHERE request_id LIKE $1 ORDER BY request_id', [`${prefix}%`]);
  return result.rows.map((row) => row.request_id);
}

describe('audit writes', () => {
  it('batched: the events of one turn in one statement, each caller waiting for its own row, the next turn in another', async () => {
    const write = writeBatched(new AuditLog(pool));
    const before = statements;
    await Promise.all(['b-1', 'b-2', 'b-3'].map((id) => write(event(id))));
    expect(statements - before).toBe(1);
    await write(event('b-4'));
    expect(statements - before).toBe(2);
    expect(await rows('b-')).toEqual(['b-1', 'b-2', 'b-3', 'b-4']);
  });

  it('each: one statement an event (PERFORMANCE_MEASURES_OFF=audit-batching)', async () => {
    const write = writeEach(new AuditLog(pool));
    const before = statements;
    await Promise.all(['e-1', 'e-2', 'e-3'].map((id) => write(event(id))));
    expect(statements - before).toBe(3);
    expect(await rows('e-')).toEqual(['e-1', 'e-2', 'e-3']);
  });
});
