import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { cardBody } from '@folio-vault/test-kit/cards';
import { createTestPki, startGateway, type TGatewayHandler, type TTestGateway } from '@folio-vault/test-kit/gateway';
import { maskName } from '@folio-vault/shared/vault/card/mask';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { destinationsSetting, forward, tokenize } from './support/forward.js';
import { findCvvs, findPans, withoutJsonNumbers } from './support/secret-scan.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * A gateway that echoes the card it received in every encoding an answer can carry, and one that
 * answers what a destination's answer allowlist is judged on, through the real API, queue, worker
 * and PostgreSQL: the caller's answer, the recorded answer and the job's result hold none of the
 * card, and are the same answer. One world for all of it (each world costs seconds).
 *
 * The card is a public test number that does not overlap itself (4242… does: two of them side by
 * side hold it at every other digit, and every one of those is masked), so each field's mask is
 * exactly its own first six and last four. (Digits written as escapes are digits of the raw text
 * too, and "%34%30%30…" may hold another card's shape there, masked as well: this number's
 * escapes hold none.)
 */
const PAN = '4111111111111111';
const OTHER = '5555555555554444';
const CVV = '123';
const HOLDER = 'Zoë Ryder';
const MASKED = '411111******1111';

const digits = (pan: string) => pan.split('');
const groups = (pan: string) => pan.match(/.{1,4}/g)!;
const hex2 = (code: number) => code.toString(16).toUpperCase().padStart(2, '0');
const jsonEscapedAll = (text: string) => Array.from(text, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const htmlDecimal = (text: string) => Array.from(text, (c) => `&#${c.codePointAt(0)};`).join('');
const htmlHex = (text: string) => Array.from(text, (c) => `&#x${c.codePointAt(0)!.toString(16)};`).join('');
const percentAll = (text: string) => Array.from(Buffer.from(text, 'utf8'), (byte) => `%${hex2(byte)}`).join('');
const fullwidth = (text: string) => text.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';
const CIRCLED = '⓪①②③④⑤⑥⑦⑧⑨';
const ZERO_WIDTH = '\u200b\u200c\u200d\u2060\ufeff\u00ad';

/** Each digit of `pan` written by `write`, the middle six as '*' when `masked`: the masked form of a digit-by-digit encoding. */
const perDigit = (pan: string, write: (digit: string) => string, masked = false, join = '') =>
  digits(pan).map((digit, i) => (masked && i >= 6 && i < pan.length - 4 ? '*' : write(digit))).join(join);
/** The document a few of the forms below carry inside: long enough to wrap, the card on a later line. */
const innerOf = (pan: string, name: string) => JSON.stringify({ note: 'x'.repeat(70), number: pan, name });

/** Every form of the card, its CVV and the name the echo gateway writes, as the raw text of a JSON string. */
function encodedForms(pan: string, cvv: string, name: string): Record<string, string> {
  const inner = innerOf(pan, name);
  const qp = perDigit(pan, (d) => `=${hex2(d.charCodeAt(0))}`);
  return {
    json_u: jsonEscapedAll(pan),
    dots: groups(pan).join('.'),
    slashes: groups(pan).join('/'),
    nbsp: groups(pan).join('\u00a0'),
    spaced: digits(pan).join(' '),
    underscores: groups(pan).join('_'),
    html_decimal: htmlDecimal(pan),
    html_hex: htmlHex(pan),
    xml_mixed: `${pan.slice(0, 8)}&#x3${pan[8]};${pan.slice(9)}`,
    percent: percentAll(pan),
    percent_lower: percentAll(pan).toLowerCase(),
    fullwidth: fullwidth(pan),
    fullwidth_grouped: groups(fullwidth(pan)).join('\u3000'),
    base64: b64(inner),
    base64url: Buffer.from(inner).toString('base64url'),
    name_upper: name.toUpperCase(),
    name_json_u: jsonEscapedAll(name),
    name_html: htmlDecimal(name),
    name_percent: percentAll(name),
    // What a red-team pass found open.
    base64_wrapped_json: b64(inner).match(/.{1,76}/g)!.join('\\n'),
    base64_crlf: b64(inner).match(/.{1,64}/g)!.join('\\r\\n'),
    base64_three_deep: b64(b64(b64(inner))),
    percent_double: perDigit(pan, (d) => `%25${hex2(d.charCodeAt(0))}`),
    percent_invalid_end: `${percentAll(pan)}%FF`,
    hex: Buffer.from(inner).toString('hex'),
    quoted_printable: qp,
    quoted_printable_soft: `${qp.slice(0, 24)}=\\r\\n${qp.slice(24)}`,
    references_loose: perDigit(pan, (d) => `&#${d.charCodeAt(0)}`),
    references_zeros: perDigit(pan, (d) => `&#0000000${d.charCodeAt(0)};`),
    tags: groups(pan).map((group, i) => (i % 2 ? `<b>${group}</b>` : group)).join(''),
    comments: groups(pan).join('<!-- -->'),
    thin_spaces: groups(pan).join('&thinsp;'),
    four_separators: groups(pan).join(' - - '),
    zero_width: perDigit(pan, (d) => d, false, ZERO_WIDTH),
    superscript: perDigit(pan, (d) => SUPERSCRIPT[Number(d)]!),
    circled: perDigit(pan, (d) => CIRCLED[Number(d)]!),
    math_bold: perDigit(pan, (d) => String.fromCodePoint(0x1d7ce + Number(d))),
    other_card_zero_width: groups(OTHER).join('\u200b\u200b\u200b\u200b'),
    cvv_spaced: digits(cvv).join(' '),
    cvv_dashed: digits(cvv).join('-'),
    name_decomposed: name.normalize('NFD'),
    name_ascii: name.normalize('NFD').replace(/\p{M}/gu, ''),
    name_surname_first: `${name.split(' ')[1]!.toUpperCase()}/${name.split(' ')[0]!.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase()}`,
    name_comma: `${name.split(' ')[1]}, ${name.split(' ')[0]}`,
  };
}

/** The forms masked, where the masked text is known exactly (the others are decoded and checked below). */
function maskedForms(name: string): Record<string, string> {
  const grouped = (join: string) => groups(MASKED).join(join);
  return {
    json_u: MASKED,
    dots: grouped('.'),
    slashes: grouped('/'),
    nbsp: grouped('\u00a0'),
    spaced: digits(MASKED).join(' '),
    underscores: grouped('_'),
    html_decimal: perDigit(PAN, (d) => htmlDecimal(d), true),
    html_hex: perDigit(PAN, (d) => htmlHex(d), true),
    percent: perDigit(PAN, (d) => percentAll(d), true),
    fullwidth: fullwidth(MASKED),
    fullwidth_grouped: groups(fullwidth(MASKED)).join('\u3000'),
    name_upper: maskName(name),
    name_json_u: maskName(name),
    name_html: maskName(name),
    name_percent: maskName(name),
    percent_double: perDigit(PAN, (d) => `%25${hex2(d.charCodeAt(0))}`, true),
    percent_invalid_end: `${perDigit(PAN, (d) => percentAll(d), true)}%FF`,
    quoted_printable: perDigit(PAN, (d) => `=${hex2(d.charCodeAt(0))}`, true),
    references_loose: perDigit(PAN, (d) => `&#${d.charCodeAt(0)}`, true),
    references_zeros: perDigit(PAN, (d) => `&#0000000${d.charCodeAt(0)};`, true),
    tags: groups(MASKED).map((group, i) => (i % 2 ? `<b>${group}</b>` : group)).join(''),
    comments: grouped('<!-- -->'),
    thin_spaces: grouped('&thinsp;'),
    four_separators: grouped(' - - '),
    zero_width: digits(MASKED).join(ZERO_WIDTH),
    superscript: perDigit(PAN, (d) => SUPERSCRIPT[Number(d)]!, true),
    circled: perDigit(PAN, (d) => CIRCLED[Number(d)]!, true),
    math_bold: perDigit(PAN, (d) => String.fromCodePoint(0x1d7ce + Number(d)), true),
    other_card_zero_width: groups('555555******4444').join('\u200b\u200b\u200b\u200b'),
    cvv_spaced: '***',
    cvv_dashed: '***',
    name_decomposed: maskName(name),
    name_ascii: maskName(name),
    name_surname_first: maskName(name),
    name_comma: maskName(name),
  };
}

/** 200 JSON whose fields hold the received card, CVV and name in every form of encodedForms(). */
const echoEncoded = ({ res, body, n }: Parameters<TGatewayHandler>[0]) => {
  const { number, cvv, name } = JSON.parse(body) as { number: string; cvv: string; name: string };
  const fields = Object.entries(encodedForms(number, cvv, name)).map(([field, text]) => `"${field}":"${text}"`);
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `gw-${n}` });
  res.end(`{"id":"ch_${n}",${fields.join(',')}}`);
};

/** Answers of each shape an allowlist judges, each holding members and headers no allowlist names. */
const answerShapes = ({ req, res, body }: Parameters<TGatewayHandler>[0]) => {
  const { number, name } = JSON.parse(body) as { number: string; name: string };
  const headers = { 'x-outcome': 'approved', 'x-request-id': 'gw-unlisted', 'set-cookie': 'sid=unlisted' };
  if (req.url === '/v1/answer/json') {
    res.writeHead(200, { ...headers, 'content-type': 'application/json' });
    res.end(JSON.stringify({
      id: 'ch_7', status: 'approved', outcome: { code: 'A01', reason: `matched ${number}` },
      card: { number, holder: name }, unlisted: 'do-not-return',
    }));
  } else if (req.url === '/v1/answer/form') {
    res.writeHead(200, { ...headers, 'content-type': 'application/x-www-form-urlencoded' });
    res.end(`result=approved&pan=${number}&unlisted=do-not-return`);
  } else {
    res.writeHead(200, { ...headers, 'content-type': 'text/plain' });
    res.end(`approved ${number} do-not-return`);
  }
};

let world: TWorld;
let gateway: TTestGateway;

beforeAll(async () => {
  const pki = await createTestPki();
  gateway = await startGateway({ pki, handler: (exchange) => (exchange.req.url === '/v1/charges' ? echoEncoded(exchange) : answerShapes(exchange)) });
  const setting = destinationsSetting([
    { name: 'echo', url: gateway.origin, ca: pki.ca },
    {
      name: 'listed', url: gateway.origin, paths: ['/v1/answer/*'], ca: pki.ca,
      answer: { headers: ['X-Outcome'], json: ['/id', 'outcome.code', '/card/holder'], form: ['result'] },
    },
  ]);
  world = await createWorld({ env: { VAULT_FORWARD_DESTINATIONS: setting } });
});

afterAll(async () => {
  await world?.close();
  await gateway?.close();
});

const TEMPLATE = '{"number":"{{card.number}}","cvv":"{{card.cvv}}","name":"{{card.holder_name}}"}';

/** Forwards a fresh token of the card and answers the three places the answer is kept, as the caller, the record and Redis hold them. */
async function forwardAndStores(destination: string, path: string) {
  const id = await tokenize(world, cardBody({ card_number: PAN, cvv: CVV, cardholder_name: HOLDER }));
  const key = randomUUID();
  const res = await forward(world, id, { destination, path, headers: { 'Content-Type': 'application/json' }, body: TEMPLATE }, { key });
  expect(res.status, res.text).toBe(200);
  const recorded = await world.pool.query<{ answer: unknown }>('SELECT answer FROM vault_test.forward_attempts WHERE idempotency_key = $1', [key]);
  const queue = new Queue(QUEUE_NAMES.forward, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
  const job = await queue.getJob(res.body.forward_id as string);
  await queue.close();
  // The same answer in all three.
  expect(recorded.rows[0]!.answer).toEqual({ outcome: 'forwarded', answer: res.body });
  expect((job!.returnvalue as { answer: unknown }).answer).toEqual(res.body);
  return { res, stores: { answer: res.text, recorded: JSON.stringify(recorded.rows[0]!.answer), job: JSON.stringify(job!.returnvalue) } };
}

describe('an answer that carries the card in other encodings', () => {
  it('is masked in the answer, the recorded answer and the job result alike, and stays usable', async () => {
    const { res, stores } = await forwardAndStores('echo', '/v1/charges');
    expect(gateway.requests.at(-1)!.body).toBe(JSON.stringify({ number: PAN, cvv: CVV, name: HOLDER }));

    const forms = encodedForms(PAN, CVV, HOLDER);
    for (const [store, text] of Object.entries(stores)) {
      for (const [form, written] of Object.entries(forms)) expect(text.includes(written), `${store} holds the ${form} form`).toBe(false);
      expect(findPans(text, [PAN, OTHER]), store).toEqual([]);
      expect(findCvvs(withoutJsonNumbers(text), [CVV]), store).toEqual([]);
      expect(text.toLowerCase().includes(HOLDER.toLowerCase()), store).toBe(false);
    }

    const answer = JSON.parse(res.body.body as string) as Record<string, string>;
    const { json_u: _decodedByTheParser, ...exact } = maskedForms(HOLDER);
    // Decoded as the client's JSON parser decodes them, the \u form is the masked number.
    expect(answer.json_u).toBe(MASKED);
    expect(answer).toMatchObject(exact);
    expect(answer.xml_mixed!.split('*').length - 1).toBe(6);
    // The soft line break stands between the 8th and 9th digits: two stars before it, four after.
    const qpMasked = perDigit(PAN, (d) => `=${hex2(d.charCodeAt(0))}`, true);
    expect(answer.quoted_printable_soft).toBe(`${qpMasked.slice(0, 20)}=\r\n${qpMasked.slice(20)}`);
    const innerMasked = { note: 'x'.repeat(70), number: MASKED, name: maskName(HOLDER) };
    const fromBase64 = (text: string, encoding: BufferEncoding = 'base64') => Buffer.from(text.replace(/\s+/g, ''), encoding).toString('utf8');
    for (const [field, encoding] of [['base64', 'base64'], ['base64url', 'base64url'], ['base64_wrapped_json', 'base64'], ['base64_crlf', 'base64']] as const) {
      expect(JSON.parse(fromBase64(answer[field]!, encoding)), field).toEqual(innerMasked);
    }
    expect(JSON.parse(fromBase64(fromBase64(fromBase64(answer.base64_three_deep!))))).toEqual(innerMasked);
    expect(JSON.parse(Buffer.from(answer.hex!, 'hex').toString('utf8'))).toEqual(innerMasked);
  });
});

describe("a destination's answer allowlist", () => {
  it('a JSON answer: exactly the members listed, masked; content-type, date and the headers listed', async () => {
    const { res, stores } = await forwardAndStores('listed', '/v1/answer/json');
    expect(res.body).toMatchObject({
      status: 200,
      headers: { 'content-type': 'application/json', date: expect.any(String), 'x-outcome': 'approved' },
      body: `{"id":"ch_7","outcome":{"code":"A01"},"card":{"holder":"${maskName(HOLDER)}"}}`,
    });
    expect(Object.keys(res.body.headers as object).sort()).toEqual(['content-type', 'date', 'x-outcome']);
    expect(res.body.dropped).toBeUndefined();
    for (const text of Object.values(stores)) {
      for (const unlisted of ['do-not-return', 'gw-unlisted', 'sid=unlisted', 'matched', PAN, MASKED]) expect(text).not.toContain(unlisted);
    }
  });

  it('a form answer: the keys listed', async () => {
    const { res, stores } = await forwardAndStores('listed', '/v1/answer/form');
    expect(res.body).toMatchObject({ headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-outcome': 'approved' }, body: 'result=approved' });
    for (const text of Object.values(stores)) for (const unlisted of ['do-not-return', 'gw-unlisted', MASKED]) expect(text).not.toContain(unlisted);
  });

  it('any other body is dropped: body null, dropped true, the status and listed headers kept', async () => {
    const { res, stores } = await forwardAndStores('listed', '/v1/answer/text');
    expect(res.body).toEqual({
      forward_id: expect.any(String),
      destination: 'listed',
      status: 200,
      headers: { 'content-type': 'text/plain', date: expect.any(String), 'x-outcome': 'approved' },
      body: null,
      dropped: true,
      duration_ms: expect.any(Number),
    });
    for (const text of Object.values(stores)) for (const unlisted of ['do-not-return', 'approved 4', MASKED]) expect(text).not.toContain(unlisted);
  });
});
