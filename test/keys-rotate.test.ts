import { createHmac, randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@folio-vault/shared/config';
import { openField } from '@folio-vault/shared/vault/crypto/envelope';
import { softwareKeyProvider } from '@folio-vault/shared/vault/keys/key-provider';
import { parseKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import type { TRunningWorker } from '@folio-vault/worker/worker';
import { cardBody, futureYear, generatedPan } from '@folio-vault/test-kit/cards';
import { spawnTs } from '@folio-vault/test-kit/processes';
import { openStored, sealTheOldWay } from './support/record-binding.js';
import { createWorld, startTestWorker, type TWorld } from './support/world.js';

// Tests print their figures.
// eslint-disable-next-line no-console
const report = (line: string) => console.log(line);

/**
 * `npm run keys:rotate`: records tokenized under the old KEKs are re-wrapped under new ones while
 * the service runs (tokenize requests keep coming during the rotation), stay readable, and open in
 * a process that no longer has the old keys; deleted tokens stay shredded. Records still under the
 * old global fingerprint (version 1) get the per-property one; records sealed without their property
 * (binding 1) are re-bound to it.
 */
const entry = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const OLD = { test: entry('test-kek-old'), live: entry('live-kek-old') };
const NEW = { test: entry('test-kek-new'), live: entry('live-kek-new') };

let world: TWorld;
let worker: TRunningWorker | undefined;
let bearer: string;
const cards = new Map<string, { pan: string; mode: 'test' | 'live' }>();
let deletedId: string;

async function tokenize(mode: 'test' | 'live') {
  const pan = generatedPan(mode === 'test' ? '4' : '51', 16);
  const req = request(world.url).post('/vault/v1/tokens/card').set('Authorization', `Bearer ${bearer}`).set('X-Property-Id', '1');
  if (mode === 'test') req.set('SVC-Tokenization-Mode', 'test');
  const res = await req.send(cardBody({ card_number: pan, cvv: '404', expiration: { month: '11', year: futureYear(2) }, billing_details: { city: 'Porto', country: 'PT' } }));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  cards.set(res.body.id, { pan, mode });
  return res.body.id as string;
}

function vaultRequest(method: 'get' | 'delete', id: string, mode: 'test' | 'live') {
  const req = request(world.url)[method](`/vault/v1/tokens/${id}`).set('Authorization', `Bearer ${bearer}`).set('X-Property-Id', '1');
  if (mode === 'test') req.set('SVC-Tokenization-Mode', 'test');
  return req;
}

async function rotate(keks: { test: string; live: string }, args: string[] = []) {
  const run = spawnTs('scripts/keys-rotate.ts', args, { ...world.env, VAULT_KEK_TEST: keks.test, VAULT_KEK_LIVE: keks.live });
  const code = await run.exited;
  return { code, output: run.output() };
}

const readableCount = (mode: 'test' | 'live') => [...cards].filter(([id, card]) => card.mode === mode && id !== deletedId).length;

async function rows(mode: 'test' | 'live') {
  const result = await world.pool.query<{ id: string; kek_id: string | null; wrapped_dek: Buffer | null; pan_ct: Buffer | null }>(
    `SELECT id, kek_id, wrapped_dek, pan_ct FROM vault_${mode}.cards ORDER BY id`,
  );
  return result.rows;
}

beforeAll(async () => {
  // The workers are this file's own: they are restarted with other keyrings as the test goes.
  world = await createWorld({ worker: false, env: { VAULT_KEK_TEST: OLD.test, VAULT_KEK_LIVE: OLD.live } });
  worker = await startTestWorker(world.config, world.logger);
  bearer = world.token({ properties: [1] });
  for (let i = 0; i < 6; i += 1) await tokenize(i % 2 ? 'live' : 'test');
  deletedId = await tokenize('live');
  expect((await vaultRequest('delete', deletedId, 'live')).status).toBe(204);
}, 60_000);
afterAll(async () => {
  await worker?.close();
  await world?.close();
});

// Each test runs the script as npm runs it (a Node process compiling TypeScript): up to 20 s to start
// on a loaded machine, before any of its work.
describe('npm run keys:rotate', { timeout: 90_000 }, () => {
  it('before the rotation, a process without the old KEK cannot open the records (so the check below can fail)', async () => {
    const { code, output } = await rotate(NEW, ['--verify']);
    expect(code, output).toBe(1);
    expect(output).toMatch(/keys:rotate live: 3 records checked, 3 do not open with the configured keys \(by key id: live-kek-old=3\)/);
  });

  it('re-wraps every data key under the new KEKs while tokenize requests keep committing', async () => {
    // The documented order: workers first get the new key in front of the old one, then the rotation runs.
    await worker!.close();
    const env = { ...world.env, VAULT_KEK_TEST: `${NEW.test},${OLD.test}`, VAULT_KEK_LIVE: `${NEW.live},${OLD.live}` };
    worker = await startTestWorker(loadConfig(env, 'worker'), world.logger);

    const rotation = rotate({ test: `${NEW.test},${OLD.test}`, live: `${NEW.live},${OLD.live}` }, ['--batch-size', '2']);
    // Tokenize requests through the script's life (at least a dozen, at most 40), so inserts commit
    // around its batches. The bound keeps the cards the next tests open one by one to a number a
    // loaded machine opens in time: a script slow to start made hundreds.
    let running = true;
    void rotation.finally(() => (running = false));
    const during: string[] = [];
    while ((running && during.length < 40) || during.length < 12) during.push(await tokenize(during.length % 2 ? 'live' : 'test'));
    const { code, output } = await rotation;
    report(`keys:rotate output:\n${output.trim()}`);
    expect(code, output).toBe(0);
    // Every record tokenized under the old keys was re-wrapped (some made during the run may already be new).
    expect(output).toMatch(/keys:rotate test: \d+ data keys re-wrapped under test-kek-new \(local\); 0 under a key id not configured, 0 unreadable/);
    expect(output).toMatch(/live-kek-old wrap no record any more and can be retired/);
    expect(output).not.toMatch(/base64|[A-Za-z0-9+/]{43}=/);

    for (const mode of ['test', 'live'] as const) {
      const readable = (await rows(mode)).filter((row) => row.wrapped_dek);
      expect(readable).toHaveLength(readableCount(mode));
      for (const row of readable) expect(row.kek_id, row.id).toBe(`${mode}-kek-new`);
    }
    const rewrapped = Number(/test: (\d+) data keys/.exec(output)![1]) + Number(/live: (\d+) data keys/.exec(output)![1]);
    report(`keys-rotate: ${rewrapped} data keys re-wrapped with ${during.length} tokenizations running alongside`);
    expect(rewrapped).toBeGreaterThanOrEqual(6);
  });

  it('every record keeps its metadata, and the clear PAN opens with the new KEK alone', async () => {
    const newOnly = softwareKeyProvider('local', {
      kek: { test: parseKeyring(NEW.test), live: parseKeyring(NEW.live) },
      fingerprint: { id: 'local', key: randomBytes(32) },
      transit: parseKeyring(entry('unused')),
    });
    let opened = 0;
    const check = async ([id, card]: [string, { pan: string; mode: 'test' | 'live' }]) => {
      const res = await vaultRequest('get', id, card.mode);
      if (id === deletedId) {
        expect(res.status).toBe(404);
        return;
      }
      expect(res.status, id).toBe(200);
      expect(res.body.last4).toBe(card.pan.slice(-4));
      const row = (await world.pool.query(`SELECT kek_id, wrapped_dek, pan_ct FROM vault_${card.mode}.cards WHERE id = $1`, [id])).rows[0];
      // A record's associated data names its property, mode and token id.
      const dataKey = await newOnly.unwrapDataKey(card.mode, { kekId: row.kek_id, wrapped: row.wrapped_dek }, `1:${card.mode}:${id}`);
      expect(openField(dataKey, row.pan_ct, `1:${card.mode}:${id}:pan`) === card.pan, id).toBe(true);
      opened += 1;
    };
    // Four at a time: each read is a vault job's round trip, slow one by one on a loaded machine.
    const all = [...cards];
    for (let i = 0; i < all.length; i += 4) await Promise.all(all.slice(i, i + 4).map(check));
    report(`keys-rotate: ${opened} records opened with the new KEKs only`);
    expect(opened).toBe(cards.size - 1);
  });

  it('a process configured without the old KEKs reads every record', async () => {
    const { code, output } = await rotate(NEW, ['--verify']);
    expect(code, output).toBe(0);
    expect(output).toContain(`keys:rotate test: ${readableCount('test')} records checked, 0 do not open`);
    expect(output).toContain(`keys:rotate live: ${readableCount('live')} records checked, 0 do not open`);
  });

  it('a deleted token stays shredded: no wrapped key came back', async () => {
    const shredded = (await rows('live')).find((row) => row.id === deletedId)!;
    expect(shredded).toMatchObject({ kek_id: null, wrapped_dek: null, pan_ct: null });
  });

  it('runs again harmlessly, and picks up a record a worker still wrapped with the old key', async () => {
    // A worker that was not updated: the old key is still its active one.
    const stale = await startTestWorker(loadConfig({ ...world.env, VAULT_KEK_TEST: OLD.test, VAULT_KEK_LIVE: OLD.live }, 'worker'), world.logger);
    await worker!.close();
    worker = undefined;
    const straggler = await tokenize('live');
    await stale.close();
    worker = await startTestWorker(loadConfig({ ...world.env, VAULT_KEK_TEST: NEW.test, VAULT_KEK_LIVE: `${NEW.live},${OLD.live}` }, 'worker'), world.logger);
    expect((await rows('live')).find((row) => row.id === straggler)!.kek_id).toBe('live-kek-old');

    const { code, output } = await rotate({ test: NEW.test, live: `${NEW.live},${OLD.live}` });
    expect(code, output).toBe(0);
    expect(output).toMatch(/keys:rotate test: 0 data keys re-wrapped/);
    expect(output).toMatch(/keys:rotate live: 1 data keys re-wrapped under live-kek-new \(local\)/);
    expect((await rows('live')).find((row) => row.id === straggler)!.kek_id).toBe('live-kek-new');
  });

  it('reports records under a key it does not hold and exits 1 instead of dropping them', async () => {
    const orphan = await tokenize('live');
    // Simulate a record wrapped by a key that was removed too early.
    await world.pool.query(`UPDATE vault_live.cards SET kek_id = 'live-kek-lost' WHERE id = $1`, [orphan]);
    const { code, output } = await rotate({ test: NEW.test, live: NEW.live });
    expect(code, output).toBe(1);
    expect(output).toMatch(/keys:rotate live: 0 data keys re-wrapped under live-kek-new \(local\); 1 under a key id not configured/);
    expect(output).toMatch(/1 records are still wrapped by an older key/);
    expect((await rows('live')).find((row) => row.id === orphan)!.wrapped_dek).not.toBeNull();
  });

  it('gives records under the old global fingerprint the per-property one, passing over those that do not open', async () => {
    // No sweep may run meanwhile: it re-fingerprints too.
    await worker?.close();
    worker = undefined;
    const fingerprintKey = world.config.VAULT_FINGERPRINT_KEY!;
    const hmac = (text: string) => createHmac('sha256', fingerprintKey).update(text).digest('base64url');
    const [unreadable, readable] = (await rows('live')).filter((row) => row.kek_id === 'live-kek-new');
    const testRow = (await rows('test')).find((row) => row.wrapped_dek)!;
    const orphan = (await rows('live')).find((row) => row.kek_id === 'live-kek-lost')!;
    const old = [unreadable!, readable!, testRow, orphan];
    // Rows as the version-1 code left them; the first (in id order) under a key no one holds, so a
    // batch of one starting there must move past it.
    for (const row of old) {
      await world.pool.query(
        `UPDATE vault_${cards.get(row.id)!.mode}.cards SET fingerprint = $2, fingerprint_version = 1 WHERE id = $1`,
        [row.id, hmac(`pan:${cards.get(row.id)!.pan}`)],
      );
    }
    await world.pool.query(`UPDATE vault_live.cards SET kek_id = 'live-kek-lost' WHERE id = $1`, [unreadable!.id]);

    const { code, output } = await rotate(NEW, ['--batch-size', '1']);
    expect(code, output).toBe(1);
    expect(output).toContain('keys:rotate test: 1 records re-fingerprinted with local; 0 with an old fingerprint do not open with these keys');
    expect(output).toContain('keys:rotate live: 1 records re-fingerprinted with local; 2 with an old fingerprint do not open with these keys');
    for (const row of old) {
      const { mode, pan } = cards.get(row.id)!;
      const after = await world.pool.query(`SELECT fingerprint, fingerprint_version FROM vault_${mode}.cards WHERE id = $1`, [row.id]);
      const opened = row === readable || row === testRow;
      expect(after.rows[0], row.id).toEqual(
        opened ? { fingerprint: hmac(`pan:v2:1:${pan}`), fingerprint_version: 2 } : { fingerprint: hmac(`pan:${pan}`), fingerprint_version: 1 },
      );
    }
  });

  it('re-binds records sealed without their property: they open before and after, and a second run finds none', async () => {
    const newOnly = softwareKeyProvider('local', {
      kek: { test: parseKeyring(NEW.test), live: parseKeyring(NEW.live) },
      fingerprint: { id: 'local', key: randomBytes(32) },
      transit: parseKeyring(entry('unused')),
    });
    // Two test records (billing details and a held CVV each) as they were sealed before migration 017.
    const old = (await rows('test')).filter((row) => row.wrapped_dek).slice(0, 2).map((row) => row.id);
    const before = await Promise.all(old.map((id) => openStored(world.pool, newOnly, 'test', id)));
    await sealTheOldWay(world.pool, newOnly, 'test', old);
    for (const id of old) expect(await openStored(world.pool, newOnly, 'test', id)).toEqual({ ...before[old.indexOf(id)], binding: 1 });
    const opened = await rotate(NEW, ['--mode', 'test', '--verify']);
    expect(opened.output).toContain(`keys:rotate test: ${readableCount('test')} records checked, 0 do not open`);

    const first = await rotate(NEW, ['--mode', 'test']);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain('keys:rotate test: 2 records re-bound to their property under test-kek-new; 0 not yet bound do not open with these keys');
    for (const id of old) {
      const after = await openStored(world.pool, newOnly, 'test', id);
      expect(after).toEqual({ ...before[old.indexOf(id)], binding: 2 });
      expect(after.cvv).toBe('404');
    }
    const verified = await rotate(NEW, ['--mode', 'test', '--verify']);
    expect(verified.output).toContain(`keys:rotate test: ${readableCount('test')} records checked, 0 do not open`);
    const second = await rotate(NEW, ['--mode', 'test']);
    expect(second.output).toContain('keys:rotate test: 0 records re-bound to their property under test-kek-new; 0 not yet bound do not open with these keys');
  });
});
