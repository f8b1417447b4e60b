import type { IncomingMessage } from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOk, transaction } from './support/ledger-fixture.js';
import { createWorld, type TWorld } from './support/world.js';

// One large import must not hold the API for everyone (docs/ledger.md#import): while the API reads
// and validates one property's import, another property's listing is answered. Checked by the order
// of the answers, not by how long anything took.

let world: TWorld;
let token: string;

beforeAll(async () => {
  world = await createWorld({ worker: false });
  token = world.token({ properties: [21, 22, 23] });
  await importOk(world, token, 22, {
    folios: [{ id: '101', sourceKind: 'RESERVATION', sourceId: '5001', name: 'Guest folio' }],
    transactions: [transaction()],
  });
});
afterAll(async () => world?.close());

const IMPORT = '/accounting/v1.0/import';

/** Resolves once the API has read the whole body of the next import request it gets. */
function importBodyRead(): Promise<void> {
  return new Promise((resolve) => {
    const onRequest = (req: IncomingMessage) => {
      if (req.url !== IMPORT) return;
      world.api.server.off('request', onRequest);
      // Listening for 'end' does not start the stream: the route's own reader does.
      req.once('end', () => resolve());
    };
    world.api.server.on('request', onRequest);
  });
}

describe('a large import and another property\'s reads', () => {
  it('answers another property\'s listing while it validates a 20,000-row import', async () => {
    const count = 20_000;
    // Invalid at its last row: the import's whole answer is the read and the validation (no writes).
    const transactions = Array.from({ length: count }, (_, i) =>
      transaction({ id: String(1_000_000 + i), description: `Charge ${i}`, amount: i === count - 1 ? '1,50' : '12.00' }),
    );
    const order: string[] = [];
    const bodyRead = importBodyRead();
    const imported = request(world.url)
      .post(IMPORT)
      .set('Authorization', `Bearer ${token}`)
      .set('X-Property-Id', '21')
      .send({ transactions })
      .then((res) => {
        order.push('import');
        return res;
      });
    await bodyRead;
    const listed = request(world.url)
      .post('/accounting/v1.0/folios/transactions')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Property-Id', '22')
      .send({ sourceKind: 'RESERVATION', sourceId: 5001 })
      .then((res) => {
        order.push('listing');
        return res;
      });
    const [importAnswer, listing] = await Promise.all([imported, listed]);
    expect(listing.status, JSON.stringify(listing.body)).toBe(200);
    expect(listing.body.groups.default.transactions).toHaveLength(1);
    // The field paths are those of a whole-body validation.
    expect(importAnswer.status).toBe(400);
    expect(importAnswer.body.errorCode).toBe('INVALID_REQUEST');
    expect(importAnswer.body.fieldErrors).toEqual([
      { path: `transactions.${count - 1}.amount`, message: 'must be a decimal of at most 15 significant digits, 6 of them after the point' },
    ]);
    expect(order).toEqual(['listing', 'import']);
  }, 120_000);
});

describe('the record-by-record reader answers as a whole-body parse would', () => {
  const post = (body: string) =>
    request(world.url).post(IMPORT).set('Authorization', `Bearer ${token}`).set('X-Property-Id', '23').set('Content-Type', 'application/json').send(body);
  const NOT_JSON = [{ path: 'body', message: 'is not valid JSON' }];
  const house = JSON.stringify({ id: '1', sourceKind: 'HOUSE_ACCOUNT', sourceId: '1', name: 'House' });

  it.each([
    ['a trailing comma in a list', '{"folios": [{}, ]}'],
    ['a missing comma between records', `{"folios": [${house} ${house}]}`],
    ['text after the object', '{"folios": []} x'],
    ['an unterminated record', '{"folios": [{"id": "1"'],
    ['an unterminated string', '{"folios": [{"id": "1}]}'],
    ['a record that does not parse', '{"folios": [{"id": 1,}]}'],
    ['a top-level value that does not parse', '{"property": {"id": }}'],
  ])('%s → 400 body: is not valid JSON', async (_name, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.fieldErrors).toEqual(NOT_JSON);
  });

  it('takes the last of a repeated key, as JSON.parse does', async () => {
    const res = await post(`{"folios": [{"id": "x"}], "folios": [${house}]}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.folios).toBe(1);
  });

  it('refuses a list over 100,000 records at the list, and a record over 1 MB at the record', async () => {
    const many = await post(`{"folios": [${'{},'.repeat(100_000)}{}]}`);
    expect(many.status).toBe(400);
    expect(many.body.fieldErrors).toEqual([{ path: 'folios', message: 'must have at most 100000 items' }]);
    const huge = await post(JSON.stringify({ transactions: [transaction(), transaction({ id: '2', notes: 'x'.repeat(1024 * 1024) })] }));
    expect(huge.status).toBe(400);
    expect(huge.body.fieldErrors).toEqual([{ path: 'transactions.1', message: 'is larger than 1 MB' }]);
  });

  it('answers a body that is not an object, and an unknown field, at their paths', async () => {
    const list = await post('[]');
    expect(list.status).toBe(400);
    expect(list.body.fieldErrors.map((error: { path: string }) => error.path)).toEqual(['body']);
    const unknown = await post(`{"folios": [${house}], "bogus": {"a": [1, 2]}}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.fieldErrors).toEqual([{ path: 'bogus', message: 'is not a known field' }]);
  });
});
