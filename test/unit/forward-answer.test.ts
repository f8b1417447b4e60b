import { describe, expect, it } from 'vitest';
import { clientAnswer, formMembers, jsonMembers } from '@folio-vault/shared/vault/forward/answer';

const secrets = { pan: '4242424242424242', cvv: '123', holderName: 'Zoë Ryder' };
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8', date: 'Tue, 01 Dec 2026 10:00:00 GMT' };
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };
const GATEWAY_JSON = JSON.stringify({
  id: 'ch_1',
  status: 'approved',
  outcome: { code: 'A01', reason: 'ok', card: '4242424242424242' },
  items: [{ id: 'i1', pan: '4242424242424242' }, { id: 'i2' }],
  card: { number: '4242424242424242', holder: 'Zoë Ryder' },
});

describe('jsonMembers', () => {
  it('rebuilds the listed members in the same nesting, leaving the others and the missing ones out', () => {
    expect(jsonMembers(JSON.parse(GATEWAY_JSON), [['id'], ['outcome', 'code'], ['items', '1', 'id'], ['nope'], ['outcome', 'nope', 'x']])).toEqual({
      id: 'ch_1',
      outcome: { code: 'A01' },
      items: [undefined, { id: 'i2' }],
    });
    expect(JSON.stringify(jsonMembers(JSON.parse(GATEWAY_JSON), [['items', '1', 'id']]))).toBe('{"items":[null,{"id":"i2"}]}');
    expect(jsonMembers([{ a: 1, b: 2 }], [['0', 'a']])).toEqual([{ a: 1 }]);
  });

  it('takes a whole subtree, and keeps a "__proto__" key as a member', () => {
    expect(jsonMembers({ outcome: { code: 'A', reason: 'r' } }, [['outcome']])).toEqual({ outcome: { code: 'A', reason: 'r' } });
    const rebuilt = jsonMembers(JSON.parse('{"__proto__":{"x":1}}'), [['__proto__', 'x']]);
    expect(JSON.stringify(rebuilt)).toBe('{"__proto__":{"x":1}}');
    expect(Object.getPrototypeOf(rebuilt)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('formMembers', () => {
  it('keeps the listed keys, as written and in their order', () => {
    expect(formMembers('result=approved&pan=4242424242424242&code=A%2001&result=again&x', ['result', 'code'])).toBe('result=approved&code=A%2001&result=again');
    expect(formMembers('a+b=1&a%20b=2&c=%E0', ['a b'])).toBe('a+b=1&a%20b=2');
  });
});

describe('clientAnswer', () => {
  const allowlist = { json: [['id'], ['outcome', 'code'], ['card', 'holder']], form: ['result'] };

  it('without an allowlist: the whole body and the headers, masked', async () => {
    const answer = await clientAnswer(undefined, { headers: { ...JSON_TYPE, 'x-request-id': 'Zoë Ryder' }, body: GATEWAY_JSON }, secrets);
    expect(answer.headers).toEqual({ ...JSON_TYPE, 'x-request-id': 'Z** R****' });
    expect(answer.dropped).toBeUndefined();
    expect(JSON.parse(answer.body!)).toMatchObject({ card: { number: '424242******4242', holder: 'Z** R****' } });
  });

  it('a JSON answer: exactly the listed members, masked', async () => {
    expect(await clientAnswer(allowlist, { headers: JSON_TYPE, body: GATEWAY_JSON }, secrets)).toEqual({
      headers: JSON_TYPE,
      body: '{"id":"ch_1","outcome":{"code":"A01"},"card":{"holder":"Z** R****"}}',
    });
    expect((await clientAnswer(allowlist, { headers: { 'content-type': 'application/vnd.acme+json' }, body: '{"id":"x","y":1}' }, secrets)).body).toBe('{"id":"x"}');
  });

  it('a form answer: the listed pairs, masked', async () => {
    expect(await clientAnswer(allowlist, { headers: FORM_TYPE, body: 'result=ok+Zo%C3%AB+Ryder&pan=4242424242424242' }, secrets)).toEqual({
      headers: FORM_TYPE,
      body: 'result=ok+Z** R****',
    });
  });

  it.each([
    ['another content type', { 'content-type': 'text/plain' }, 'id=ch_1'],
    ['no content type', {}, '{"id":"ch_1"}'],
    ['JSON that does not parse', JSON_TYPE, '{"id":"ch_1"'],
  ])('drops the body of %s', async (_what, headers, body) => {
    expect(await clientAnswer(allowlist, { headers, body }, secrets)).toEqual({ headers, body: null, dropped: true });
  });

  it('drops a form where only JSON is listed, and JSON where only form keys are', async () => {
    expect(await clientAnswer({ json: [['id']] }, { headers: FORM_TYPE, body: 'id=1' }, secrets)).toEqual({ headers: FORM_TYPE, body: null, dropped: true });
    expect(await clientAnswer({ form: ['id'] }, { headers: JSON_TYPE, body: '{"id":1}' }, secrets)).toEqual({ headers: JSON_TYPE, body: null, dropped: true });
    expect(await clientAnswer({ headers: ['x-id'] }, { headers: JSON_TYPE, body: '{"id":1}' }, secrets)).toEqual({ headers: JSON_TYPE, body: null, dropped: true });
  });

  it('drops an allowlisted JSON body that masking would no longer leave JSON (a card as a number member)', async () => {
    expect(await clientAnswer({ json: [['n']] }, { headers: JSON_TYPE, body: '{"n":4242424242424242}' }, secrets)).toEqual({ headers: JSON_TYPE, body: null, dropped: true });
  });

  it('keeps an empty body empty, and a U+0000 as U+FFFD', async () => {
    expect(await clientAnswer(allowlist, { headers: {}, body: '' }, secrets)).toEqual({ headers: {}, body: '' });
    expect(await clientAnswer(undefined, { headers: {}, body: 'a\0b' }, secrets)).toEqual({ headers: {}, body: 'a\uFFFDb' });
  });
});
