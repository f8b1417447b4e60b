import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskPan, redactPans } from '@folio-vault/shared/vault/card/redact-pan';
import { parseKeyring, parseSingleKey } from '@folio-vault/shared/vault/crypto/keyring';
import { findBinary, freePort } from '@folio-vault/dev-services/process-utils';
import { startRedisServer, type TRunningService } from '@folio-vault/dev-services/redis-server';
import { cardBody, futureYear, generatedPan } from '@folio-vault/test-kit/cards';
import { dumpRedis, dumpRows, findCvvs, findPans, scanStore, withoutJsonNumbers, type TScan } from './support/secret-scan.js';
import { createWorld, type TWorld } from './support/world.js';

// Tests print their figures.
// eslint-disable-next-line no-console
const report = (line: string) => console.log(line);

/**
 * Card-data residue (issue 7): canary PANs and CVVs go through every path that can carry them —
 * successful and failed tokenizations, idempotency conflicts, denied and malformed requests, reads,
 * deletes, exports — and then every place data could rest is scanned: every Redis key and the
 * append-only file on disk (a Redis of this file's own, so the AOF can be read), a pg_dump of the
 * database, every log line, every stored export object (as text), every HTTP answer. Clear PANs are
 * allowed nowhere (vault ciphertext is not clear); CVVs nowhere at all.
 */
const run = promisify(execFile);

// Canaries: made up at run time, so any hit is this run's data and not a fixture.
const livePans = [generatedPan('4', 16), generatedPan('53', 16), generatedPan('37', 15), generatedPan('6011', 16)];
const testPans = [generatedPan('4', 19), generatedPan('2221', 16)];
const rejectedPans = [generatedPan('4', 16), generatedPan('55', 16)];
const publicTestPan = '4242424242424242';
const allPans = [...livePans, ...testPans, ...rejectedPans, publicTestPan];
// Three-digit CVVs are findable only as whole tokens (secret-scan.ts); these avoid HTTP statuses
// and the round numbers of job options. '7391' is the AMEX one; '6158' and '93847' are wrong lengths.
const cvvs = ['846', '592', '7391', '6158', '93847'];

let redis: TRunningService;
let redisDir: string;
let world: TWorld;
const answers: string[] = [];
const tokenIds: string[] = [];

type TReq = request.Test;
async function answer(req: TReq): Promise<request.Response> {
  const res = await req;
  // Lengths and validators are numbers by construction (a body of 846 bytes is not a CVV).
  const { 'content-length': _length, etag: _etag, ...headers } = res.headers as Record<string, string>;
  answers.push(JSON.stringify(headers), res.text ?? '');
  return res;
}

const auth = () => `Bearer ${world.token({ properties: [1, 2, 3] })}`;
const post = (body: unknown, headers: Record<string, string> = {}) =>
  request(world.url).post('/vault/v1/tokens/card').set('Authorization', auth()).set('X-Property-Id', '1').set(headers).send(body as object);
const spaced = (pan: string) => pan.match(/.{1,4}/g)!.join(' ');

beforeAll(async () => {
  redisDir = await mkdtemp(join(tmpdir(), 'folio-residue-redis-'));
  redis = await startRedisServer({ dir: redisDir, port: await freePort(), appendOnly: true });
  world = await createWorld({ env: { REDIS_URL: redis.url } });
  const t = { 'SVC-Tokenization-Mode': 'test' };
  // Property 3's gateway is in test mode: a live request for it is a mode mismatch.
  const property3 = await answer(request(world.url).post('/accounting/v1.0/import').set('Authorization', auth()).set('X-Property-Id', '3').send({
    property: { id: 3, name: 'Test Gateway Hotel', currency: 'EUR', timezone: 'Europe/Lisbon', gatewayMode: 'test' },
  }));
  expect(property3.status, property3.text).toBe(200);

  // Successful tokenizations: live and test, plain / spaced / dashed, with and without idempotency.
  for (const [i, pan] of [...livePans, ...testPans].entries()) {
    const amex = pan.startsWith('37');
    const number = i % 3 === 0 ? pan : i % 3 === 1 ? spaced(pan) : pan.match(/.{1,4}/g)!.join('-');
    const body = cardBody({
      card_number: number,
      cvv: amex ? '7391' : cvvs[i % 2]!,
      cardholder_name: 'Zoë Łukasiewicz',
      billing_details: { address1: 'Rua Augusta 9', city: 'Lisboa', country: 'PT', document_number: 'X1234567L' },
      expiration: { month: '07', year: futureYear(2) },
    });
    const headers: Record<string, string> = testPans.includes(pan) ? { ...t } : {};
    if (i % 2 === 0) headers['Idempotency-Key'] = `residue-${i}`;
    const res = await answer(post(body, headers));
    expect(res.status, res.text).toBe(200);
    tokenIds.push(res.body.id);
    if (headers['Idempotency-Key']) {
      // Idempotency conflict: same key, another body.
      expect((await answer(post({ ...body, cardholder_name: 'Other Name' }, headers))).status).toBe(409);
      // Replay: same key, same body.
      expect((await answer(post(body, headers))).body.id).toBe(res.body.id);
    }
  }

  // Failed tokenizations, each carrying a canary PAN and CVV.
  const [r1, r2] = rejectedPans as [string, string];
  const failures: Array<[unknown, Record<string, string>, number]> = [
    [cardBody({ card_number: r1, cvv: '846', expiration: { month: '01', year: '2020' } }), {}, 400], // expired
    [cardBody({ card_number: r1, cvv: '6158' }), {}, 400], // CVV too long for VISA
    [cardBody({ card_number: spaced(r2), cvv: '93847' }), {}, 400],
    [{ ...cardBody({ card_number: r2, cvv: '592' }), pin: '592', cvv2: r2 }, {}, 400], // unknown fields
    [cardBody({ card_number: publicTestPan, cvv: '846' }), {}, 400], // public test card in live mode
    [cardBody({ card_number: `${r1.slice(0, -1)}${(Number(r1.at(-1)) + 1) % 10}`, cvv: '846' }), {}, 400], // Luhn fails
    [cardBody({ card_number: r1, cvv: '846' }), { 'X-Property-Id': '3' }, 400], // mode mismatch (property 3 is test)
    [cardBody({ card_number: r1, cvv: '846' }), { 'SVC-Tokenization-Mode': 'live' }, 400], // bad header
  ];
  for (const [body, headers, status] of failures) {
    const res = await answer(post(body, headers));
    expect(res.status, res.text).toBe(status);
  }

  // Error paths: no token, another property, wrong media type, malformed JSON, too large.
  const raw = JSON.stringify(cardBody({ card_number: r2, cvv: '592' }));
  expect((await answer(request(world.url).post('/vault/v1/tokens/card').set('X-Property-Id', '1').send(JSON.parse(raw)))).status).toBe(401);
  expect((await answer(post(JSON.parse(raw), { Authorization: `Bearer ${world.token({ properties: [9] })}` }))).status).toBe(403);
  expect((await answer(post(raw, { 'Content-Type': 'text/plain' }))).status).toBe(415);
  expect((await answer(post(raw.slice(0, -5), { 'Content-Type': 'application/json' }))).status).toBe(400);
  expect((await answer(post(`{"card_number":"${r2}","cvv":"592","x":"${'y'.repeat(20_000)}"}`, { 'Content-Type': 'application/json' }))).status).toBe(413);

  // A PAN where the token id goes, and in a path no route has: answered 400/404, and the path is
  // on the request's log line (masked there to first six / last four).
  expect((await answer(request(world.url).get(`/vault/v1/tokens/${r2}`).set('Authorization', auth()).set('X-Property-Id', '1'))).status).toBe(400);
  expect((await answer(request(world.url).delete(`/vault/v1/tokens/${encodeURIComponent(spaced(r1))}`).set('Authorization', auth()).set('X-Property-Id', '1'))).status).toBe(400);
  expect((await answer(request(world.url).get(`/vault/v1/cards/${r1}?cvv=846`))).status).toBe(404);

  // Reads and deletes, and a read of a deleted token.
  const vault = (method: 'get' | 'delete', id: string) =>
    request(world.url)[method](`/vault/v1/tokens/${id}`).set('Authorization', auth()).set('X-Property-Id', '1');
  expect((await answer(vault('get', tokenIds[0]!))).status).toBe(200);
  expect((await answer(vault('delete', tokenIds[1]!))).status).toBe(204);
  expect((await answer(vault('get', tokenIds[1]!))).status).toBe(404);

  // An export (PDF and XLSX) of a folio paid by card: the ledger knows the brand, never the number.
  const importRes = await answer(
    request(world.url).post('/accounting/v1.0/import').set('Authorization', auth()).set('X-Property-Id', '2').send({
      property: { id: 2, name: 'Residue Hotel', currency: 'EUR', timezone: 'Europe/Lisbon', gatewayMode: 'live' },
      folios: [{ id: 20, sourceKind: 'RESERVATION', sourceId: 600, sourceIdentifier: 'RES-600', name: 'Guest folio' }],
      transactions: [
        { id: 1, folioId: 20, sourceKind: 'RESERVATION', sourceId: 600, transactionDatetime: '2026-11-20T20:00:00Z', serviceDate: '2026-11-20', internalTransactionCode: 'RR', internalCodeGroup: 'ROOM_REVENUE_RATE', description: 'Nightly rate', quantity: 1, amount: '120.00', currency: 'EUR', posted: true },
        { id: 2, folioId: 20, sourceKind: 'RESERVATION', sourceId: 600, transactionDatetime: '2026-11-21T09:00:00Z', serviceDate: '2026-11-21', internalTransactionCode: 'PAY', internalCodeGroup: 'PAYMENT', paymentMethod: 'cards_visa', description: `Card payment VISA ${livePans[0]!.slice(-4)}`, quantity: 1, amount: '-120.00', currency: 'EUR', posted: true },
      ],
    }),
  );
  expect(importRes.status, importRes.text).toBe(200);
  for (const format of ['PDF', 'XLSX']) {
    const res = await answer(
      request(world.url).post('/fiscal-document/v1/folios/export').set('Authorization', auth()).set('X-Property-Id', '2')
        .buffer(true).parse((r, done) => { const chunks: Buffer[] = []; r.on('data', (c: Buffer) => chunks.push(c)); r.on('end', () => done(null, Buffer.concat(chunks))); })
        .send({ sourceKind: 'RESERVATION', sourceId: 600, format }),
    );
    expect(res.status, String(res.body)).toBe(200);
  }
  // A failed export request whose body carries a PAN where an id goes.
  expect((await answer(request(world.url).post('/fiscal-document/v1/folios/export').set('Authorization', auth()).set('X-Property-Id', '2').send({ sourceKind: 'RESERVATION', sourceId: 'x', folioIds: [r2], cvv: '592' }))).status).toBe(400);
}, 90_000);

afterAll(async () => {
  await world?.close();
  await redis?.stop();
  if (redisDir) await rm(redisDir, { recursive: true, force: true });
  if (world) await rm(world.config.STORAGE_DIR, { recursive: true, force: true });
});

const scans: TScan[] = [];
/** Every store's text as scanned, for the key-material scan at the end. */
const scannedTexts = new Map<string, string>();
/** Scans one store's text; `cvvText` is the same text with what cannot hold a CVV by construction removed. */
function scan(store: string, text: string, cvvText: string, units: string): TScan {
  const result = scanStore(store, text, { pans: allPans, cvvs }, { cvvText, units });
  scans.push(result);
  scannedTexts.set(store, text);
  return result;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('card-data residue', () => {
  it('the scanners find what they look for', () => {
    expect(findPans(`a ${spaced(livePans[0]!)} b`, allPans)).toEqual([livePans[0]]);
    expect(findCvvs('*3\r\n$3\r\n846\r\n', cvvs)).toEqual(['846']);
    expect(findCvvs(withoutJsonNumbers('{"ms":846,"cvv":"592"}'), cvvs)).toEqual(['592']);
    // The log masker cuts card numbers only: an epoch-ms timestamp, a pid and a UUID stay whole.
    const line = `{"time":1795336262538,"pid":18313,"requestId":"01a20261-539f-7681-9b90-3253bd7e0b1f","path":"/x/${spaced(livePans[1]!)}"}`;
    expect(redactPans(line)).toBe(line.replace(spaced(livePans[1]!), maskPan(livePans[1]!)));
  });

  it('Redis: every key, and the append-only file on disk', async () => {
    const { text, keys } = await dumpRedis(world.redis);
    expect(keys).toBeGreaterThan(0);
    // The jobs that carried the cards are there, sealed.
    expect((text.match(/sealedCard\\?":\\?"v2\./g) ?? []).length).toBeGreaterThanOrEqual(livePans.length + testPans.length);
    const live = scan('redis keys', text, text, `${keys} keys`);
    const aofFiles = (await filesUnder(redisDir)).filter((file) => /appendonly/.test(file));
    expect(aofFiles.length).toBeGreaterThan(0);
    const aof = (await Promise.all(aofFiles.map((file) => readFile(file)))).map((buffer) => buffer.toString('latin1')).join('\n');
    // The AOF holds every write, the card jobs' included (so the scan looked where they went).
    expect(aof).toContain('sealedCard');
    // RESP framing (*<count>, $<length>) is numbers by construction.
    const onDisk = scan('redis AOF', aof, aof.replace(/^[*$:]\d+\r$/gm, ''), `${aofFiles.length} files`);
    expect(live.pans.concat(onDisk.pans), 'PANs in Redis').toEqual([]);
    expect(live.cvvs.concat(onDisk.cvvs), 'CVVs in Redis').toEqual([]);
  });

  it('PostgreSQL: a pg_dump of the database', async () => {
    const pgDump = findBinary('pg_dump');
    expect(pgDump, 'pg_dump is installed with PostgreSQL').toBeDefined();
    const { stdout } = await run(pgDump!, ['--no-owner', world.ownerUrl], { maxBuffer: 64 * 1024 * 1024 });
    const dump = stdout.replace(/^\\(un)?restrict .*$/gm, '');
    for (const id of tokenIds) expect(dump).toContain(id);
    expect(dump).toContain('Residue Hotel');
    expect(dump).toMatch(/COPY audit\.vault_events/);
    // bytea ciphertext dumps as hex, which holds digit runs by chance: not a place a CVV can be in clear.
    const hits = scan('postgres dump', dump, dump.replace(/\\x[0-9a-f]+/g, ''), `${dumpRows(dump)} rows`);
    expect(hits.pans).toEqual([]);
    expect(hits.cvvs).toEqual([]);
    expect(dump).not.toContain('Łukasiewicz');
    expect(dump).not.toContain('Rua Augusta');
  });

  it('every log line', () => {
    const text = world.logs.join('');
    expect(world.logs.length).toBeGreaterThan(50);
    const hits = scan('logs', text, withoutJsonNumbers(text), `${world.logs.length} lines`);
    // The PANs sent in URL paths reached the log, masked.
    expect(text).toContain(`/vault/v1/tokens/${maskPan(rejectedPans[1]!)}`);
    expect(text).toContain(`/vault/v1/cards/${maskPan(rejectedPans[0]!)}`);
    expect(text).not.toMatch(/"cvv"\s*:\s*"/);
    expect(hits.pans).toEqual([]);
    expect(hits.cvvs).toEqual([]);
  });

  it('every stored object, raw and as text', async () => {
    const files = await filesUnder(world.config.STORAGE_DIR);
    expect(files.filter((file) => file.endsWith('.pdf'))).toHaveLength(1);
    expect(files.filter((file) => file.endsWith('.xlsx'))).toHaveLength(1);
    const raw: string[] = [];
    const parts: string[] = [];
    for (const file of files) {
      raw.push((await readFile(file)).toString('latin1'));
      if (file.endsWith('.pdf')) parts.push((await run('pdftotext', ['-layout', file, '-'])).stdout);
      if (file.endsWith('.xlsx')) {
        const book = new ExcelJS.Workbook();
        await book.xlsx.readFile(file);
        book.eachSheet((sheet) => sheet.eachRow((row) => parts.push(JSON.stringify(row.values))));
      }
    }
    const text = parts.join('\n');
    // The scan read the documents: the folio's text is there.
    expect(text).toContain('Nightly rate');
    // CVVs are looked for in the documents' text: the raw bytes are compressed streams and PDF
    // object numbers, where any three digits turn up by chance.
    const hits = scan('objects', `${raw.join('\n')}\n${text}`, text, `${files.length} files`);
    expect(hits.pans).toEqual([]);
    expect(hits.cvvs).toEqual([]);
  });

  it('every HTTP answer (headers and bodies)', () => {
    const text = answers.join('\n');
    expect(answers.length).toBeGreaterThan(40);
    const hits = scan('http answers', text, withoutJsonNumbers(text), `${answers.length / 2} answers`);
    expect(hits.pans).toEqual([]);
    expect(hits.cvvs).toEqual([]);
  });

  it('no key material: no byte of a vault key, the transit private key or the link key, in any encoding, in any store', () => {
    const secrets = [
      ...['VAULT_KEK_TEST', 'VAULT_KEK_LIVE', 'VAULT_TRANSIT_KEY'].flatMap((name) => [...parseKeyring(world.env[name]!).keys.values()]),
      parseSingleKey(world.env.VAULT_FINGERPRINT_KEY!),
      parseSingleKey(world.env.EXPORT_LINK_KEY!),
    ];
    // Any 12-byte window of a key in base64, base64url or hex (a key cut or wrapped across a line still shows).
    const forms = secrets.flatMap((key) => [key.subarray(0, 12), key.subarray(20, 32)].flatMap((part) => [
      part.toString('base64'), part.toString('base64url'), part.toString('hex'), part.toString('latin1'),
    ]));
    expect(forms).toHaveLength(5 * 2 * 4);
    expect([...scannedTexts.keys()]).toEqual(['redis keys', 'redis AOF', 'postgres dump', 'logs', 'objects', 'http answers']);
    for (const [store, text] of scannedTexts) {
      const found = forms.filter((form) => text.includes(form));
      expect(found, `key material in ${store}`).toEqual([]);
    }
  });

  it('in total', () => {
    const pans = scans.reduce((n, s) => n + s.pans.length, 0);
    const cvvHits = scans.reduce((n, s) => n + s.cvvs.length, 0);
    const bytes = scans.reduce((n, s) => n + s.bytes, 0);
    report(`residue: ${pans} PAN hits, ${cvvHits} CVV hits over ${bytes} bytes scanned (${scans.map((s) => `${s.store}: ${s.units}`).join(', ')})`);
    expect(scans.map((s) => s.store)).toEqual(['redis keys', 'redis AOF', 'postgres dump', 'logs', 'objects', 'http answers']);
    expect(pans).toBe(0);
    expect(cvvHits).toBe(0);
  });
});
