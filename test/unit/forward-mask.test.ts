import { describe, expect, it } from 'vitest';
import { maskHeaders, maskSecrets } from '@folio-vault/shared/vault/forward/mask';
import { luhnCheckDigit as checkDigit } from '@folio-vault/test-kit/cards';

const secrets = { pan: '4111111111111111', cvv: '737' };


describe('maskSecrets', () => {
  it("masks this card's number to first six and last four", () => {
    expect(maskSecrets('{"card":{"number":"4111111111111111"}}', secrets)).toBe('{"card":{"number":"411111******1111"}}');
  });

  it("masks this card's number written in groups, keeping the separators", () => {
    expect(maskSecrets('card 4111 1111 1111 1111 ok', secrets)).toBe('card 4111 11** **** 1111 ok');
    expect(maskSecrets('card 4111-1111-1111-1111.', secrets)).toBe('card 4111-11**-****-1111.');
    expect(maskSecrets('3782 822463 10005', { pan: '378282246310005' })).toBe('3782 82**** *0005');
  });

  it('masks another Luhn-valid run of 13 to 19 digits', () => {
    expect(maskSecrets('other=5555555555554444;', secrets)).toBe('other=555555******4444;');
    const thirteen = `900000000000${checkDigit('900000000000')}`;
    expect(maskSecrets(`id ${thirteen}`, secrets)).toBe(`id 900000***${thirteen.slice(-4)}`);
    const twenty = `9000000000000000000${checkDigit('9000000000000000000')}`;
    expect(maskSecrets(twenty, secrets)).toBe(twenty);
  });

  it('leaves a 16-digit run that fails the Luhn check alone', () => {
    expect(maskSecrets('ref 4111111111111112', secrets)).toBe('ref 4111111111111112');
    expect(maskSecrets('order 1234567812345678', secrets)).toBe('order 1234567812345678');
  });

  it('masks the CVV only as a digit run of its own', () => {
    expect(maskSecrets('{"cvc":"737","amount":17370,"ref":"A737B"}', secrets)).toBe('{"cvc":"***","amount":17370,"ref":"A***B"}');
    expect(maskSecrets('cvc=737&x=7373', secrets)).toBe('cvc=***&x=7373');
  });

  it('is a no-op without secrets on text with no card number', () => {
    expect(maskSecrets('{"status":"approved","amount":1000}', {})).toBe('{"status":"approved","amount":1000}');
  });

  it('masks other card numbers written in groups in place, keeping the separators', () => {
    expect(maskSecrets('seen 5555 5555 5555 4444', secrets)).toBe('seen 5555 55** **** 4444');
    expect(maskSecrets('seen 5555.5555.5555.4444 and 3782/822463/10005', secrets)).toBe('seen 5555.55**.****.4444 and 3782/82****/*0005');
  });
});

describe('maskHeaders', () => {
  it('masks every value and keeps the names', () => {
    expect(maskHeaders({ 'X-Card': '4111111111111111', 'X-Cvc': '737', 'Content-Type': 'application/json' }, secrets)).toEqual({
      'X-Card': '411111******1111',
      'X-Cvc': '***',
      'Content-Type': 'application/json',
    });
  });
});

describe('maskSecrets: what a template or a gateway can put next to the number', () => {
  const secrets = { pan: '4111111111111111', cvv: '123', holderName: 'Zoë Ryder' };

  it('masks this card inside a longer digit run, twice in a row, and against its CVV on either side', () => {
    expect(maskSecrets('"41111111111111115"', secrets)).toBe('"411111******11115"');
    expect(maskSecrets('54111111111111111', secrets)).toBe('5411111******1111');
    expect(maskSecrets('41111111111111114111111111111111', secrets)).toBe('411111******1111411111******1111');
    expect(maskSecrets('x4111111111111111123', secrets)).toBe('x411111******1111***');
    expect(maskSecrets('1234111111111111111', secrets)).toBe('***411111******1111');
  });

  it("masks the holder's name in upper case, percent-encoded (%20 or +) and XML-escaped", () => {
    const named = { ...secrets, holderName: "Zoë O'Neil" };
    expect(maskSecrets('NAME=ZOË O\'NEIL', named)).toBe('NAME=Z** O*****');
    expect(maskSecrets('name=Zo%C3%AB%20O\'Neil&x=1', named)).toBe('name=Z** O*****&x=1');
    expect(maskSecrets('name=Zo%C3%AB+O\'Neil', named)).toBe('name=Z** O*****');
    expect(maskSecrets('<n>Zoë O&apos;Neil</n>', named)).toBe('<n>Z** O*****</n>');
  });

  it("masks the holder's name as written and as a JSON string holds it", () => {
    expect(maskSecrets('{"name":"Zoë Ryder"}', secrets)).toBe('{"name":"Z** R****"}');
    expect(maskSecrets(JSON.stringify({ name: 'Zoë Ryder' }, null, 0).replace('ë', '\\u00eb'), secrets)).toBe('{"name":"Zoë Ryder"}'.replace('Zoë Ryder', 'Z** R****'));
  });
});


describe('maskSecrets: the encodings an answer can carry', () => {
  const secrets = { pan: '4242424242424242', cvv: '123', holderName: 'Zoë Ryder' };
  const masked = '424242******4242';
  const b64 = (text: string, encoding: 'base64' | 'base64url' = 'base64') => Buffer.from(text, 'utf8').toString(encoding);

  it.each([
    ['JSON \\u escapes', '"\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032"', '"\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032******\\u0034\\u0032\\u0034\\u0032"'],
    ['dots', '4242.4242.4242.4242', '4242.42**.****.4242'],
    ['slashes and a space-dash-space', '4242/4242 - 4242/4242', '4242/42** - ****/4242'],
    ['a no-break space', '4242\u00a04242\u00a04242\u00a04242', '4242\u00a042**\u00a0****\u00a04242'],
    ['HTML decimal references', '&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;', '&#52;&#50;&#52;&#50;&#52;&#50;******&#52;&#50;&#52;&#50;'],
    ['XML hex references among digits', '42424242&#x34;&#X32;424242', '424242******4242'],
    ['percent-encoding', '%34%32%34%32%34%32%34%32%34%32%34%32%34%32%34%32', '%34%32%34%32%34%32******%34%32%34%32'],
    ['fullwidth digits', '４２４２４２４２４２４２４２４２', '４２４２４２******４２４２'],
    ['Arabic-Indic digits', '٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢', '٤٢٤٢٤٢******٤٢٤٢'],
  ])("masks this card's number as %s, in place", (_what, text, expected) => {
    expect(maskSecrets(text, secrets)).toBe(expected);
  });

  it('masks the CVV and the name written with escapes or references', () => {
    expect(maskSecrets('<cvv>&#49;&#50;&#51;</cvv> cvc=%31%32%33 c=\\u0031\\u0032\\u0033 ＣＶＣ １２３', secrets)).toBe('<cvv>***</cvv> cvc=*** c=*** ＣＶＣ ***');
    expect(maskSecrets('a &#90;&#111;&#235; &#82;yder b ZOË\u00a0RYDER c Zo%c3%ab+Ryder d \\u005a\\u006f\\u00eb\\u0020Ryder e Ｚｏë Ｒｙｄｅｒ', secrets)).toBe(
      'a Z** R**** b Z** R**** c Z** R**** d Z** R**** e Z** R****',
    );
  });

  it('re-encodes a base64 block that decodes to the card, in its own alphabet and padding', () => {
    const inner = JSON.stringify({ card: '4242424242424242', name: 'Zoë Ryder' });
    const after = JSON.stringify({ card: masked, name: 'Z** R****' });
    expect(maskSecrets(`data:${b64(inner)}`, secrets)).toBe(`data:${b64(after)}`);
    expect(maskSecrets(`u=${b64(inner, 'base64url')}`, secrets)).toBe(`u=${b64(after, 'base64url')}`);
    // After a JSON \n escape, as a JSON string holds a PEM-like body.
    expect(maskSecrets(JSON.stringify({ pem: `-----BEGIN-----\n${b64(inner)}\n-----END-----` }), secrets)).toBe(
      JSON.stringify({ pem: `-----BEGIN-----\n${b64(after)}\n-----END-----` }),
    );
    // Inside a JSON string, a '/' of the block may be written \/.
    const slashed = Buffer.from([0xff, 0xff, ...Buffer.from(' 4242424242424242 ')]).toString('base64');
    expect(slashed).toContain('/');
    const out = maskSecrets(`"${slashed.replace(/\//g, '\\/')}"`, secrets);
    expect(Buffer.from(out.slice(1, -1).replace(/\\\//g, '/'), 'base64').subarray(2).toString('latin1')).toBe(` ${masked} `);
  });

  it('leaves unrelated digits, ids and base64 alone', () => {
    const text = [
      'date 2026-11-27 12:34:56', 'phone +1 555 012 4567', 'ts 1764288000 1764288001', 'amount 17370', '[4,1,5,5,0,3,2]',
      'id 01a21f3f-f70a-77f1-9103-8820e39f72c3', 'ch_3PqRsTuVwXyZ0123456789abcdef', b64('{"status":"approved","amount":1000}'),
      'order 1234567812345678', 'two groups 1234 5678 1234 5678',
    ].join('\n');
    expect(maskSecrets(text, secrets)).toBe(text);
  });

  it('masks two cards written in groups one after the other', () => {
    expect(maskSecrets('4242 4242 4242 4242 5555 5555 5555 4444', secrets)).toBe('4242 42** **** 4242 5555 55** **** 4444');
  });
});
