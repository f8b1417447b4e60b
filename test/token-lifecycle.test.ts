import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '@folio-vault/shared/vault/audit-log';
import { cardBody, futureYear } from '@folio-vault/test-kit/cards';
import { until } from './support/faults.js';
import { FORWARD_SCOPE, deleteToken, getToken, tokenize } from './support/forward.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * Every token ends (docs/vault.md#token-lifecycle), through the real API and worker: its
 * `expires_at` (the default, a given one, the refusals and the exact latest), the sweep that
 * crypto-shreds it once past, and the held CVV that goes with the token (on delete, on expiry).
 * `world` sweeps every second with the default settings otherwise; `short` has
 * VAULT_SHRED_AFTER_EXPIRY_DAYS=10 and no CVV hold.
 */
const YEAR = futureYear();
const PREVIOUS_YEAR = String(Number(YEAR) - 1);

let world: TWorld;
let short: TWorld;

beforeAll(async () => {
  [world, short] = await Promise.all([
    // The vault's keys in a SoftHSM2 token (support/softhsm.ts): the lifecycle runs the HSM's code path.
    createWorld({ keys: 'pkcs11', env: { VAULT_SWEEP_SECONDS: '1' } }),
    createWorld({ keys: 'pkcs11', env: { VAULT_SHRED_AFTER_EXPIRY_DAYS: '10', VAULT_CVV_HOLD_SECONDS: '0' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([world?.close(), short?.close()]);
});

function tokenizeRequest(on: TWorld, body: Record<string, unknown>) {
  return request(on.url)
    .post('/vault/v1/tokens/card')
    .set('Authorization', `Bearer ${on.token({ properties: [1], scope: FORWARD_SCOPE })}`)
    .set('X-Property-Id', '1')
    .set('SVC-Tokenization-Mode', 'test')
    .send(body);
}

async function expiresAtOf(on: TWorld, body: Record<string, unknown>): Promise<string> {
  const res = await getToken(on, await tokenize(on, body));
  expect(res.status).toBe(200);
  return res.body.expires_at as string;
}

async function expectRefused(on: TWorld, expiresAt: unknown) {
  const res = await tokenizeRequest(on, cardBody({ expires_at: expiresAt }));
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.errorCode).toBe('INVALID_REQUEST');
  expect(res.body.fieldErrors).toEqual([{ path: 'expires_at', message: expect.any(String) }]);
}

const heldCvvRows = async (on: TWorld, tokenId: string) =>
  (await on.pool.query('SELECT 1 FROM vault_test.held_cvvs WHERE token_id = $1', [tokenId])).rowCount;

function search(on: TWorld, fingerprint: string) {
  return request(on.url)
    .get('/vault/v1/tokens')
    .query({ fingerprint })
    .set('Authorization', `Bearer ${on.token({ properties: [1], scope: 'read:payment' })}`)
    .set('X-Property-Id', '1')
    .set('SVC-Tokenization-Mode', 'test');
}

describe('expires_at', () => {
  it('defaults to the end of the card\'s expiry month plus 30 days (UTC)', async () => {
    expect(await expiresAtOf(world, cardBody({ expiration: { month: '08', year: YEAR } }))).toBe(`${YEAR}-10-01T00:00:00.000Z`);
    // December: the month ends with the year.
    expect(await expiresAtOf(world, cardBody({ expiration: { month: '12', year: YEAR } }))).toBe(`${Number(YEAR) + 1}-01-31T00:00:00.000Z`);
  });

  it('keeps a given future expires_at, in UTC', async () => {
    expect(await expiresAtOf(world, cardBody({ expires_at: `${PREVIOUS_YEAR}-06-15T12:34:56.789Z` }))).toBe(`${PREVIOUS_YEAR}-06-15T12:34:56.789Z`);
    expect(await expiresAtOf(world, cardBody({ expires_at: `${PREVIOUS_YEAR}-06-15T14:34:56+02:00` }))).toBe(`${PREVIOUS_YEAR}-06-15T12:34:56.000Z`);
  });

  it.each([
    ['in the past', '2020-01-01T00:00:00Z'],
    ['not a date-time', 'next month'],
    ['a date without a time', `${PREVIOUS_YEAR}-06-15`],
    ['without a time zone', `${PREVIOUS_YEAR}-06-15T12:00:00`],
    ['not a string', 1_900_000_000],
  ])('refuses one %s with 400 at expires_at', async (_case, value) => {
    await expectRefused(world, value);
  });

  it('accepts the latest allowed exactly and refuses one second later (30 days by default)', async () => {
    const body = (expiresAt: string) => cardBody({ expiration: { month: '08', year: YEAR }, expires_at: expiresAt });
    expect(await expiresAtOf(world, body(`${YEAR}-10-01T00:00:00Z`))).toBe(`${YEAR}-10-01T00:00:00.000Z`);
    await expectRefused(world, `${YEAR}-10-01T00:00:01Z`);
  });

  it('follows VAULT_SHRED_AFTER_EXPIRY_DAYS (10): the default, the latest accepted, one second later refused', async () => {
    const card = { expiration: { month: '08', year: YEAR } };
    expect(await expiresAtOf(short, cardBody(card))).toBe(`${YEAR}-09-11T00:00:00.000Z`);
    expect(await expiresAtOf(short, cardBody({ ...card, expires_at: `${YEAR}-09-11T00:00:00Z` }))).toBe(`${YEAR}-09-11T00:00:00.000Z`);
    await expectRefused(short, `${YEAR}-09-11T00:00:01Z`);
    // What the default world accepts, this one refuses.
    await expectRefused(short, `${YEAR}-10-01T00:00:00Z`);
  });
});

describe('the expiry sweep (VAULT_SWEEP_SECONDS=1)', () => {
  it('shreds a token once past its expires_at: 404, no key, no ciphertext, no fingerprint, no CVV, one audit event', { timeout: 40_000 }, async () => {
    const card = cardBody({ card_number: '6011111111111117' });
    const sibling = await tokenize(world, card);
    const id = await tokenize(world, { ...card, expires_at: new Date(Date.now() + 5_000).toISOString() });
    const before = await getToken(world, id);
    expect(before.status).toBe(200);
    expect(before.body.cvv_held_until).toEqual(expect.any(String));
    expect(await heldCvvRows(world, id)).toBe(1);
    const fingerprint = before.body.fingerprint as string;
    expect((await search(world, fingerprint)).body.tokens.map((token: { id: string }) => token.id)).toEqual([id, sibling]);

    await until(async () => (await getToken(world, id)).status === 404, 20_000, 'GET to answer 404 once the token has expired');
    const row = await until(async () => {
      const result = await world.pool.query(
        'SELECT wrapped_dek, kek_id, pan_ct, cardholder_name_ct, fingerprint, deleted_at FROM vault_test.cards WHERE id = $1',
        [id],
      );
      return result.rows[0]?.deleted_at ? result.rows[0] : undefined;
    }, 20_000, 'the sweep to shred the expired token');
    expect(row).toEqual({ wrapped_dek: null, kek_id: null, pan_ct: null, cardholder_name_ct: null, fingerprint: null, deleted_at: expect.any(Date) });
    expect(await heldCvvRows(world, id)).toBe(0);

    const events = (await new AuditLog(world.pool).recent({ tokenId: id })).filter((event) => event.action === 'token.expire');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ outcome: 'success', http_status: 200, property_id: '1', mode: 'test', request_id: 'vault-sweep', subject: null });

    const after = await search(world, fingerprint);
    expect(after.status).toBe(200);
    expect(after.body.tokens.map((token: { id: string }) => token.id)).toEqual([sibling]);
    expect((await getToken(world, sibling)).status).toBe(200);
  });
});

describe('the held CVV goes with the token', () => {
  it('DELETE of the token removes its held_cvvs row', async () => {
    const id = await tokenize(world, cardBody());
    expect(await heldCvvRows(world, id)).toBe(1);
    const res = await deleteToken(world, id);
    expect(res.status).toBe(204);
    expect(await heldCvvRows(world, id)).toBe(0);
  });

  it('VAULT_CVV_HOLD_SECONDS=0: no CVV is held and the metadata has no cvv_held_until', async () => {
    const id = await tokenize(short, cardBody());
    expect(await heldCvvRows(short, id)).toBe(0);
    const res = await getToken(short, id);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).not.toContain('cvv_held_until');
    expect(res.body.expires_at).toBe(`${YEAR}-09-11T00:00:00.000Z`);
  });
});
