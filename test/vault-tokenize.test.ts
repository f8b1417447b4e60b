import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, futureYear, generatedPan } from '@folio-vault/test-kit/cards';
import { createWorld, type TWorld } from './support/world.js';

let world: TWorld;
let token: string;

beforeAll(async () => {
  world = await createWorld({ env: { WORKER_HEALTH_PORT: 'ephemeral' } });
  token = world.token({ properties: [1, 2, 3, 4, 5] });
});
afterAll(async () => world?.close());

function tokenize(body: unknown, headers: Record<string, string> = {}) {
  return request(world.url)
    .post('/vault/v1/tokens/card')
    .set('Authorization', `Bearer ${token}`)
    .set('X-Property-Id', '1')
    .set('SVC-Tokenization-Mode', 'test')
    .set(headers)
    .send(body as object);
}

function expectFieldError(res: request.Response, path: string, status = 400, code = 'INVALID_REQUEST') {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.errorCode).toBe(code);
  expect(res.body.id).toBe(res.headers['x-request-id']);
  expect(new Date(res.body.timestamp).toString()).not.toBe('Invalid Date');
  expect(res.body.fieldErrors.map((e: { path: string }) => e.path)).toContain(path);
}

describe('POST /vault/v1/tokens/card — accepted cards', () => {
  it('tokenizes a test card in test mode and answers the token, never the number', async () => {
    const res = await tokenize(cardBody({ card_number: '4111 1111-1111 1111' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      card_brand: 'VISA',
      last4: '1111',
      expiration: { month: '08', year: futureYear() },
      test_mode: true,
    });
    expect(JSON.stringify(res.body)).not.toContain('4111111111111111');
  });

  it.each([
    ['VISA', '4242424242424242', '123'],
    ['MASTERCARD', '5555555555554444', '123'],
    ['MASTERCARD', '2223003122003222', '123'],
    ['AMEX', '378282246310005', '1234'],
    ['DISCOVER', '6011111111111117', '123'],
    ['DINERS', '30569309025904', '123'],
    ['JCB', '3530111333300000', '123'],
    ['UNIONPAY', '6200000000000005', '123'],
  ])('detects %s from the number (%s)', async (brand, number, cvv) => {
    const res = await tokenize(cardBody({ card_number: number, cvv }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.card_brand).toBe(brand);
    expect(res.body.last4).toBe(number.slice(-4));
  });

  it('detects MAESTRO from the number', async () => {
    const res = await tokenize(cardBody({ card_number: generatedPan('6759', 16) }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.card_brand).toBe('MAESTRO');
  });

  it('accepts a card_brand that matches the number', async () => {
    const res = await tokenize(cardBody({ card_brand: 'VISA' }));
    expect(res.status).toBe(200);
  });

  it.each(['Zoë Łukasiewicz', '王小明', 'محمد بن سلمان', 'Ωμέγα Αλφα', 'Ñandú O’Brien-Smith', 'मोहनदास गांधी'])(
    'accepts the cardholder name %s',
    async (name) => {
      const res = await tokenize(cardBody({ cardholder_name: `  ${name} ` }));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
  );

  it('accepts full billing details', async () => {
    const res = await tokenize(
      cardBody({
        billing_details: {
          address1: '3033 5th Ave.',
          address2: 'Ste 100',
          city: 'San Diego',
          country: 'US',
          document_number: '142-test',
          name: 'Denise Foreman',
          postal_code: '92103',
          phone: '+1 (619) 555-0100',
          state: 'CA',
        },
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('accepts a card that expires at the end of this month', async () => {
    const now = new Date();
    const res = await tokenize(
      cardBody({ expiration: { month: String(now.getUTCMonth() + 1).padStart(2, '0'), year: String(now.getUTCFullYear()) } }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('tokenizes a non-test card in live mode (no mode header)', async () => {
    const res = await request(world.url)
      .post('/vault/v1/tokens/card')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Property-Id', '1')
      .send(cardBody({ card_number: generatedPan('4', 16) }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.test_mode).toBe(false);
  });
});

describe('POST /vault/v1/tokens/card — concurrent tokenizations', () => {
  it('each gets its own token', async () => {
    const pans = Array.from({ length: 12 }, () => generatedPan('4', 16));
    const answers = await Promise.all(pans.map((pan) => tokenize(cardBody({ card_number: pan, card_brand: undefined }))));

    expect(answers.map((res) => res.status)).toEqual(pans.map(() => 200));
    expect(answers.map((res) => res.body.last4)).toEqual(pans.map((pan) => pan.slice(-4)));
    expect(new Set(answers.map((res) => res.body.id)).size).toBe(12);
  });
});

describe('POST /vault/v1/tokens/card — every body rule answers 400 with its field path', () => {
  const thisYear = new Date().getUTCFullYear();
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['card_number missing', { card_number: undefined }, 'card_number'],
    ['card_number not a string', { card_number: 4111111111111111 }, 'card_number'],
    ['card_number with letters', { card_number: '4111abcd11111111' }, 'card_number'],
    ['card_number of 11 digits', { card_number: '41111111111' }, 'card_number'],
    ['card_number of 20 digits', { card_number: '41111111111111111111' }, 'card_number'],
    ['card_number failing Luhn', { card_number: '4111111111111112' }, 'card_number'],
    ['card_number of no supported brand', { card_number: generatedPan('9', 16) }, 'card_number'],
    ['card_number of a length its brand does not have', { card_number: generatedPan('4', 17) }, 'card_number'],
    ['card_brand not in the list', { card_brand: 'VISA_ELECTRON' }, 'card_brand'],
    ['card_brand that does not match the number', { card_brand: 'MASTERCARD' }, 'card_brand'],
    ['cvv missing', { cvv: undefined }, 'cvv'],
    ['cvv of 2 digits', { cvv: '12' }, 'cvv'],
    ['cvv of 5 digits', { cvv: '12345' }, 'cvv'],
    ['cvv with letters', { cvv: '12a' }, 'cvv'],
    ['cvv as a number', { cvv: 123 }, 'cvv'],
    ['cvv of 4 digits on a VISA', { cvv: '1234' }, 'cvv'],
    ['cvv of 3 digits on an AMEX', { card_number: '378282246310005', cvv: '123' }, 'cvv'],
    ['cardholder_name missing', { cardholder_name: undefined }, 'cardholder_name'],
    ['cardholder_name empty', { cardholder_name: '' }, 'cardholder_name'],
    ['cardholder_name only spaces', { cardholder_name: '   ' }, 'cardholder_name'],
    ['cardholder_name of 101 characters', { cardholder_name: 'é'.repeat(101) }, 'cardholder_name'],
    ['cardholder_name with a control character', { cardholder_name: 'Sara\u0007Ryder' }, 'cardholder_name'],
    ['expiration missing', { expiration: undefined }, 'expiration'],
    ['expiration.month 13', { expiration: { month: '13', year: futureYear() } }, 'expiration.month'],
    ['expiration.month 00', { expiration: { month: '00', year: futureYear() } }, 'expiration.month'],
    ['expiration.month of one digit', { expiration: { month: '8', year: futureYear() } }, 'expiration.month'],
    ['expiration.month missing', { expiration: { year: futureYear() } }, 'expiration.month'],
    ['expiration.year of two digits', { expiration: { month: '08', year: '28' } }, 'expiration.year'],
    ['expiration.year last year (expired)', { expiration: { month: '12', year: String(thisYear - 1) } }, 'expiration.year'],
    ['expiration.year more than 20 years ahead', { expiration: { month: '01', year: String(thisYear + 21) } }, 'expiration.year'],
    ['expiration with an unknown field', { expiration: { month: '08', year: futureYear(), day: '01' } }, 'expiration.day'],
    ['billing_details.country not ISO 3166-1', { billing_details: { country: 'XX' } }, 'billing_details.country'],
    ['billing_details.country in lower case', { billing_details: { country: 'us' } }, 'billing_details.country'],
    ['billing_details.address1 too long', { billing_details: { address1: 'a'.repeat(201) } }, 'billing_details.address1'],
    ['billing_details.phone with letters', { billing_details: { phone: 'call me' } }, 'billing_details.phone'],
    ['billing_details.postal_code empty', { billing_details: { postal_code: '' } }, 'billing_details.postal_code'],
    ['billing_details with an unknown field', { billing_details: { zip: '92103' } }, 'billing_details.zip'],
    ['billing_details not an object', { billing_details: 'San Diego' }, 'billing_details'],
    ['an unknown top-level field', { track_data: 'x' }, 'track_data'],
  ];

  it.each(cases)('%s', async (_name, overrides, path) => {
    const res = await tokenize(cardBody(overrides));
    expectFieldError(res, path);
  });

  it('reports an expired month of this year', async () => {
    const now = new Date();
    if (now.getUTCMonth() === 0) return; // January has no earlier month this year; the year case covers it
    const res = await tokenize(cardBody({ expiration: { month: String(now.getUTCMonth()).padStart(2, '0'), year: String(now.getUTCFullYear()) } }));
    expectFieldError(res, 'expiration.year');
  });

  it('reports every problem at once', async () => {
    const res = await tokenize({ card_number: '1', cvv: 'x', cardholder_name: '', expiration: { month: '13', year: '1' } });
    expect(res.status).toBe(400);
    const paths = res.body.fieldErrors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['card_number', 'cvv', 'cardholder_name', 'expiration.month', 'expiration.year']));
  });

  it('never echoes the card number or CVV in an error', async () => {
    const res = await tokenize(cardBody({ card_number: '4111111111111112', cvv: '98765' }));
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('4111111111111112');
    expect(res.text).not.toContain('98765');
  });

  it('refuses a JSON array body', async () => {
    const res = await tokenize([cardBody()]);
    expectFieldError(res, 'body');
  });
});

describe('POST /vault/v1/tokens/card — headers and transport', () => {
  it.each([
    ['X-Property-Id missing', { 'X-Property-Id': '' }, 'X-Property-Id'],
    ['X-Property-Id not a number', { 'X-Property-Id': 'abc' }, 'X-Property-Id'],
    ['X-Property-Id zero', { 'X-Property-Id': '0' }, 'X-Property-Id'],
    ['X-Property-Id above int64', { 'X-Property-Id': '9223372036854775808' }, 'X-Property-Id'],
    ['SVC-Tokenization-Mode other than test', { 'SVC-Tokenization-Mode': 'live' }, 'SVC-Tokenization-Mode'],
    ['Idempotency-Key of 256 characters', { 'Idempotency-Key': 'k'.repeat(256) }, 'Idempotency-Key'],
  ])('%s → 400', async (_name, headers, path) => {
    const req = request(world.url).post('/vault/v1/tokens/card').set('Authorization', `Bearer ${token}`).set('SVC-Tokenization-Mode', 'test').set('X-Property-Id', '1');
    for (const [name, value] of Object.entries(headers)) {
      if (value === '') req.unset(name);
      else req.set(name, value);
    }
    expectFieldError(await req.send(cardBody()), path);
  });

  it('answers 403 for a property outside the token before looking at the body', async () => {
    const invalidBody = await tokenize({ card_number: 'x' }, { 'X-Property-Id': '99' });
    expect(invalidBody.status).toBe(403);
    expect(invalidBody.body.errorCode).toBe('ACCESS_DENIED');
    const malformed = await tokenize(undefined, { 'X-Property-Id': '99', 'Content-Type': 'application/json' }).send('{not json');
    expect(malformed.status).toBe(403);
  });

  it('answers 415 without a JSON content type', async () => {
    const res = await tokenize(undefined, { 'Content-Type': 'text/plain' }).send('card_number=4111111111111111');
    expect(res.status).toBe(415);
    expect(res.body.errorCode).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 400 on malformed JSON, at path body', async () => {
    const res = await tokenize(undefined, { 'Content-Type': 'application/json' }).send('{"card_number": "4111111111111111",');
    expectFieldError(res, 'body');
    expect(res.text).not.toContain('4111111111111111');
  });

  it('answers 413 above the 16 kB body limit', async () => {
    const res = await tokenize(cardBody({ cardholder_name: 'x'.repeat(17 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body.errorCode).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('POST /vault/v1/tokens/card — modes', () => {
  it.each(['4111111111111111', '4242424242424242', '5555555555554444', '378282246310005'])(
    'refuses the public test number %s in live mode',
    async (number) => {
      const res = await tokenize(cardBody({ card_number: number, cvv: number.startsWith('37') ? '1234' : '123' }), {}).unset('SVC-Tokenization-Mode');
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('TEST_CARD_IN_LIVE_MODE');
      expect(res.text).not.toContain(number);
    },
  );

  it('answers TOKENIZATION_MODE_MISMATCH when the header disagrees with the known gateway mode', async () => {
    await world.pool.query(
      `INSERT INTO properties (id, name, currency, timezone, gateway_mode) VALUES (2, 'Test Hotel', 'EUR', 'Europe/Madrid', 'test'), (3, 'Live Hotel', 'EUR', 'Europe/Madrid', 'live')`,
    );
    const liveOnTestProperty = await tokenize(cardBody({ card_number: generatedPan('4', 16) }), { 'X-Property-Id': '2' }).unset('SVC-Tokenization-Mode');
    expect(liveOnTestProperty.status).toBe(400);
    expect(liveOnTestProperty.body.errorCode).toBe('TOKENIZATION_MODE_MISMATCH');

    const testOnLiveProperty = await tokenize(cardBody(), { 'X-Property-Id': '3' });
    expect(testOnLiveProperty.status).toBe(400);
    expect(testOnLiveProperty.body.errorCode).toBe('TOKENIZATION_MODE_MISMATCH');

    const matching = await tokenize(cardBody(), { 'X-Property-Id': '2' });
    expect(matching.status).toBe(200);
    expect(matching.body.test_mode).toBe(true);
  });

  it('follows the header for a property whose mode is unknown', async () => {
    const test = await tokenize(cardBody(), { 'X-Property-Id': '4' });
    expect(test.status).toBe(200);
    expect(test.body.test_mode).toBe(true);
  });
});

describe('POST /vault/v1/tokens/card — Idempotency-Key', () => {
  it('answers the same token for the same key and body', async () => {
    const key = `idem-${Date.now()}`;
    const first = await tokenize(cardBody(), { 'Idempotency-Key': key });
    const second = await tokenize(cardBody(), { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED for the same key with another body', async () => {
    const key = `idem-other-${Date.now()}`;
    expect((await tokenize(cardBody(), { 'Idempotency-Key': key })).status).toBe(200);
    const reused = await tokenize(cardBody({ cardholder_name: 'Someone Else' }), { 'Idempotency-Key': key });
    expect(reused.status).toBe(409);
    expect(reused.body.errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it("answers 409 for the same key and card with another expires_at (the token's end is part of the request)", async () => {
    const key = `idem-expiry-${Date.now()}`;
    const inAMonth = new Date(Date.now() + 30 * 86_400_000).toISOString();
    expect((await tokenize(cardBody(), { 'Idempotency-Key': key })).status).toBe(200);
    const reused = await tokenize({ ...cardBody(), expires_at: inAMonth }, { 'Idempotency-Key': key });
    expect(reused.status).toBe(409);
    expect(reused.body.errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('gives concurrent requests with one key one token', async () => {
    const key = `idem-race-${Date.now()}`;
    const answers = await Promise.all(Array.from({ length: 8 }, () => tokenize(cardBody(), { 'Idempotency-Key': key })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const rows = await world.pool.query('SELECT count(*)::int AS n FROM vault_test.cards WHERE id = $1', [answers[0]!.body.id]);
    expect(rows.rows[0].n).toBe(1);
  });

  it('keeps keys of different properties apart', async () => {
    const key = `idem-prop-${Date.now()}`;
    const one = await tokenize(cardBody(), { 'Idempotency-Key': key, 'X-Property-Id': '1' });
    const five = await tokenize(cardBody(), { 'Idempotency-Key': key, 'X-Property-Id': '5' });
    expect(one.status).toBe(200);
    expect(five.status).toBe(200);
    expect(five.body.id).not.toBe(one.body.id);
  });

  it('forgets a key after 24 hours', async () => {
    const key = `idem-old-${Date.now()}`;
    const first = await tokenize(cardBody(), { 'Idempotency-Key': key });
    await world.pool.query(`UPDATE vault_test.idempotency_keys SET created_at = now() - interval '25 hours' WHERE idempotency_key = $1`, [key]);
    const later = await tokenize(cardBody({ cardholder_name: 'A New Body' }), { 'Idempotency-Key': key });
    expect(later.status).toBe(200);
    expect(later.body.id).not.toBe(first.body.id);
  });

  it.each([
    ['deleted', async (id: string) => {
      const res = await request(world.url).delete(`/vault/v1/tokens/${id}`).set('Authorization', `Bearer ${token}`)
        .set('X-Property-Id', '1').set('SVC-Tokenization-Mode', 'test');
      expect(res.status).toBe(204);
    }],
    ['expired', async (id: string) => {
      await world.pool.query(`UPDATE vault_test.cards SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    }],
  ])('answers 409 IDEMPOTENCY_KEY_REUSED to a replay whose token was %s since, never the shredded id', async (_what, end) => {
    const key = `idem-gone-${_what}-${Date.now()}`;
    const first = await tokenize(cardBody(), { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    await end(first.body.id as string);
    const replay = await tokenize(cardBody(), { 'Idempotency-Key': key });
    expect(replay.status, JSON.stringify(replay.body)).toBe(409);
    expect(replay.body.errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(JSON.stringify(replay.body)).not.toContain(first.body.id);
  });

  it('tokenizes twice without a key', async () => {
    const a = await tokenize(cardBody());
    const b = await tokenize(cardBody());
    expect(a.body.id).not.toBe(b.body.id);
  });
});
