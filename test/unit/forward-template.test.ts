import { describe, expect, it } from 'vitest';
import {
  BILLING_FIELDS,
  CARD_PLACEHOLDERS,
  cardValues,
  contentTypeOf,
  placeholdersIn,
  substitute,
  templateKindOf,
  templateProblems,
  usesCvv,
  type TForwardTemplate,
} from '@folio-vault/shared/vault/forward/template';
import { ZForwardHeaders, ZForwardRequest } from '@folio-vault/shared/vault/forward/schemas';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

const values = cardValues({
  pan: '4111111111111111',
  cvv: '123',
  expMonth: '8',
  expYear: '2031',
  holderName: 'Zoë "Q" O\'Hara \\ & <co> + x',
  brand: 'VISA',
  billing: { city: 'São Paulo', postal_code: '01310-100' },
});

const problemsOf = (template: Partial<TForwardTemplate>) => templateProblems({ method: 'POST', path: '/v1/charges', ...template });

describe('placeholders', () => {
  it('lists every {{…}} with spaces allowed inside the braces, known or not', () => {
    expect(placeholdersIn('{{card.number}} {{ card.cvv }} {{billing.city}} {{card.pin}} {{billing.email}} {{}}')).toEqual([
      { name: 'card.number', known: true },
      { name: 'card.cvv', known: true },
      { name: 'billing.city', known: true },
      { name: 'card.pin', known: false },
      { name: 'billing.email', known: false },
      { name: '', known: false },
    ]);
    expect(CARD_PLACEHOLDERS).toHaveLength(9);
    expect(BILLING_FIELDS).toEqual(['address1', 'address2', 'city', 'country', 'document_number', 'name', 'postal_code', 'phone', 'state']);
  });

  it('tells whether the template needs the CVV', () => {
    expect(usesCvv({ path: '/x', body: '{"c":"{{ card.cvv }}"}' })).toBe(true);
    expect(usesCvv({ path: '/x?c={{card.cvv}}' })).toBe(true);
    expect(usesCvv({ path: '/x', body: '{"n":"{{card.number}}"}' })).toBe(false);
  });

  it('reads the template kind from the Content-Type', () => {
    expect(templateKindOf('application/json; charset=utf-8')).toBe('json');
    expect(templateKindOf('Application/Vnd.Api+JSON')).toBe('json');
    expect(templateKindOf('application/x-www-form-urlencoded')).toBe('form');
    expect(templateKindOf('text/xml')).toBe('xml');
    expect(templateKindOf('application/soap+xml; charset=utf-8')).toBe('xml');
    expect(templateKindOf('text/plain')).toBe('none');
    expect(templateKindOf(undefined)).toBe('none');
    expect(contentTypeOf({ 'content-TYPE': 'text/xml' })).toBe('text/xml');
    expect(contentTypeOf({ Accept: 'text/xml' })).toBeUndefined();
  });
});

describe('cardValues', () => {
  it('gives every placeholder a value, billing fields missing as empty, no CVV key without a CVV', () => {
    expect(values).toMatchObject({
      'card.number': '4111111111111111',
      'card.cvv': '123',
      'card.exp_month': '08',
      'card.exp_year': '2031',
      'card.exp_year2': '31',
      'card.brand': 'VISA',
      'card.first6': '411111',
      'card.last4': '1111',
      'billing.city': 'São Paulo',
      'billing.address1': '',
    });
    const noCvv = cardValues({ pan: '378282246310005', expMonth: '12', expYear: '2030', holderName: 'A', brand: 'AMEX' });
    expect('card.cvv' in noCvv).toBe(false);
    expect(Object.keys(noCvv)).toHaveLength(8 + BILLING_FIELDS.length);
  });
});

describe('substitute', () => {
  it('escapes inside a JSON string', () => {
    const body = '{"name":"{{card.holder_name}}","n":"{{ card.number }}","cvc":"{{card.cvv}}","city":"{{billing.city}}"}';
    const out = substitute({ method: 'POST', path: '/v1/charges', headers: JSON_HEADERS, body }, values);
    expect(out.body).toBe('{"name":"Zoë \\"Q\\" O\'Hara \\\\ & <co> + x","n":"4111111111111111","cvc":"123","city":"São Paulo"}');
    expect(JSON.parse(out.body!).name).toBe(values['card.holder_name']);
    expect(out.path).toBe('/v1/charges');
  });

  it('percent-encodes in a form body', () => {
    const out = substitute(
      { method: 'POST', path: '/pay', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name={{card.holder_name}}&exp={{card.exp_month}}%2F{{card.exp_year2}}' },
      values,
    );
    expect(out.body).toBe('name=Zo%C3%AB%20%22Q%22%20O\'Hara%20%5C%20%26%20%3Cco%3E%20%2B%20x&exp=08%2F31');
  });

  it('escapes XML text and attributes', () => {
    const out = substitute(
      { method: 'POST', path: '/soap', headers: { 'Content-Type': 'text/xml' }, body: '<c holder="{{card.holder_name}}"><pan>{{card.number}}</pan></c>' },
      values,
    );
    expect(out.body).toBe('<c holder="Zoë &quot;Q&quot; O&apos;Hara \\ &amp; &lt;co&gt; + x"><pan>4111111111111111</pan></c>');
  });

  it('fills the query string only, percent-encoded', () => {
    const out = substitute({ method: 'GET', path: '/lookup?bin={{card.first6}}&h={{ card.holder_name }}' }, values);
    expect(out).toEqual({ path: '/lookup?bin=411111&h=Zo%C3%AB%20%22Q%22%20O\'Hara%20%5C%20%26%20%3Cco%3E%20%2B%20x' });
  });

  it('leaves a body without placeholders as it is and throws for a value it does not have', () => {
    expect(substitute({ method: 'POST', path: '/x', body: 'plain {text}' }, values)).toEqual({ path: '/x', body: 'plain {text}' });
    const noCvv = { ...values };
    delete noCvv['card.cvv'];
    expect(() => substitute({ method: 'POST', path: '/x', headers: JSON_HEADERS, body: '{"c":"{{card.cvv}}"}' }, noCvv)).toThrow(
      'forward template: no value for {{card.cvv}}',
    );
    expect(() => substitute({ method: 'POST', path: '/x/{{card.number}}' }, values)).toThrow('only allowed in the query string');
    expect(() => substitute({ method: 'POST', path: '/x', body: '{{card.number}}' }, values)).toThrow('Content-Type');
  });
});

describe('templateProblems: path', () => {
  const pathProblems = (path: string) => problemsOf({ path }).map((p) => `${p.path}: ${p.message}`);

  it('accepts a plain path and placeholders in the query', () => {
    expect(pathProblems('/v1/charges')).toEqual([]);
    expect(pathProblems('/v1/bin?first6={{ card.first6 }}&x=a.b-c_d~e%20f')).toEqual([]);
    // The query does not take part in the match: a ';' or a literal '%' (%25) in it is data.
    expect(pathProblems('/v1/bin?a=1;b=2&discount=10%25')).toEqual([]);
  });

  it.each([
    ['v1/charges', 'path: must start with /'],
    [`/${'a'.repeat(2048)}`, 'path: must be at most 2048 characters'],
    ['/v1/../admin', 'path: must not contain .. segments'],
    ['/v1//admin', 'path: must not contain //'],
    ['/v1/x?next=a//b', 'path: must not contain //'],
    ['/v1/user@host', 'path: must not contain @, \\ or #'],
    ['/v1\\admin', 'path: must not contain @, \\ or #'],
    ['/v1/charges#top', 'path: must not contain @, \\ or #'],
    ['/v1/x?next=%2Fhome', 'path: must not contain percent-encoded ., / or \\'],
    ['/redirect?to=evil.example/x://', 'path: must be a path, not a URL with a scheme'],
    ['/v1/char ges', 'path: must not contain spaces or control characters'],
    ['/v1/charges\u0000', 'path: must not contain spaces or control characters'],
    ['/v1/%2e%2E/admin', 'path: must not contain percent-encoded ., / or \\'],
    ['/v1/a%2Fb', 'path: must not contain percent-encoded ., / or \\'],
    ['/v1/a%5cb', 'path: must not contain percent-encoded ., / or \\'],
    ['/v1/{{card.number}}', 'path: placeholders are only allowed in the query string'],
    ['/v1/x?pin={{card.pin}}', 'path: unknown placeholder {{card.pin}}'],
    ['/v1/refunds/..;/admin', "path: must not contain ';' before the query"],
    ['/v1/charges;jsessionid=1', "path: must not contain ';' before the query"],
    ['/v1/%252e%252e/admin', 'path: must not contain %25 (a percent-encoded %) before the query'],
    ['/v1/./charges', 'path: must not contain . segments'],
    ['/v1/%2E./charges', 'path: must not contain percent-encoded ., / or \\'],
  ])('%j → %s', (path, expected) => {
    expect(pathProblems(path)).toContain(expected);
  });

  it('names a leading scheme and reports every rule broken', () => {
    expect(pathProblems('https://evil.example/x')).toEqual([
      'path: must start with /',
      'path: must not contain //',
      'path: must be a path, not a URL with a scheme',
    ]);
    expect(pathProblems('javascript:x')).toEqual(['path: must start with /', 'path: must be a path, not a URL with a scheme']);
  });
});

describe('templateProblems: headers', () => {
  it.each([
    ['Host', 'is not allowed: the vault sets it from the destination'],
    ['authorization', "is not allowed: the destination's credentials come from its configuration"],
    ['Cookie', 'is not allowed'],
    ['Content-Length', 'is not allowed: the vault sets it'],
    ['Idempotency-Key', 'is not allowed: the vault sets it'],
    ['Proxy-Authorization', 'is not allowed'],
    ['proxy-connection', 'is not allowed'],
    ['Connection', 'is a hop-by-hop header and is not allowed'],
    ['Keep-Alive', 'is a hop-by-hop header and is not allowed'],
    ['TE', 'is a hop-by-hop header and is not allowed'],
    ['Trailer', 'is a hop-by-hop header and is not allowed'],
    ['Transfer-Encoding', 'is a hop-by-hop header and is not allowed'],
    ['Upgrade', 'is a hop-by-hop header and is not allowed'],
    ['Bad Name', 'is not a valid header name'],
    ['X-Ünicode', 'is not a valid header name'],
  ])('%s', (name, message) => {
    expect(problemsOf({ headers: { [name]: 'v' } })).toEqual([{ path: `headers.${name}`, message }]);
  });

  it('judges values without quoting them', () => {
    expect(problemsOf({ headers: { 'X-Long': 'a'.repeat(8193), 'X-Ok': 'a'.repeat(8192) } })).toEqual([
      { path: 'headers.X-Long', message: 'must be at most 8192 characters' },
    ]);
    for (const bad of ['a\r\nX-Evil: 1', 'a\nb', 'a\u0000b']) {
      expect(problemsOf({ headers: { 'X-Note': bad } })).toEqual([{ path: 'headers.X-Note', message: 'must not contain line breaks or NUL characters' }]);
    }
    expect(problemsOf({ headers: { 'X-Card': '{{card.number}}', 'X-Other': '{{nope}}' } })).toEqual([
      { path: 'headers.X-Card', message: 'placeholders are not allowed in headers' },
      { path: 'headers.X-Other', message: 'placeholders are not allowed in headers' },
    ]);
  });

  it('refuses a header given twice in another case, where the escaping would follow one and the gateway the other', () => {
    expect(problemsOf({ headers: { 'Content-Type': 'application/json', 'content-type': 'text/plain' } })).toEqual([
      { path: 'headers.content-type', message: 'is given twice (header names are case-insensitive)' },
    ]);
  });

  it('allows at most 30 headers', () => {
    const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, 'v']));
    expect(problemsOf({ headers: headers(30) })).toEqual([]);
    expect(problemsOf({ headers: headers(31) })).toEqual([{ path: 'headers', message: 'must have at most 30 headers' }]);
  });
});

describe('templateProblems: body', () => {
  it('accepts placeholders inside JSON strings, form and XML bodies', () => {
    expect(problemsOf({ headers: JSON_HEADERS, body: '{"n":"{{card.number}}","k":{"{{ billing.name }}":["x{{card.cvv}}y"]}}' })).toEqual([]);
    expect(problemsOf({ headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'n={{card.number}}' })).toEqual([]);
    expect(problemsOf({ headers: { 'Content-Type': 'application/xml' }, body: '<n>{{card.number}}</n>' })).toEqual([]);
    expect(problemsOf({ body: 'no placeholders, no content type' })).toEqual([]);
    expect(problemsOf({ headers: JSON_HEADERS, body: 'not json but no placeholders' })).toEqual([]);
  });

  it('refuses a JSON placeholder outside a string', () => {
    expect(problemsOf({ headers: JSON_HEADERS, body: '{"amount":{{card.number}}}' })).toEqual([
      { path: 'body', message: 'must be JSON with every placeholder inside a string' },
    ]);
    expect(problemsOf({ headers: JSON_HEADERS, body: '{"a":"\\{{card.number}}"}' })).toEqual([
      { path: 'body', message: 'must be JSON with every placeholder inside a string' },
    ]);
  });

  const NESTED = {
    path: 'body',
    message: 'must not hold a placeholder in text that is itself a document (a string, text or value with " \\ { } [ ] < > & or =): its value would be escaped for the outer one only',
  };
  const FORM_HEADERS = { 'Content-Type': 'application/x-www-form-urlencoded' };
  const XML_HEADERS = { 'Content-Type': 'application/xml' };

  it.each([
    ['JSON in a JSON string', JSON_HEADERS, '{"payload":"{\\"card\\":\\"{{card.number}}\\"}"}'],
    ['XML in a JSON string', JSON_HEADERS, '{"payload":"<card>{{card.number}}</card>"}'],
    ['a form in a JSON string', JSON_HEADERS, '{"payload":"name={{card.holder_name}}&amount=5"}'],
    ['a JSON key holding a document', JSON_HEADERS, '{"{\\"n\\":\\"{{card.number}}\\"}":1}'],
    ['escaped XML in XML text', XML_HEADERS, '<p>&lt;card&gt;{{card.number}}&lt;/card&gt;</p>'],
    ['JSON in XML text', XML_HEADERS, '<p>{"card":"{{card.number}}"}</p>'],
    ['JSON in an XML attribute', XML_HEADERS, '<p data=\'{"card":"{{card.number}}"}\'/>'],
    ['an XML CDATA section', XML_HEADERS, '<p><![CDATA[{{card.number}}]]></p>'],
    ['an XML comment', XML_HEADERS, '<p><!-- {{card.number}} --></p>'],
    ['an XML tag outside an attribute value', XML_HEADERS, '<p {{card.holder_name}}="x"/>'],
    ['percent-encoded JSON in a form value', FORM_HEADERS, 'data=%7B%22name%22%3A%22{{card.holder_name}}%22%7D'],
    ['JSON in a form value', FORM_HEADERS, 'data={"card":"{{card.number}}"}'],
  ])('refuses a placeholder nested in another document: %s', (_what, headers, body) => {
    expect(problemsOf({ headers, body })).toEqual([NESTED]);
  });

  it('accepts placeholders in plain strings, text, attribute values and form values, whatever their siblings hold', () => {
    expect(problemsOf({ headers: JSON_HEADERS, body: '{"exp":"{{card.exp_month}}/{{card.exp_year2}}","d":"Room 12, {{card.holder_name}}","meta":"{\\"a\\":1}"}' })).toEqual([]);
    expect(problemsOf({ headers: XML_HEADERS, body: '<?xml version="1.0"?><!-- a & b --><p n="{{card.holder_name}}" m=\'{{card.brand}}\'>{{card.number}}<q>&lt;x&gt;</q></p>' })).toEqual([]);
    expect(problemsOf({ headers: FORM_HEADERS, body: 'n={{card.number}}&exp={{card.exp_month}}%2F{{card.exp_year2}}&meta=%7B%7D' })).toEqual([]);
  });

  it('names unknown placeholders once each, without quoting other body text', () => {
    expect(problemsOf({ headers: JSON_HEADERS, body: '{"a":"{{card.pin}}","b":"{{card.pin}}","c":"{{ billing.email }}"}' })).toEqual([
      { path: 'body', message: 'unknown placeholder {{card.pin}}' },
      { path: 'body', message: 'unknown placeholder {{billing.email}}' },
    ]);
    expect(problemsOf({ headers: JSON_HEADERS, body: '{"a":"{{4111111111111111}}","b":"{{secret value}}"}' })).toEqual([
      { path: 'body', message: 'unknown placeholder' },
    ]);
  });

  it('needs a JSON, form or XML Content-Type for placeholders', () => {
    expect(problemsOf({ headers: { 'Content-Type': 'text/plain' }, body: '{{card.number}}' })).toEqual([
      { path: 'body', message: 'placeholders need a Content-Type of application/json, application/x-www-form-urlencoded or XML' },
    ]);
  });

  it('refuses a body on GET', () => {
    expect(problemsOf({ method: 'GET', body: 'x' })).toEqual([{ path: 'body', message: 'a GET request has no body' }]);
    expect(problemsOf({ method: 'get', body: 'x' })).toEqual([{ path: 'body', message: 'a GET request has no body' }]);
    expect(problemsOf({ method: 'DELETE', body: 'x' })).toEqual([]);
  });
});

describe('ZForwardRequest', () => {
  const example = {
    destination: 'acme',
    path: '/v1/charges',
    headers: JSON_HEADERS,
    body: '{"amount":1000,"card":{"number":"{{card.number}}","cvc":"{{card.cvv}}","exp_month":"{{card.exp_month}}","exp_year":"{{card.exp_year}}"}}',
  };
  const issuesOf = (input: unknown) => {
    const result = ZForwardRequest.safeParse(input);
    return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  };

  it('defaults the method to POST and upper-cases it', () => {
    expect(ZForwardRequest.parse(example).method).toBe('POST');
    expect(ZForwardRequest.parse({ ...example, method: 'put' }).method).toBe('PUT');
    expect(issuesOf({ ...example, method: 'TRACE' })).toEqual(['method: must be one of POST, PUT, PATCH, GET, DELETE']);
  });

  it('reports field rules and template rules at their paths, each once', () => {
    expect(issuesOf({ ...example, destination: '  ' })).toEqual(['destination: must name a destination']);
    expect(issuesOf({ ...example, extra: 1 })).toHaveLength(1);
    expect(issuesOf({ ...example, path: `/${'a'.repeat(2048)}` })).toEqual(['path: must be at most 2048 characters']);
    expect(issuesOf({ ...example, path: '/a/../b', headers: { ...JSON_HEADERS, Host: 'x', 'X-A': '{{card.number}}' } })).toEqual([
      'path: must not contain .. segments',
      'headers.Host: is not allowed: the vault sets it from the destination',
      'headers.X-A: placeholders are not allowed in headers',
    ]);
    expect(issuesOf({ ...example, method: 'get' })).toEqual(['body: a GET request has no body']);
  });

  it('limits the body to 64 kB of UTF-8', () => {
    expect(issuesOf({ ...example, headers: undefined, body: 'é'.repeat(32_768) })).toEqual([]);
    expect(issuesOf({ ...example, headers: undefined, body: `${'é'.repeat(32_768)}x` })).toEqual(['body: must be at most 64 kB']);
  });
});

describe('ZForwardHeaders', () => {
  const base = { 'x-property-id': '1' };
  it('requires a visible-ASCII Idempotency-Key of 1 to 255 characters', () => {
    expect(ZForwardHeaders.safeParse(base).success).toBe(false);
    expect(ZForwardHeaders.parse({ ...base, 'idempotency-key': 'order-1' })['idempotency-key']).toBe('order-1');
    const messageOf = (key: string) => ZForwardHeaders.safeParse({ ...base, 'idempotency-key': key }).error?.issues[0]?.message;
    expect(messageOf('a'.repeat(256))).toBe('must be at most 255 characters');
    expect(messageOf('a b')).toBe('must be visible ASCII characters');
    expect(messageOf('')).toBe('must not be empty');
  });
});

describe('templateProblems: what the masking of the answer needs', () => {
  it.each([
    ['{"n":"{{card.number}}5"}', '{{card.number}} must not touch a digit or another placeholder (the answer could not be masked)'],
    ['{"n":"9{{card.number}}"}', '{{card.number}} must not touch a digit or another placeholder (the answer could not be masked)'],
    ['{"n":"{{card.number}}{{card.cvv}}"}', '{{card.number}} must not touch a digit or another placeholder (the answer could not be masked)'],
    ['{"n":"{{card.exp_month}}{{card.cvv}}"}', '{{card.cvv}} must not touch a digit or another placeholder (the answer could not be masked)'],
  ])('refuses %s', (body, message) => {
    expect(problemsOf({ headers: { 'Content-Type': 'application/json' }, body })).toContainEqual({ path: 'body', message });
  });

  it.each([
    ['a percent-encoded digit in a form body', 'application/x-www-form-urlencoded', 'cvc={{card.cvv}}%31'],
    ['a JSON \\u escape', 'application/json', '{"c":"{{card.cvv}}\\u0031"}'],
    ['a decimal XML reference', 'application/xml', '<c>{{card.cvv}}&#49;</c>'],
    ['a hex XML reference before it', 'application/xml', '<c>&#x31;{{card.cvv}}</c>'],
    ['a reference without its ;', 'application/xml', '<c>{{card.cvv}}&#0049</c>'],
  ])('refuses the CVV against %s (the gateway reads a digit there)', (_, contentType, body) => {
    expect(problemsOf({ headers: { 'Content-Type': contentType }, body })).toContainEqual({
      path: 'body', message: '{{card.cvv}} must not touch a digit or another placeholder (the answer could not be masked)',
    });
  });

  it('accepts the number and the CVV apart, and other placeholders side by side', () => {
    const body = '{"n":"{{card.number}}","c":"{{card.cvv}}","e":"{{card.exp_month}}/{{card.exp_year2}}{{card.last4}}"}';
    expect(problemsOf({ headers: { 'Content-Type': 'application/json' }, body })).toEqual([]);
  });

  it('refuses characters undici would refuse to send: non-ASCII in a header value or the path, and Accept-Encoding', () => {
    expect(problemsOf({ headers: { 'X-Note': 'caf\u00e9 \u20ac' } })).toEqual([{ path: 'headers.X-Note', message: 'must be visible ASCII, spaces or tabs' }]);
    expect(problemsOf({ headers: { 'X-Note': 'a\u0001b' } })).toEqual([{ path: 'headers.X-Note', message: 'must be visible ASCII, spaces or tabs' }]);
    expect(problemsOf({ path: '/v1/tokens/\u20ac' })).toEqual([{ path: 'path', message: 'must be ASCII (percent-encode anything else)' }]);
    expect(problemsOf({ headers: { 'Accept-Encoding': 'gzip' } })).toEqual([
      { path: 'headers.Accept-Encoding', message: 'is not allowed: the answer is read as text, never compressed' },
    ]);
  });
});

