import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBinary } from '@folio-vault/dev-services/process-utils';
import { cardBody, futureYear, generatedPan } from '@folio-vault/test-kit/cards';
import { dumpRedis, findCvvs, findPans } from './support/secret-scan.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * Card data stays secret: tokenize known PANs (test and live mode, with and without idempotency,
 * rejected ones too), read and delete tokens, then scan every Redis key, every log line and a
 * pg_dump of the database for them in clear. CVVs are looked for everywhere.
 */
const execFileAsync = promisify(execFile);

let world: TWorld;
const testPans = ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117'];
const livePans = [generatedPan('4', 16), generatedPan('51', 16), generatedPan('37', 15)];
const cvvs = ['738', '9152', '604'];
const tokenIds: string[] = [];

beforeAll(async () => {
  world = await createWorld();
  const token = world.token({ properties: [1] });
  const post = (body: object, headers: Record<string, string>) =>
    request(world.url).post('/vault/v1/tokens/card').set('Authorization', `Bearer ${token}`).set('X-Property-Id', '1').set(headers).send(body);

  for (const [i, pan] of [...testPans, ...livePans].entries()) {
    const amex = pan.startsWith('37');
    const test = testPans.includes(pan);
    const body = cardBody({
      card_number: i % 2 ? pan.match(/.{1,4}/g)!.join(' ') : pan,
      cvv: amex ? cvvs[1] : cvvs[i % 2 === 0 ? 0 : 2],
      cardholder_name: 'Zoë Łukasiewicz',
      billing_details: { address1: 'Calle Mayor 1', city: 'Madrid', country: 'ES', document_number: 'X1234567L' },
      expiration: { month: '09', year: futureYear(2) },
    });
    const headers: Record<string, string> = { 'Idempotency-Key': `scan-${i}` };
    if (test) headers['SVC-Tokenization-Mode'] = 'test';
    const res = await post(body, headers);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    tokenIds.push(res.body.id);
    // Same key, other body: 409, and the PAN must not come back in it.
    const reused = await post({ ...body, cardholder_name: 'Someone Else' }, headers);
    expect(reused.status).toBe(409);
    // A rejected request (bad expiry) with the same PAN and CVV.
    const rejected = await post({ ...body, expiration: { month: '13', year: '2020' } }, headers);
    expect(rejected.status).toBe(400);
    // A live request with a public test number: refused before anything is queued.
    if (test) expect((await post(body, {})).body.errorCode).toBe('TEST_CARD_IN_LIVE_MODE');
  }
  const first = tokenIds[0]!;
  expect((await request(world.url).get(`/vault/v1/tokens/${first}`).set('Authorization', `Bearer ${token}`).set('X-Property-Id', '1').set('SVC-Tokenization-Mode', 'test')).status).toBe(200);
  expect((await request(world.url).delete(`/vault/v1/tokens/${first}`).set('Authorization', `Bearer ${token}`).set('X-Property-Id', '1').set('SVC-Tokenization-Mode', 'test')).status).toBe(204);
});
afterAll(async () => world?.close());

const allPans = () => [...testPans, ...livePans];

describe('no card data in clear', () => {
  it('the scanner itself finds a PAN and a CVV when they are there', () => {
    expect(findPans(`x ${testPans[0]!.match(/.{1,4}/g)!.join(' ')} y`, allPans())).toEqual([testPans[0]]);
    expect(findCvvs('{"cvv":"738"}', cvvs)).toEqual(['738']);
    expect(findCvvs('ts 2026-11-22T05:44:53.7381Z', cvvs)).toEqual([]);
  });

  it('Redis: every key of every type, including the jobs that carried the cards', async () => {
    const { text, keys } = await dumpRedis(world.redis);
    // The tokenize jobs are still there (completed jobs are kept 5 minutes) and carry ciphertext.
    expect(keys).toBeGreaterThan(0);
    expect((text.match(/sealedCard\\?":\\?"v2\./g) ?? []).length).toBeGreaterThanOrEqual(allPans().length);
    expect(findPans(text, allPans())).toEqual([]);
    expect(findCvvs(text, cvvs)).toEqual([]);
    expect(text).not.toMatch(/"cvv"/i);
    expect(text).not.toContain('Łukasiewicz');
    expect(text).not.toContain('Calle Mayor');
  });

  it("the service's log output", () => {
    const text = world.logs.join('');
    expect(world.logs.length).toBeGreaterThan(allPans().length * 3);
    expect(text).toContain('"requestId"');
    expect(findPans(text, allPans())).toEqual([]);
    expect(findCvvs(text, cvvs)).toEqual([]);
    expect(text).not.toContain('Łukasiewicz');
    expect(text).not.toContain(world.config.JWT_SECRET!);
  });

  it('every log line of a request carries its request id', () => {
    const requestLines = world.logs.map((line) => JSON.parse(line)).filter((line) => line.req);
    expect(requestLines.length).toBeGreaterThan(0);
    for (const line of requestLines) expect(line.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a pg_dump of the database', async () => {
    const pgDump = findBinary('pg_dump');
    expect(pgDump, 'pg_dump is installed with PostgreSQL').toBeDefined();
    const dump = await execFileAsync(pgDump!, ['--no-owner', world.ownerUrl], { maxBuffer: 64 * 1024 * 1024 });
    // pg_dump's \restrict line carries a random 64-character key, which holds any three letters by chance.
    const stdout = dump.stdout.replace(/^\\(un)?restrict .*$/gm, '');
    // The dump does hold the vault rows (so the scan looked where the cards are).
    for (const id of tokenIds) expect(stdout).toContain(id);
    expect(stdout).toContain('\\x01');
    expect(findPans(stdout, allPans())).toEqual([]);
    // Ciphertext is dumped as hex (\x…), which contains digit runs by chance: leave it out for the CVV scan.
    const withoutHex = stdout.replace(/\\x[0-9a-f]+/g, '');
    expect(findCvvs(withoutHex, cvvs)).toEqual([]);
    // One place for it: the schema part of the dump (row data left out: base64 fingerprints hold
    // any three letters by chance) names a CVV only in the held-CVV tables, as sealed bytes.
    const schemaOnly = stdout.replace(/^COPY [^\n]*FROM stdin;\n[\s\S]*?^\\\.$/gm, '');
    expect(schemaOnly).toContain('CREATE TABLE vault_live.cards');
    expect([...new Set(schemaOnly.match(/[\w.]*(?:cvv|cvc|security_code)[\w.]*/gi))].sort()).toEqual([
      'cvv_ct', 'held_cvvs', 'held_cvvs_held_until_idx', 'held_cvvs_pkey', 'held_cvvs_token_id_fkey', 'vault_live.held_cvvs', 'vault_test.held_cvvs',
    ]);
    expect(schemaOnly.match(/cvv_ct \w+/g)).toEqual(['cvv_ct bytea', 'cvv_ct bytea']);
    expect(stdout).not.toContain('Łukasiewicz');
    expect(stdout).not.toContain('Calle Mayor');
    expect(stdout).not.toContain('X1234567L');
  });

  it('the API answers no card data', async () => {
    // Answers were checked as they came; this re-reads one token's metadata for good measure.
    const res = await request(world.url)
      .get(`/vault/v1/tokens/${tokenIds[1]}`)
      .set('Authorization', `Bearer ${world.token({ properties: [1] })}`)
      .set('X-Property-Id', '1')
      .set('SVC-Tokenization-Mode', 'test');
    expect(res.status).toBe(200);
    expect(findPans(res.text, allPans())).toEqual([]);
    expect(res.body.first6).toBe('555555');
  });
});
