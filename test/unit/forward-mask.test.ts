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

  it('still masks other card numbers written in groups (the log redaction)', () => {
    expect(maskSecrets('seen 5555 5555 5555 4444', secrets)).toBe('seen 555555******4444');
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

