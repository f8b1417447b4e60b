import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, futureYear, generatedPan } from '@folio-vault/test-kit/cards';
import { createWorld, type TWorld } from './support/world.js';

let world: TWorld;
let token: string;

beforeAll(async () => {
  world = await createWorld();
  token = world.token({ properties: [1, 2] });
});
afterAll(async () => world?.close());

async function tokenize(body: Record<string, unknown>, options: { property?: string; test?: boolean } = {}) {
  const req = request(world.url)
    .post('/vault/v1/tokens/card')
    .set('Authorization', `Bearer ${token}`)
    .set('X-Property-Id', options.property ?? '1');
  if (options.test !== false) req.set('SVC-Tokenization-Mode', 'test');
  const res = await req.send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { id: string };
}

function getToken(id: string, options: { property?: string; test?: boolean; bearer?: string } = {}) {
  const req = request(world.url)
    .get(`/vault/v1/tokens/${id}`)
    .set('Authorization', `Bearer ${options.bearer ?? token}`)
    .set('X-Property-Id', options.property ?? '1');
  if (options.test !== false) req.set('SVC-Tokenization-Mode', 'test');
  return req;
}

function deleteToken(id: string, options: { property?: string; test?: boolean } = {}) {
  const req = request(world.url).delete(`/vault/v1/tokens/${id}`).set('Authorization', `Bearer ${token}`).set('X-Property-Id', options.property ?? '1');
  if (options.test !== false) req.set('SVC-Tokenization-Mode', 'test');
  return req;
}

describe('GET /vault/v1/tokens/{id}', () => {
  it('answers metadata only', async () => {
    const { id } = await tokenize(cardBody({ cardholder_name: 'Zoë Łukasiewicz', billing_details: { city: 'Kraków', country: 'PL' } }));
    const res = await getToken(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id,
      card_brand: 'VISA',
      first6: '411111',
      last4: '1111',
      expiration: { month: '08', year: futureYear() },
      cardholder_name_masked: 'Z** Ł**********',
      test_mode: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      fingerprint: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      // The card ends with August: the token ends VAULT_SHRED_AFTER_EXPIRY_DAYS (30) after that month.
      expires_at: `${futureYear()}-10-01T00:00:00.000Z`,
      cvv_held_until: expect.any(String),
    });
    // The CVV came with the card and is held VAULT_CVV_HOLD_SECONDS (600) from the insert.
    expect(Date.parse(res.body.cvv_held_until) - Date.parse(res.body.created_at)).toBe(600_000);
    expect(res.text).not.toContain('4111111111111111');
    expect(res.text).not.toContain('Kraków');
  });

  it('gives the same card the same fingerprint and another card another one', async () => {
    const a = await tokenize(cardBody());
    const b = await tokenize(cardBody({ cardholder_name: 'Other Name' }));
    const c = await tokenize(cardBody({ card_number: '4242424242424242' }));
    const [fa, fb, fc] = await Promise.all([a, b, c].map(async ({ id }) => (await getToken(id)).body.fingerprint));
    expect(fa).toBe(fb);
    expect(fc).not.toBe(fa);
  });

  it('answers 404 for an unknown id, in the contract error shape', async () => {
    const res = await getToken('01900000-0000-7000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ errorCode: 'ENTITY_NOT_FOUND', id: res.headers['x-request-id'] });
  });

  it('answers 400 for an id that is not a UUID, at path id', async () => {
    const res = await getToken('not-a-uuid');
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(res.body.fieldErrors[0].path).toBe('id');
  });

  it('hides a token from another property (404, not 403)', async () => {
    const { id } = await tokenize(cardBody(), { property: '1' });
    const res = await getToken(id, { property: '2' });
    expect(res.status).toBe(404);
    expect(res.body.errorCode).toBe('ENTITY_NOT_FOUND');
  });

  it('shows a test token only in test mode and a live token only in live mode', async () => {
    const testToken = await tokenize(cardBody());
    const liveToken = await tokenize(cardBody({ card_number: generatedPan('52', 16) }), { test: false });
    expect((await getToken(testToken.id, { test: false })).status).toBe(404);
    expect((await getToken(liveToken.id, { test: true })).status).toBe(404);
    const live = await getToken(liveToken.id, { test: false });
    expect(live.status).toBe(200);
    expect(live.body.test_mode).toBe(false);
    expect(live.body.card_brand).toBe('MASTERCARD');
  });

  it('stores test and live cards apart, each under its own key id', async () => {
    const testToken = await tokenize(cardBody());
    const liveToken = await tokenize(cardBody({ card_number: generatedPan('4', 16) }), { test: false });
    const testRow = await world.pool.query('SELECT kek_id FROM vault_test.cards WHERE id = $1', [testToken.id]);
    const liveRow = await world.pool.query('SELECT kek_id FROM vault_live.cards WHERE id = $1', [liveToken.id]);
    expect(testRow.rows[0].kek_id).toBe(world.config.VAULT_KEK_TEST!.activeId);
    expect(liveRow.rows[0].kek_id).toBe(world.config.VAULT_KEK_LIVE!.activeId);
    expect((await world.pool.query('SELECT 1 FROM vault_live.cards WHERE id = $1', [testToken.id])).rowCount).toBe(0);
  });
});

describe('DELETE /vault/v1/tokens/{id}', () => {
  it('answers 204 and crypto-shreds the record', async () => {
    const { id } = await tokenize(cardBody({ billing_details: { city: 'Lisboa' } }));
    const before = await world.pool.query('SELECT wrapped_dek, pan_ct FROM vault_test.cards WHERE id = $1', [id]);
    expect(before.rows[0].wrapped_dek).toBeInstanceOf(Buffer);
    expect(before.rows[0].pan_ct).toBeInstanceOf(Buffer);

    const res = await deleteToken(id);
    expect(res.status).toBe(204);
    const after = await world.pool.query(
      'SELECT wrapped_dek, kek_id, pan_ct, cardholder_name_ct, billing_details_ct, deleted_at FROM vault_test.cards WHERE id = $1',
      [id],
    );
    expect(after.rows[0]).toMatchObject({ wrapped_dek: null, kek_id: null, pan_ct: null, cardholder_name_ct: null, billing_details_ct: null });
    expect(after.rows[0].deleted_at).toBeInstanceOf(Date);
    expect((await getToken(id)).status).toBe(404);
  });

  it('is idempotent: deleting twice answers 204 again', async () => {
    const { id } = await tokenize(cardBody());
    expect((await deleteToken(id)).status).toBe(204);
    expect((await deleteToken(id)).status).toBe(204);
  });

  it('answers 404 for another property, another mode, or an unknown id, and deletes nothing', async () => {
    const { id } = await tokenize(cardBody());
    expect((await deleteToken(id, { property: '2' })).status).toBe(404);
    expect((await deleteToken(id, { test: false })).status).toBe(404);
    expect((await deleteToken('01900000-0000-7000-8000-000000000001')).status).toBe(404);
    expect((await getToken(id)).status).toBe(200);
  });
});
