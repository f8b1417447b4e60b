import { describe, expect, it } from 'vitest';
import { maskAnswerBody, maskHeaders, maskSecrets } from '@folio-vault/shared/vault/forward/mask';
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
    const out = maskSecrets(`"${slashed.replace(/\//g, '\\/')}"`, secrets)!;
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

describe('maskSecrets: the echo forms a red-team pass found open', () => {
  const secrets = { pan: '4242424242424242', cvv: '123', holderName: 'Zoë Ryder' };
  const masked = '424242******4242';
  const inner = JSON.stringify({ card: '4242424242424242', name: 'Zoë Ryder', note: 'x'.repeat(90) });
  const innerMasked = { card: masked, name: 'Z** R****', note: 'x'.repeat(90) };
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const fromB64 = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'base64').toString('utf8');
  /** The digits of the PAN `masked` leaves in clear: exactly its first six and last four. */
  const digitsOf = (text: string) => text.replace(/[^0-9*]/g, '');

  it('base64 wrapped at 76 columns inside a JSON string, the card on a later line', () => {
    const wrapped = b64(inner).match(/.{1,76}/g)!.join('\n');
    expect(wrapped.split('\n').length).toBeGreaterThan(2);
    const out = maskSecrets(JSON.stringify({ doc: wrapped }), secrets)!;
    expect(JSON.parse(fromB64((JSON.parse(out) as { doc: string }).doc))).toEqual(innerMasked);
  });

  it('base64 split across CRLF lines', () => {
    const out = maskSecrets(`data:\r\n${b64(inner).match(/.{1,64}/g)!.join('\r\n')}\r\n`, secrets)!;
    expect(JSON.parse(fromB64(out.slice('data:'.length)))).toEqual(innerMasked);
  });

  it('base64 three levels deep, and behind a word that shifts its alignment', () => {
    const deep = b64(b64(b64(inner)));
    const out = maskSecrets(`{"d":"${deep}"}`, secrets)!;
    expect(JSON.parse(fromB64(fromB64(fromB64((JSON.parse(out) as { d: string }).d))))).toEqual(innerMasked);
    const shifted = maskSecrets(`card ${b64(inner)}`, secrets)!;
    expect(shifted).not.toBe(`card ${b64(inner)}`);
    expect(fromB64(shifted.slice(5))).not.toContain('4242424242424242');
  });

  it('double percent-encoding, and a percent run that ends in an invalid byte', () => {
    const double = Array.from('4242424242424242', (d) => `%253${d}`).join('');
    expect(maskSecrets(`n=${double}&x=1`, secrets)).toBe(`n=${'%2534%2532'.repeat(3)}******${'%2534%2532'.repeat(2)}&x=1`);
    const invalid = `${Array.from('4242424242424242', (d) => `%3${d}`).join('')}%FF`;
    expect(maskSecrets(`n=${invalid}`, secrets)).toBe(`n=${'%34%32'.repeat(3)}******${'%34%32'.repeat(2)}%FF`);
  });

  it("hex: the text's bytes hex-encoded, upper or lower case, at either alignment", () => {
    // (Not a "card" key: `{"card":"` is hex 7b2263617264223a22, whose 13 digits in a row pass Luhn, an other card's number.)
    const plain = JSON.stringify({ number: '4242424242424242', name: 'Zoë Ryder' });
    const hex = Buffer.from(plain).toString('hex');
    const after = JSON.stringify({ number: masked, name: 'Z** R****' });
    expect(Buffer.from(maskSecrets(`h=${hex}`, secrets)!.slice(2), 'hex').toString('utf8')).toBe(after);
    expect(Buffer.from(maskSecrets(`h=${hex.toUpperCase()};`, secrets)!.slice(2, -1), 'hex').toString('utf8')).toBe(after);
    expect(maskSecrets(`h=a${hex}`, secrets)).not.toContain(hex.slice(0, 40));
  });

  it('quoted-printable, with soft line breaks, and leaves a plain "=12" alone', () => {
    const qp = Array.from('4242424242424242', (d) => `=3${d}`).join('');
    expect(digitsOf(maskSecrets(`card: ${qp}`, secrets)!)).toBe(`${'3432'.repeat(3)}******${'3432'.repeat(2)}`.replace(/^/, ''));
    const soft = `${qp.slice(0, 21)}=\r\n${qp.slice(21)}`;
    expect(maskSecrets(soft, secrets)).not.toBe(soft);
    expect(maskSecrets('a=12&b=34&page=1', secrets)).toBe('a=12&b=34&page=1');
  });

  it('numeric references without ; or with leading zeros', () => {
    const loose = Array.from('4242424242424242', (d) => `&#${d.charCodeAt(0)}`).join('');
    expect(maskSecrets(`<p>${loose}</p>`, secrets)).toBe(`<p>${'&#52&#50'.repeat(3)}******${'&#52&#50'.repeat(2)}</p>`);
    const zeros = Array.from('4242424242424242', (d) => `&#00000000${d.charCodeAt(0)};`).join('');
    expect(maskSecrets(zeros, secrets)!.split('*').length - 1).toBe(6);
  });

  it.each([
    ['tags', '4242<b>4242</b>4242<b>4242</b>', '4242<b>42**</b>****<b>4242</b>'],
    ['comments', '4242<!-- -->4242<!-- -->4242<!-- -->4242', '4242<!-- -->42**<!-- -->****<!-- -->4242'],
    ['a named thin space', '4242&thinsp;4242&thinsp;4242&thinsp;4242', '4242&thinsp;42**&thinsp;****&thinsp;4242'],
    ['four separators', '4242 - - 4242 - - 4242 - - 4242', '4242 - - 42** - - **** - - 4242'],
    ['a long run of separators', '4242__________4242__________4242__________4242', '4242__________42**__________****__________4242'],
  ])("this card's number with %s between its groups", (_what, text, expected) => {
    expect(maskSecrets(text, secrets)).toBe(expected);
  });

  it.each([['\u200b'], ['\u200c'], ['\u200d'], ['\u2060'], ['\ufeff'], ['\u00ad']])('four zero-width or invisible %j between every digit', (zw) => {
    const text = Array.from('4242424242424242').join(zw.repeat(4));
    expect(maskSecrets(text, secrets)).toBe(Array.from(masked).join(zw.repeat(4)));
  });

  it.each([
    ['superscript', '⁴²⁴²⁴²⁴²⁴²⁴²⁴²⁴²', '⁴²⁴²⁴²******⁴²⁴²'],
    ['circled', '④②④②④②④②④②④②④②④②', '④②④②④②******④②④②'],
    ['mathematical bold', '𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐', '𝟒𝟐𝟒𝟐𝟒𝟐******𝟒𝟐𝟒𝟐'],
    ['fullwidth beside Devanagari', '４२４२４२४२४२४२४२४२', '４२４२４२******४२४२'],
  ])("this card's number in %s digits", (_what, text, expected) => {
    expect(maskSecrets(text, secrets)).toBe(expected);
  });

  it('another card with four separators or zero-width characters between its groups', () => {
    expect(maskSecrets('seen 5555 - - 5555 - - 5555 - - 4444', secrets)).toBe('seen 5555 - - 55** - - **** - - 4444');
    expect(maskSecrets('seen 5555\u200b5555\u200b5555\u200b4444', secrets)).toBe('seen 5555\u200b55**\u200b****\u200b4444');
  });

  it('the CVV with separators', () => {
    expect(maskSecrets('{"cvc":"1 2 3"}', secrets)).toBe('{"cvc":"***"}');
    expect(maskSecrets('cvc=1-2-3&amount=1234', secrets)).toBe('cvc=***&amount=1234');
    expect(maskSecrets('ref 1 2 3 4', secrets)).toBe('ref 1 2 3 4');
  });

  it("the holder's name decomposed, ASCII-folded, or surname first", () => {
    expect(maskSecrets('{"n":"Zoe\u0308 Ryder"}', secrets)).toBe('{"n":"Z** R****"}');
    expect(maskSecrets('{"n":"Zoe Ryder"}', secrets)).toBe('{"n":"Z** R****"}');
    expect(maskSecrets('{"n":"RYDER/ZOE"}', secrets)).toBe('{"n":"Z** R****"}');
    expect(maskSecrets('{"n":"Ryder, Zoë"}', secrets)).toBe('{"n":"Z** R****"}');
    expect(maskSecrets('{"n":"ZOË+RYDER"}', secrets)).toBe('{"n":"Z** R****"}');
    const polish = { holderName: 'Łukasz Żółć-Bąk' };
    expect(maskSecrets('name=LUKASZ ZOLC-BAK', polish)).toBe('name=Ł***** Ż*******');
    expect(maskSecrets('name=ZOLC-BAK/LUKASZ', polish)).toBe('name=Ł***** Ż*******');
    expect(maskSecrets('客户王小明先生', { holderName: '王小明' })).toBe('客户王**先生');
  });

  it('leaves a short name alone inside longer words, and masks it as a word', () => {
    expect(maskSecrets('{"client":"limit","name":"Li"}', { holderName: 'Li' })).toBe('{"client":"limit","name":"L*"}');
  });
});

describe('maskSecrets: what it leaves alone', () => {
  const secrets = { pan: '4242424242424242', cvv: '123', holderName: 'Zoë Ryder' };

  it.each([
    ['a timestamp list', '{"seen":[1764288000,1764288001,1764288002,1764288003],"at":"2026-11-27T12:34:56Z"}'],
    ['amounts', '{"amount":"1 234 567,89","total":"12,345,678.90","fees":[125,250,375,1250]}'],
    ['a sha256', 'sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['UUIDs', '{"id":"01a21f3f-f70a-77f1-9103-8820e39f72c3","req":"5f567330-0004-4031-8123-406120459781"}'],
    ['a plain form body', 'status=approved&amount=1250&currency=EUR&page=12'],
    ['markup without card data', '<p>Room <b>12</b>, 4 nights</p><!-- total 450 -->'],
  ])('%s', (_what, text) => {
    expect(maskSecrets(text, secrets)).toBe(text);
  });
});

describe('maskSecrets: linear in the answer', () => {
  const secrets = { pan: '4242424242424242', cvv: '123', holderName: 'Zoë Ryder' };
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  /** The masker's own count of the work it did (characters read by every view, match and nested document). */
  const workOf = (text: string) => {
    const meter = { work: 0 };
    maskSecrets(text, secrets, meter);
    return meter.work;
  };
  const shapes: Array<[string, (n: number) => string]> = [
    ['"1 1 1 …"', (n) => '1 '.repeat(n / 2)],
    ['"4242 " repeated', (n) => '4242 '.repeat(n / 5)],
    ['nested base64 of digits', (n) => b64(b64(b64('4242 4242 4242 4242 '.repeat(n / 40))))],
    ['an echoed description with the card', (n) => JSON.stringify({ description: `Zoë Ryder 4242424242424242 ${'room 12, 3 nights; '.repeat(n / 19)}` })],
    ['escapes at every depth', (n) => '%2534&#52;\\u0034=34<b>4</b>'.repeat(n / 32)],
    ['letters', (n) => 'zoe ryder zoe '.repeat(n / 14)],
  ];

  it.each(shapes)('%s: twice the text is at most about twice the work, and a bounded work per character', (_what, make) => {
    const small = make(64 * 1024);
    const large = make(128 * 1024);
    const [w1, w2] = [workOf(small), workOf(large)];
    expect(w2 / w1).toBeLessThan(2.5);
    expect(w2 / large.length).toBeLessThan(200);
    expect(maskSecrets(large, secrets)).not.toBeNull();
  });
});

describe('maskAnswerBody', () => {
  const secrets = { pan: '4242424242424242', cvv: '123', holderName: 'Zoë Ryder' };

  it('masks as maskSecrets does, and lets other work run between its steps', async () => {
    const text = `${'%2534&#52;\\u0034=34<b>4</b> '.repeat(200)}${Buffer.from('{"n":"4242424242424242"}').toString('base64')}`;
    // Other work: a callback that runs again at every turn of the event loop until the masking ends.
    let ran = 0;
    let done = false;
    const other = () => {
      ran += 1;
      if (!done) setImmediate(other);
    };
    setImmediate(other);
    // A slice of 0 ms: it lets other work run at every step.
    const masked = await maskAnswerBody(text, secrets, 0);
    done = true;
    expect(masked).toBe(maskSecrets(text, secrets));
    expect(masked).not.toBe(text);
    expect(ran).toBeGreaterThan(2);
  });
});
