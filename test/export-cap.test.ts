import { Queue } from 'bullmq';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TRunningApi } from '@folio-vault/api/server';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { AnswerLog, EXPORT, STATUS, expectError, expectNoInternals, expectRetryAfter, report } from './support/abuse.js';
import { PROPERTY_1, PROPERTY_2, importOk } from './support/ledger-fixture.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * The cap on exports in flight per property through the real app (docs/api.md#abuse-limits): past
 * EXPORT_QUEUE_CAP_PER_PROPERTY exports queued or running a new one is 429, an identical one still
 * joins the export in flight, and two API processes together never let more through. The cap is 2
 * in this file.
 */
const EXPORT_CAP = 2;

let world: TWorld;
/** A second API process on the same Redis, prefix and database. */
let second: TRunningApi;
let secondUrl: string;
const log = new AnswerLog();

beforeAll(async () => {
  world = await createWorld({ env: { EXPORT_QUEUE_CAP_PER_PROPERTY: String(EXPORT_CAP) } });
  second = await startApi(world.config, world.logger, { port: 0 });
  secondUrl = `http://127.0.0.1:${second.port}`;
});
afterAll(async () => {
  await second?.close();
  await world?.close();
});

const postExport = (body: object, property = 1, url = world.url) =>
  request(url)
    .post(EXPORT)
    .set('Authorization', `Bearer ${world.token({ properties: [1, 2] })}`)
    .set('X-Property-Id', String(property))
    .set('Prefer', 'respond-async')
    .send(body)
    .then((res) => log.seen(`export ${JSON.stringify(body)}@${property}`, res));

async function untilEnded(exportId: string, property: number): Promise<string> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const res = await request(world.url)
      .get(`${STATUS}/${exportId}`)
      .set('Authorization', `Bearer ${world.token({ properties: [1, 2] })}`)
      .set('X-Property-Id', String(property));
    if (res.body.status === 'completed' || res.body.status === 'failed') return res.body.status as string;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return 'still in flight';
}

describe('cap on exports in flight per property', () => {
  const SOURCE = { sourceKind: 'RESERVATION', sourceId: '8001' };
  let exportQueue: Queue;

  beforeAll(async () => {
    const token = world.token({ properties: [1, 2] });
    const folio = (property: number) => ({
      property: property === 1 ? PROPERTY_1 : PROPERTY_2,
      folios: [{ id: '801', sourceKind: 'RESERVATION', sourceId: '8001', sourceIdentifier: 'RES-8001', name: 'Guest folio' }],
      transactions: [
        {
          id: '8101', folioId: '801', sourceKind: 'RESERVATION', sourceId: '8001', transactionDatetime: '2026-11-20T14:00:00Z', serviceDate: '2026-11-20',
          internalTransactionCode: 'RR', internalCodeGroup: 'ROOM_REVENUE_RATE', description: 'Night one rate', quantity: '1', amount: '100.00',
          currency: property === 1 ? 'EUR' : 'USD', posted: true,
        },
      ],
    });
    await importOk(world, token, 1, folio(1));
    await importOk(world, token, 2, folio(2));
    // Paused, the workers take no export: what is queued stays queued until the test resumes it.
    exportQueue = new Queue(QUEUE_NAMES.export, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    await exportQueue.pause();
  });
  afterAll(async () => {
    await exportQueue?.resume();
    await exportQueue?.close();
  });

  it(`refuses a new export past ${EXPORT_CAP} in flight, still joins an identical one, and accepts again once they finish`, async () => {
    const first = await postExport({ ...SOURCE, searchQuery: 'a' });
    const second = await postExport({ ...SOURCE, searchQuery: 'b' });
    expect([first.status, second.status]).toEqual([202, 202]);

    const third = await postExport({ ...SOURCE, searchQuery: 'c' });
    expectError(third, 429, 'RATE_LIMITED');
    expectRetryAfter(third, 60);
    expect(third.body.errorDetails).toMatch(/exports queued or running/);

    // An identical request shares the export in flight: no new work, so no refusal.
    const again = await postExport({ ...SOURCE, searchQuery: 'a' });
    expect(again.status).toBe(202);
    expect(again.body.exportId).toBe(first.body.exportId);
    // Another property has its own cap.
    const other = await postExport({ ...SOURCE, searchQuery: 'a' }, 2);
    expect(other.status, JSON.stringify(other.body)).toBe(202);

    await exportQueue.resume();
    for (const res of [first, second, other]) expect(await untilEnded(res.body.exportId as string, res === other ? 2 : 1)).toBe('completed');
    const accepted = await postExport({ ...SOURCE, searchQuery: 'c' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(await untilEnded(accepted.body.exportId as string, 1)).toBe('completed');
  });

  it('holds the cap exactly when many different exports arrive at once on two API processes', async () => {
    await exportQueue.pause();
    const bodies = Array.from({ length: 8 }, (_, i) => ({ ...SOURCE, searchQuery: `burst-${i}` }));
    const answers = await Promise.all(bodies.map((body, i) => postExport(body, 2, i % 2 === 0 ? world.url : secondUrl)));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(EXPORT_CAP).fill(202), ...Array(bodies.length - EXPORT_CAP).fill(429)]);
    const inFlight = await world.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM exports WHERE property_id = 2 AND status IN ('queued', 'running')`);
    expect(inFlight.rows[0]!.n).toBe(EXPORT_CAP);
    report(`export cap: ${bodies.length} concurrent exports on 2 API processes, ${statuses.filter((s) => s === 202).length} accepted, ${statuses.filter((s) => s === 429).length} answered 429`);
    await exportQueue.resume();
    for (const res of answers.filter((r) => r.status === 202)) expect(await untilEnded(res.body.exportId as string, 2)).toBe('completed');
  });

  it('puts no internals in any of these error answers', () => {
    expectNoInternals(log, 'export-cap');
  });
});
