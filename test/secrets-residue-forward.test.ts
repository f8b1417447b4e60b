import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskPan } from '@folio-vault/shared/vault/card/redact-pan';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { findBinary, freePort } from '@folio-vault/dev-services/process-utils';
import { startRedisServer, type TRunningService } from '@folio-vault/dev-services/redis-server';
import { cardBody, futureYear } from '@folio-vault/test-kit/cards';
import { createTestPki, startGateway, type TGatewayHandler, type TTestGateway } from '@folio-vault/test-kit/gateway';
import { dumpRedis, dumpRows, findCvvs, findPans, readAof, scanStore, withoutJsonNumbers, type TScan } from './support/secret-scan.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * Card-data residue of the held CVV and of a forward (secrets-residue.test.ts covers tokenize,
 * reads, deletes and exports). The public AMEX test card is tokenized with a 4-digit CVV held for a
 * forward (VAULT_CVV_HOLD_SECONDS > 0), forwarded once — number and CVV in the body, number in the
 * query string — to a local HTTPS gateway that echoes the body, and the number in forms an answer
 * may hide it in (the scanners read them: support/secret-scan.ts), replayed, and forwarded again (the
 * CVV is gone). Then every place data could rest is scanned: every key of a Redis of this file's
 * own and its append-only file, a pg_dump of the database, the audit rows, every log line, every
 * answer. The forward job holds no card data at all, not even sealed: the only transit envelope in
 * Redis is the tokenize job's.
 */
const run = promisify(execFile);
const PAN = '378282246310005';
// Four digits, so the whole-token scan is rare; the stores are scanned for it before any card is sent.
const CVV = '7391';
const canaries = { pans: [PAN], cvvs: [CVV] };
const TEMPLATE = JSON.stringify({ amount: 1000, card: { number: '{{card.number}}', cvc: '{{card.cvv}}', exp_month: '{{card.exp_month}}' } });
/** A transit envelope (packages/shared/src/vault/crypto/transit.ts): v2.<keyId>.<enc>.<ciphertext>, base64url. */
const ENVELOPE = /v2\.[A-Za-z0-9_.-]+\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{20,}/g;

const hex2 = (code: number) => code.toString(16).toUpperCase().padStart(2, '0');
const eachDigit = (pan: string, write: (code: number) => string) => Array.from(pan, (digit) => write(digit.charCodeAt(0))).join('');
const b64 = (text: string) => Buffer.from(text).toString('base64');
/** The number in some of the forms an answer may carry it in: base64 three deep and wrapped, hex, double percent-encoding, references, quoted-printable. */
function formsOf(number: string): Record<string, string> {
  const inner = JSON.stringify({ number });
  return {
    base64_deep: b64(b64(b64(inner))).match(/.{1,76}/g)!.join('\n'),
    hex: Buffer.from(inner).toString('hex'),
    percent_double: eachDigit(number, (c) => `%25${hex2(c)}`),
    references: eachDigit(number, (c) => `&#000${c}`),
    quoted_printable: eachDigit(number, (c) => `=${hex2(c)}`),
  };
}
/** 200 JSON: the body echoed, and the number it received in each of formsOf(). */
const echoEncoded: TGatewayHandler = ({ res, body, n }) => {
  const { number } = (JSON.parse(body) as { card: { number: string } }).card;
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `gw-${n}` });
  res.end(JSON.stringify({ id: 'ch_1', status: 'succeeded', echo: body, forms: formsOf(number) }));
};

let redis: TRunningService;
let redisDir: string;
let gateway: TTestGateway;
let world: TWorld;
let tokenId: string;
let forwardId: string;
let baseline: { redis: TScan; logs: TScan; postgres: TScan };
const answers: string[] = [];
const heldCvvs: number[] = [];

async function answer(req: request.Test): Promise<request.Response> {
  const res = await req;
  const { 'content-length': _length, etag: _etag, ...headers } = res.headers as Record<string, string>;
  answers.push(JSON.stringify(headers), res.text ?? '');
  return res;
}
const vault = (method: 'get' | 'post', path: string) =>
  request(world.url)[method](path).set('Authorization', `Bearer ${world.token({ scope: 'use:payment read:payment write:payment' })}`)
    .set('X-Property-Id', '1').set('SVC-Tokenization-Mode', 'test');
const forward = (key: string) =>
  answer(vault('post', `/vault/v1/tokens/${tokenId}/forward`).set('Idempotency-Key', key).send({
    destination: 'acme', path: '/v1/charges?card={{card.number}}', headers: { 'Content-Type': 'application/json' }, body: TEMPLATE,
  }));

async function pgDump(): Promise<string> {
  const pgDumpBinary = findBinary('pg_dump');
  expect(pgDumpBinary, 'pg_dump is installed with PostgreSQL').toBeDefined();
  const { stdout } = await run(pgDumpBinary!, ['--no-owner', world.ownerUrl], { maxBuffer: 64 * 1024 * 1024 });
  return stdout.replace(/^\\(un)?restrict .*$/gm, '');
}
/** bytea ciphertext dumps as hex, which holds digit runs by chance: not a place a CVV can be in clear. */
const scanDump = (store: string, dump: string) => scanStore(store, dump, canaries, { cvvText: dump.replace(/\\x[0-9a-f]+/g, ''), units: `${dumpRows(dump)} rows` });
const scanLogs = (store: string) => {
  const text = world.logs.join('');
  return scanStore(store, text, canaries, { cvvText: withoutJsonNumbers(text), units: `${world.logs.length} lines` });
};
const countHeldCvvs = async () => Number((await world.pool.query<{ n: string }>('SELECT count(*) AS n FROM vault_test.held_cvvs')).rows[0]!.n);

beforeAll(async () => {
  redisDir = await mkdtemp(join(tmpdir(), 'folio-residue-forward-redis-'));
  const pki = await createTestPki();
  [redis, gateway] = await Promise.all([startRedisServer({ dir: redisDir, port: await freePort(), appendOnly: true }), startGateway({ pki, handler: echoEncoded })]);
  const destination = { name: 'acme', url: gateway.origin, modes: ['test'], paths: ['/v1/charges'], methods: ['POST'], ca: pki.ca };
  world = await createWorld({ env: { REDIS_URL: redis.url, VAULT_CVV_HOLD_SECONDS: '600', VAULT_FORWARD_DESTINATIONS: JSON.stringify([destination]) } });
  // Before any card: the canaries do not occur by chance in what is scanned.
  baseline = { redis: scanStore('redis keys, before', (await dumpRedis(world.redis)).text, canaries), logs: scanLogs('logs, before'), postgres: scanDump('postgres dump, before', await pgDump()) };

  const body = cardBody({ card_number: PAN, cvv: CVV, cardholder_name: 'Zoë Łukasiewicz', expiration: { month: '07', year: futureYear(2) } });
  const tokenized = await answer(vault('post', '/vault/v1/tokens/card').set('Idempotency-Key', 'residue-forward-tokenize').send(body));
  expect(tokenized.status, tokenized.text).toBe(200);
  tokenId = tokenized.body.id;
  const metadata = await answer(vault('get', `/vault/v1/tokens/${tokenId}`));
  expect(typeof metadata.body.cvv_held_until, metadata.text).toBe('string');
  heldCvvs.push(await countHeldCvvs());

  const forwarded = await forward('residue-forward-1');
  expect(forwarded.status, forwarded.text).toBe(200);
  expect(forwarded.body.status).toBe(200);
  forwardId = forwarded.body.forward_id;
  heldCvvs.push(await countHeldCvvs());
  // The replay answers the recorded (masked) answer; a new forward finds the CVV gone.
  expect((await forward('residue-forward-1')).body.forward_id).toBe(forwardId);
  const again = await forward('residue-forward-2');
  expect([again.status, again.body.errorCode]).toEqual([400, 'CVV_NOT_AVAILABLE']);
}, 60_000);

afterAll(async () => {
  await world?.close();
  await gateway?.close();
  await redis?.stop();
  if (redisDir) await rm(redisDir, { recursive: true, force: true });
  if (world) await rm(world.config.STORAGE_DIR, { recursive: true, force: true });
});

const scans: TScan[] = [];
const scanned = (result: TScan) => (scans.push(result), result);

describe('card-data residue of the held CVV and a forward', () => {
  it('the canaries occur nowhere before the card is sent, and the gateway got them in clear', () => {
    expect([baseline.redis, baseline.logs, baseline.postgres].flatMap((s) => [...s.pans, ...s.cvvs])).toEqual([]);
    // One call only (the replay and the CVV-less forward never reached it), with the card in clear:
    // the scanners find the card in the very form it took.
    expect(gateway.calls()).toBe(1);
    const [received] = gateway.requests;
    expect(findPans(received!.path, [PAN])).toEqual([PAN]);
    expect(findPans(received!.body, [PAN])).toEqual([PAN]);
    // They read the number in every form the gateway wrote it back in.
    for (const [form, text] of Object.entries(formsOf(PAN))) expect(findPans(text, [PAN]), form).toEqual([PAN]);
    expect(findCvvs(received!.body, [CVV])).toEqual([CVV]);
    // Held at tokenize, destroyed by the forward that used it.
    expect(heldCvvs).toEqual([1, 0]);
  });

  it('the forward job holds no card data, sealed or not; the only envelope in Redis is the tokenize job\'s', async () => {
    const prefix = world.config.QUEUE_PREFIX;
    const job = await world.redis.hgetall(`${prefix}:${QUEUE_NAMES.forward}:${forwardId}`);
    expect(Object.keys(job)).toEqual(expect.arrayContaining(['data', 'returnvalue']));
    const events = JSON.stringify(await world.redis.xrange(`${prefix}:${QUEUE_NAMES.forward}:events`, '-', '+'));
    for (const text of [job.data!, job.returnvalue!, events]) {
      expect(text).not.toContain(PAN);
      expect(findPans(text, [PAN])).toEqual([]);
      expect(findCvvs(withoutJsonNumbers(text), [CVV])).toEqual([]);
      expect(text).not.toContain('v2.');
    }
    // The result is the masked answer: the echo is there, cut.
    expect(job.returnvalue).toContain(maskPan(PAN));
    for (const queue of [QUEUE_NAMES.vault, QUEUE_NAMES.forward]) expect(await world.redis.zcard(`${prefix}:${queue}:failed`)).toBe(0);
    const tokenizeJobs = [];
    for (const key of await world.redis.keys(`${prefix}:${QUEUE_NAMES.vault}:*`)) {
      if ((await world.redis.type(key)) === 'hash' && (await world.redis.hget(key, 'name')) === 'tokenize-card') tokenizeJobs.push(await world.redis.hget(key, 'data'));
    }
    expect(tokenizeJobs).toHaveLength(1);
    const sealedCard = (JSON.parse(tokenizeJobs[0]!) as { sealedCard: string }).sealedCard;
    const { text } = await dumpRedis(world.redis);
    expect(new Set(text.match(ENVELOPE))).toEqual(new Set([sealedCard]));
    expect(new Set((await readAof(redisDir)).text.match(ENVELOPE))).toEqual(new Set([sealedCard]));
  });

  it('Redis: every key, and the append-only file on disk', async () => {
    const { text, keys } = await dumpRedis(world.redis);
    const aof = await readAof(redisDir);
    // The scans looked where the forward went.
    expect(text).toContain(forwardId);
    expect(aof.text).toContain(forwardId);
    const live = scanned(scanStore('redis keys', text, canaries, { units: `${keys} keys` }));
    // RESP framing (*<count>, $<length>) is numbers by construction.
    const onDisk = scanned(scanStore('redis AOF', aof.text, canaries, { cvvText: aof.text.replace(/^[*$:]\d+\r$/gm, ''), units: `${aof.files} files` }));
    expect([...live.pans, ...onDisk.pans, ...live.cvvs, ...onDisk.cvvs]).toEqual([]);
  });

  it('PostgreSQL: a pg_dump, and the audit rows', async () => {
    const dump = await pgDump();
    expect(dump).toContain(forwardId);
    expect(dump).toMatch(/COPY vault_test\.forward_attempts/);
    const hits = scanned(scanDump('postgres dump', dump));
    expect([...hits.pans, ...hits.cvvs]).toEqual([]);
    expect(dump).not.toContain('Łukasiewicz');
    const { rows } = await world.pool.query('SELECT * FROM audit.vault_events WHERE token_id = $1 ORDER BY id', [tokenId]);
    expect(rows.map((row) => [row.action, row.outcome, row.http_status])).toEqual([
      ['token.tokenize', 'success', 200],
      ['token.read', 'success', 200],
      ['token.forward', 'success', 200],
      ['token.forward', 'success', 200],
      ['token.forward', 'rejected', 400],
    ]);
    // The template is recorded, never what it was filled with.
    expect(rows[2]).toMatchObject({ destination: 'acme', forward_path: '/v1/charges?card={{card.number}}', gateway_status: 200 });
    const audit = scanned(scanStore('audit rows', JSON.stringify(rows), canaries, { cvvText: withoutJsonNumbers(JSON.stringify(rows)), units: `${rows.length} rows` }));
    expect([...audit.pans, ...audit.cvvs]).toEqual([]);
  });

  it('every log line', () => {
    const hits = scanned(scanLogs('logs'));
    expect(world.logs.join('')).toContain(forwardId);
    expect([...hits.pans, ...hits.cvvs]).toEqual([]);
  });

  it('every HTTP answer; the forward\'s answer has the echo, masked', () => {
    const forwarded = JSON.parse(answers.find((text) => text.includes('"forward_id"'))!) as { body: string };
    const echoed = JSON.parse((JSON.parse(forwarded.body) as { echo: string }).echo) as { card: Record<string, string> };
    expect(echoed.card).toEqual({ number: maskPan(PAN), cvc: '***', exp_month: '07' });
    const { forms } = JSON.parse(forwarded.body) as { forms: Record<string, string> };
    const fromBase64 = (text: string) => Buffer.from(text, 'base64').toString('utf8');
    expect(JSON.parse(fromBase64(fromBase64(fromBase64(forms.base64_deep!.replace(/\n/g, '')))))).toEqual({ number: maskPan(PAN) });
    expect(JSON.parse(Buffer.from(forms.hex!, 'hex').toString('utf8'))).toEqual({ number: maskPan(PAN) });
    const text = answers.join('\n');
    const hits = scanned(scanStore('http answers', text, canaries, { cvvText: withoutJsonNumbers(text), units: `${answers.length / 2} answers` }));
    expect([...hits.pans, ...hits.cvvs]).toEqual([]);
  });

  it('in total', () => {
    const hits = scans.reduce((n, s) => n + s.pans.length + s.cvvs.length, 0);
    // eslint-disable-next-line no-console
    console.log(`residue (forward): ${hits} hits over ${scans.reduce((n, s) => n + s.bytes, 0)} bytes scanned (${scans.map((s) => `${s.store}: ${s.units}`).join(', ')})`);
    expect(scans.map((s) => s.store)).toEqual(['redis keys', 'redis AOF', 'postgres dump', 'audit rows', 'logs', 'http answers']);
    expect(hits).toBe(0);
  });
});
