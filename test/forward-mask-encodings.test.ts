import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { cardBody } from '@folio-vault/test-kit/cards';
import { createTestPki, startGateway, type TGatewayHandler, type TTestGateway } from '@folio-vault/test-kit/gateway';
import { maskName } from '@folio-vault/shared/vault/card/mask';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { destinationsSetting, forward, tokenize } from './support/forward.js';
import { findPans } from './support/secret-scan.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * A gateway that echoes the card it received in every encoding an answer can carry — JSON \u
 * escapes, base64 (standard and URL-safe), other separators, HTML/XML character references,
 * percent-encoding, fullwidth digits — and the holder's name alike, through the real API, queue,
 * worker and PostgreSQL: the caller's answer, the recorded answer and the job's result hold none
 * of them, and the answer stays a JSON document whose base64 fields still decode.
 */
const PAN = '4242424242424242';
const HOLDER = 'Zoë Ryder';

const digits = (pan: string) => pan.split('');
const groups = (pan: string) => pan.match(/.{1,4}/g)!;
const jsonEscapedAll = (text: string) => Array.from(text, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const htmlDecimal = (text: string) => Array.from(text, (c) => `&#${c.codePointAt(0)};`).join('');
const htmlHex = (text: string) => Array.from(text, (c) => `&#x${c.codePointAt(0)!.toString(16)};`).join('');
const percentAll = (text: string) => Array.from(Buffer.from(text, 'utf8'), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const fullwidth = (text: string) => text.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));

/** Every form of the card number and the name the gateway below writes, as raw text of a JSON string. */
function encodedForms(pan: string, name: string): Record<string, string> {
  const inner = JSON.stringify({ card: pan, name });
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
    base64: Buffer.from(inner).toString('base64'),
    base64url: Buffer.from(inner).toString('base64url'),
    name_upper: name.toUpperCase(),
    name_json_u: jsonEscapedAll(name),
    name_html: htmlDecimal(name),
    name_percent: percentAll(name),
  };
}

/** 200 JSON whose fields hold the received card number and name in every form of encodedForms(). */
const echoEncoded: TGatewayHandler = ({ res, body, n }) => {
  const { number, name } = JSON.parse(body) as { number: string; name: string };
  const fields = Object.entries(encodedForms(number, name)).map(([field, text]) => `"${field}":"${text}"`);
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `gw-${n}` });
  res.end(`{"id":"ch_${n}",${fields.join(',')}}`);
};

let world: TWorld;
let gateway: TTestGateway;

beforeAll(async () => {
  const pki = await createTestPki();
  gateway = await startGateway({ pki, handler: echoEncoded });
  const setting = destinationsSetting([{ name: 'echo', url: gateway.origin, ca: pki.ca }]);
  world = await createWorld({ env: { VAULT_FORWARD_DESTINATIONS: setting } });
});

afterAll(async () => {
  await world?.close();
  await gateway?.close();
});

describe('an answer that carries the card in other encodings', () => {
  it('is masked in the answer, the recorded answer and the job result alike, and stays usable', async () => {
    const id = await tokenize(world, cardBody({ card_number: PAN, cvv: '123', cardholder_name: HOLDER }));
    const key = randomUUID();
    const template = { destination: 'echo', path: '/v1/charges', headers: { 'Content-Type': 'application/json' }, body: '{"number":"{{card.number}}","name":"{{card.holder_name}}"}' };
    const res = await forward(world, id, template, { key });
    expect(res.status, res.text).toBe(200);
    expect(gateway.requests.at(-1)!.body).toBe(JSON.stringify({ number: PAN, name: HOLDER }));

    const recorded = await world.pool.query<{ answer: unknown }>('SELECT answer FROM vault_test.forward_attempts WHERE idempotency_key = $1', [key]);
    const queue = new Queue(QUEUE_NAMES.forward, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    const job = await queue.getJob(res.body.forward_id as string);
    await queue.close();
    const stores = { answer: res.text, recorded: JSON.stringify(recorded.rows[0]!.answer), job: JSON.stringify(job!.returnvalue) };

    const forms = encodedForms(PAN, HOLDER);
    for (const [store, text] of Object.entries(stores)) {
      for (const [form, written] of Object.entries(forms)) expect(text.includes(written), `${store} holds the ${form} form`).toBe(false);
      expect(findPans(text, [PAN]), store).toEqual([]);
      expect(text.toLowerCase().includes(HOLDER.toLowerCase()), store).toBe(false);
    }

    // The same masked answer everywhere, and a JSON document still.
    expect((job!.returnvalue as { answer: unknown }).answer).toEqual(res.body);
    expect(recorded.rows[0]!.answer).toEqual({ outcome: 'forwarded', answer: res.body });
    const answer = JSON.parse(res.body.body as string) as Record<string, string>;
    const masked = '424242******4242';
    expect(answer).toMatchObject({
      dots: '4242.42**.****.4242',
      slashes: '4242/42**/****/4242',
      nbsp: '4242\u00a042**\u00a0****\u00a04242',
      spaced: '4 2 4 2 4 2 * * * * * * 4 2 4 2',
      underscores: '4242_42**_****_4242',
      fullwidth: `${fullwidth('424242')}******${fullwidth('4242')}`,
      fullwidth_grouped: `${fullwidth('4242')}\u3000${fullwidth('42')}**\u3000****\u3000${fullwidth('4242')}`,
      name_upper: maskName(HOLDER),
      name_json_u: maskName(HOLDER),
      name_html: maskName(HOLDER),
      name_percent: maskName(HOLDER),
    });
    // Decoded as the client's JSON parser decodes it, the \u form is the masked number.
    expect(answer.json_u).toBe(masked);
    for (const field of ['html_decimal', 'html_hex', 'xml_mixed', 'percent', 'percent_lower']) {
      expect(answer[field]!.split('*').length - 1, field).toBe(6);
    }
    for (const [field, encoding] of [['base64', 'base64'], ['base64url', 'base64url']] as const) {
      expect(JSON.parse(Buffer.from(answer[field]!, encoding).toString('utf8')), field).toEqual({ card: masked, name: maskName(HOLDER) });
    }
  });
});
