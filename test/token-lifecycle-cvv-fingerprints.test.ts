import { createHmac } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody } from '@folio-vault/test-kit/cards';
import { loadConfig } from '@folio-vault/shared/config';
import { openKeyProvider } from '@folio-vault/shared/vault/keys/open-key-provider';
import { until } from './support/faults.js';
import { deleteToken, getToken, tokenize } from './support/forward.js';
import { openStored, sealTheOldWay } from './support/record-binding.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * The CVV hold and per-property fingerprints (docs/vault.md#token-lifecycle, #fingerprints),
 * through the real API and worker, in a world whose sweep runs every second and whose CVV hold is
 * short (HOLD_SECONDS: long enough for a loaded machine to read the metadata while it lasts): the
 * hold ends and the sweep destroys the CVV; one card has one fingerprint per property,
 * the search answers the property's own tokens; rows under the old global fingerprint are
 * re-fingerprinted by the sweep, and records sealed without their property are re-bound by it.
 */
const HOLD_SECONDS = 4;
let world: TWorld;

beforeAll(async () => {
  world = await createWorld({ env: { VAULT_SWEEP_SECONDS: '1', VAULT_CVV_HOLD_SECONDS: String(HOLD_SECONDS) } });
  // The first request of a world is the slowest: not the one that must beat the hold.
  await tokenize(world, cardBody({ card_number: '6011111111111117' }));
});
afterAll(async () => world?.close());

const ids = (res: request.Response) => (res.body.tokens as Array<{ id: string }>).map((token) => token.id);
const hmac = (text: string) => createHmac('sha256', world.config.VAULT_FINGERPRINT_KEY!).update(text).digest('base64url');

function search(query: Record<string, string>, options: { property?: string; test?: boolean; scope?: string } = {}) {
  const req = request(world.url)
    .get('/vault/v1/tokens')
    .query(query)
    .set('Authorization', `Bearer ${world.token({ properties: [1, 2], scope: options.scope ?? 'read:payment' })}`)
    .set('X-Property-Id', options.property ?? '1');
  if (options.test !== false) req.set('SVC-Tokenization-Mode', 'test');
  return req;
}

async function fingerprintOf(id: string, property = '1'): Promise<string> {
  const res = await getToken(world, id, { property });
  expect(res.status).toBe(200);
  return res.body.fingerprint as string;
}

describe('the CVV hold (VAULT_CVV_HOLD_SECONDS short)', () => {
  it('holds the CVV sealed for VAULT_CVV_HOLD_SECONDS from the insert, then the sweep destroys it', { timeout: 30_000 }, async () => {
    const id = await tokenize(world, cardBody({ card_number: '378282246310005', cvv: '9173' }));
    const metadata = (await getToken(world, id)).body;
    const held = await world.pool.query<{ cvv_ct: Buffer }>('SELECT cvv_ct FROM vault_test.held_cvvs WHERE token_id = $1', [id]);
    expect(metadata.cvv_held_until).toBe(new Date(Date.parse(metadata.created_at) + HOLD_SECONDS * 1000).toISOString());
    expect(held.rows).toHaveLength(1);
    const sealed = held.rows[0]!.cvv_ct;
    expect(sealed.length).toBeGreaterThan(4);
    expect(sealed.includes(Buffer.from('9173'))).toBe(false);
    expect(sealed.toString('hex')).not.toContain('9173');

    await until(async () => {
      const rows = await world.pool.query('SELECT 1 FROM vault_test.held_cvvs WHERE token_id = $1', [id]);
      return rows.rowCount === 0;
    }, 15_000, 'the sweep to destroy the CVV once its hold is over');
    const after = await getToken(world, id);
    expect(after.status).toBe(200);
    expect(Object.keys(after.body)).not.toContain('cvv_held_until');
    expect(after.body.fingerprint).toBe(metadata.fingerprint);
  });
});

describe('fingerprints are per property; GET /vault/v1/tokens?fingerprint=', () => {
  const card = cardBody({ card_number: '4242424242424242' });
  let first: string;
  let second: string;
  let other: string;

  beforeAll(async () => {
    first = await tokenize(world, card);
    second = await tokenize(world, card);
    other = await tokenize(world, card, { property: '2' });
  });

  it('gives the same card one fingerprint in a property and another in the next: HMAC of "pan:v2:<property>:<pan>"', async () => {
    const [a, b, c] = [await fingerprintOf(first), await fingerprintOf(second), await fingerprintOf(other, '2')];
    expect(a).toBe(hmac('pan:v2:1:4242424242424242'));
    expect(b).toBe(a);
    expect(c).toBe(hmac('pan:v2:2:4242424242424242'));
    expect(c).not.toBe(a);
  });

  it("answers the property's own tokens with it, newest first, as their metadata", async () => {
    const fingerprint = await fingerprintOf(first);
    const res = await search({ fingerprint });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([second, first]);
    // The same metadata as GET (but for cvv_held_until, which the hold may have ended in between).
    const { cvv_held_until: _held, ...metadata } = (await getToken(world, second)).body;
    expect(res.body.tokens[0]).toMatchObject(metadata);
    expect(Object.keys(res.body.tokens[0]).filter((key) => key !== 'cvv_held_until').sort()).toEqual(Object.keys(metadata).sort());
    // Property 2's token is under its own fingerprint, and property 1's is not found from there.
    expect(ids(await search({ fingerprint }, { property: '2' }))).toEqual([]);
    expect(ids(await search({ fingerprint: await fingerprintOf(other, '2') }, { property: '2' }))).toEqual([other]);
    // Live mode holds none of these test tokens.
    const live = await search({ fingerprint }, { test: false });
    expect(live.status).toBe(200);
    expect(ids(live)).toEqual([]);
  });

  it('no longer lists a deleted token', async () => {
    const extra = await tokenize(world, card);
    const fingerprint = await fingerprintOf(extra);
    expect(ids(await search({ fingerprint }))).toEqual([extra, second, first]);
    const deleted = await deleteToken(world, extra);
    expect(deleted.status).toBe(204);
    expect(ids(await search({ fingerprint }))).toEqual([second, first]);
  });

  it.each([
    ['too short', { fingerprint: 'abc' }, 'fingerprint'],
    ['not base64url', { fingerprint: `${'a'.repeat(42)}+` }, 'fingerprint'],
    ['missing', {}, 'fingerprint'],
    ['beside an unknown parameter', { fingerprint: 'a'.repeat(43), card_number: '4242424242424242' }, 'card_number'],
  ])('refuses a fingerprint %s with 400 at its parameter', async (_case, query, path) => {
    const res = await search(query);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(res.body.fieldErrors.map((error: { path: string }) => error.path)).toEqual([path]);
    expect(res.text).not.toContain('4242424242424242');
  });

  it('refuses a caller without read:payment with 403', async () => {
    const res = await search({ fingerprint: await fingerprintOf(first) }, { scope: 'write:payment use:payment' });
    expect(res.status).toBe(403);
    expect(res.body.errorCode).toBe('ACCESS_DENIED');
  });
});

describe('re-fingerprinting by the sweep', () => {
  it('moves rows under the old global fingerprint (version 1) to the per-property one a fresh tokenize answers', { timeout: 30_000 }, async () => {
    const pan = '5555555555554444';
    const old = [await tokenize(world, cardBody({ card_number: pan })), await tokenize(world, cardBody({ card_number: pan }), { property: '2' })];
    // Rows as the version-1 code wrote them: one HMAC over "pan:<PAN>" for every property.
    const updated = await world.pool.query('UPDATE vault_test.cards SET fingerprint = $2, fingerprint_version = 1 WHERE id = ANY($1::uuid[])', [old, hmac(`pan:${pan}`)]);
    expect(updated.rowCount).toBe(2);

    const rows = await until(async () => {
      const result = await world.pool.query<{ id: string; fingerprint: string; fingerprint_version: number }>(
        'SELECT id, fingerprint, fingerprint_version FROM vault_test.cards WHERE id = ANY($1::uuid[]) ORDER BY id',
        [old],
      );
      return result.rows.every((row) => row.fingerprint_version === 2) ? result.rows : undefined;
    }, 15_000, 'the sweep to re-fingerprint both rows');

    const fresh = [await tokenize(world, cardBody({ card_number: pan })), await tokenize(world, cardBody({ card_number: pan }), { property: '2' })];
    const expected = [await fingerprintOf(fresh[0]!), await fingerprintOf(fresh[1]!, '2')];
    expect(rows).toEqual([
      { id: old[0], fingerprint: expected[0], fingerprint_version: 2 },
      { id: old[1], fingerprint: expected[1], fingerprint_version: 2 },
    ]);
    expect(expected[0]).not.toBe(expected[1]);
    expect(ids(await search({ fingerprint: expected[0]! }))).toEqual([fresh[0], old[0]]);
  });
});

describe('re-binding by the sweep', () => {
  it('seals records written without their property (binding 1) again naming it; they open before and after', { timeout: 30_000 }, async () => {
    const keys = await openKeyProvider(loadConfig(world.env, 'worker'));
    try {
      const ids = [await tokenize(world, cardBody({ card_number: '4000056655665556' })), await tokenize(world, cardBody({ card_number: '5200828282828210' }), { property: '2' })];
      const pans = ['4000056655665556', '5200828282828210'];
      await sealTheOldWay(world.pool, keys, 'test', ids);
      const bindings = async () => (await world.pool.query<{ record_binding: number }>('SELECT record_binding FROM vault_test.cards WHERE id = ANY($1::uuid[])', [ids])).rows.map((row) => row.record_binding);
      // Written as the old code wrote them, they open under the old associated data until re-bound.
      const sealedOld = await Promise.all(ids.map((id) => openStored(world.pool, keys, 'test', id)));
      expect(sealedOld.map(({ binding, pan }) => ({ binding, pan }))).toEqual(pans.map((pan) => ({ binding: 1, pan })));

      await until(async () => (await bindings()).every((binding) => binding === 2), 15_000, 'the sweep to re-bind both records');
      const rebound = await Promise.all(ids.map((id) => openStored(world.pool, keys, 'test', id)));
      expect(rebound.map(({ binding, pan }) => ({ binding, pan }))).toEqual(pans.map((pan) => ({ binding: 2, pan })));
      // Both in one batch of one run, counted in its line (written once the run has done both modes).
      const rebinding = () => world.logs.filter((line) => line.includes('"msg":"vault sweep"')).map((line) => (JSON.parse(line) as { rebound: number }).rebound).filter((n) => n > 0);
      expect(await until(async () => rebinding().length > 0 && rebinding(), 5_000, 'the sweep\'s line')).toEqual([2]);
      expect((await getToken(world, ids[0]!)).status).toBe(200);
    } finally {
      await keys.close();
    }
  });
});
