import { describe, expect, it } from 'vitest';
import {
  destinationRefusal,
  findDestination,
  parseDestinations,
  pathAllowed,
  resolveDestinationSecrets,
  type TForwardDestination,
} from '@folio-vault/shared/vault/forward/destinations';

const P = 'VAULT_FORWARD_DESTINATIONS: ';
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const acme = { name: 'acme', url: 'https://api.acme.example/pay/', modes: ['test'], paths: ['/v1/charges', '/v1/refunds/*'] };

const parse = (entries: unknown, production = false) => parseDestinations(JSON.stringify(entries), { production });
const problemsOf = (entry: Record<string, unknown>, production = false) => parse([{ ...acme, ...entry }], production).problems;

describe('parseDestinations', () => {
  it('reads nothing from an absent or blank setting', () => {
    expect(parseDestinations(undefined, { production: true })).toEqual({ destinations: [], problems: [] });
    expect(parseDestinations('  ', { production: true })).toEqual({ destinations: [], problems: [] });
  });

  it('fills defaults and splits the URL', () => {
    expect(parse([acme])).toEqual({
      problems: [],
      destinations: [
        {
          name: 'acme',
          url: 'https://api.acme.example/pay',
          origin: 'https://api.acme.example',
          basePath: '/pay',
          modes: ['test'],
          paths: ['/v1/charges', '/v1/refunds/*'],
          methods: ['POST'],
          headers: {},
          timeoutMs: 15000,
          allowInsecure: false,
        },
      ],
    });
    const root = parse([{ ...acme, url: 'https://gw.example:8443', methods: ['post', 'Get'], timeoutMs: 500, ca: PEM }]).destinations[0]!;
    expect(root).toMatchObject({ url: 'https://gw.example:8443', origin: 'https://gw.example:8443', basePath: '', methods: ['POST', 'GET'], timeoutMs: 500, ca: PEM });
  });

  it('reads a file when the setting is not inline JSON', () => {
    const readFile = (path: string) => {
      if (path === '/etc/fv/destinations.json') return JSON.stringify([acme]);
      if (path === '/etc/fv/broken.json') return '[{';
      if (path === '/etc/fv/object.json') return '{}';
      throw Object.assign(new Error('nope'), { code: 'ENOENT' });
    };
    expect(parseDestinations(' /etc/fv/destinations.json ', { production: true, readFile }).destinations.map((d) => d.name)).toEqual(['acme']);
    expect(parseDestinations('/etc/fv/missing.json', { production: true, readFile }).problems).toEqual([`${P}cannot read file /etc/fv/missing.json (ENOENT)`]);
    expect(parseDestinations('/etc/fv/broken.json', { production: true, readFile }).problems).toEqual([`${P}file /etc/fv/broken.json is not valid JSON`]);
    expect(parseDestinations('/etc/fv/object.json', { production: true, readFile }).problems).toEqual([`${P}must be a JSON array of destinations`]);
    expect(parseDestinations('[{"name": "a", "headers": {"Authorization": "Bearer sk_secret"', { production: false }).problems).toEqual([
      `${P}is not valid JSON`,
    ]);
  });

});

describe('parseDestinations: the rules of each field', () => {
  it('checks names: pattern and uniqueness', () => {
    expect(problemsOf({ name: undefined })).toEqual([`${P}[0].name: is required`]);
    for (const name of ['-acme', 'a b', 'x'.repeat(65), 7]) {
      expect(problemsOf({ name })).toEqual([`${P}[0].name: must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit`]);
    }
    expect(problemsOf({ name: `A${'x'.repeat(63)}` })).toEqual([]);
    const twice = parse([acme, { ...acme, url: 'https://b.example' }]);
    expect(twice.problems).toEqual([`${P}[1].name: "acme" is already used by [0]`]);
    expect(twice.destinations).toHaveLength(1);
  });

  it.each([
    [undefined, 'is required'],
    ['api.acme.example/pay', 'must be an absolute URL'],
    [42, 'must be an absolute URL'],
    ['https://user:secret@api.acme.example', 'must not contain credentials (user:password@)'],
    ['https://api.acme.example/pay?key=1', 'must not contain a query'],
    ['https://api.acme.example/pay#x', 'must not contain a fragment'],
    ['http://api.acme.example', 'must be an https URL (or set allowInsecure: true outside production)'],
    ['ftp://api.acme.example', 'must be an https URL (or set allowInsecure: true outside production)'],
  ])('url %j → %s', (url, message) => {
    const problems = problemsOf({ url });
    expect(problems).toEqual([`${P}[0].url: ${message}`]);
    expect(problems.join()).not.toContain('secret');
  });

  it('allows http only with allowInsecure, and allowInsecure only outside production', () => {
    expect(problemsOf({ url: 'http://localhost:4010', allowInsecure: true })).toEqual([]);
    expect(parse([{ ...acme, url: 'http://localhost:4010', allowInsecure: true }]).destinations[0]!.allowInsecure).toBe(true);
    expect(problemsOf({ url: 'http://localhost:4010', allowInsecure: true }, true)).toEqual([
      `${P}[0].url: must be an https URL (or set allowInsecure: true outside production)`,
      `${P}[0].allowInsecure: is not allowed in production`,
    ]);
    expect(problemsOf({ allowInsecure: 'yes' })).toEqual([`${P}[0].allowInsecure: must be true or false`]);
    // Real cards go over https only, whatever NODE_ENV says.
    expect(problemsOf({ url: 'http://localhost:4010', allowInsecure: true, modes: ['test', 'live'] })).toEqual([
      `${P}[0].allowInsecure: is not allowed for a destination of live tokens (real cards go over https only)`,
    ]);
  });

  it('reserves the headers the vault sets per request, and refuses hop-by-hop, proxy and compression headers', () => {
    expect(problemsOf({ headers: { 'Idempotency-Key': 'fixed', 'User-Agent': 'x' } })).toEqual([
      `${P}[0].headers.Idempotency-Key: is not allowed: the vault sets it`,
      `${P}[0].headers.User-Agent: is not allowed: the vault sets it`,
    ]);
    expect(problemsOf({ headers: { 'Keep-Alive': '5', Upgrade: 'h2c', 'Proxy-Authorization': 'x', 'Accept-Encoding': 'gzip', Cookie: 'ok=1' } })).toEqual([
      `${P}[0].headers.Keep-Alive: is a hop-by-hop header and is not allowed`,
      `${P}[0].headers.Upgrade: is a hop-by-hop header and is not allowed`,
      `${P}[0].headers.Proxy-Authorization: is not allowed`,
      `${P}[0].headers.Accept-Encoding: is not allowed: the answer is read as text, never compressed`,
    ]);
  });

  it('takes a JSON object as inline text and never echoes it as a file name', () => {
    const problems = parseDestinations('{"name": "acme", "headers": {"Authorization": "Bearer sk_live_secret"}}', { production: false }).problems;
    expect(problems).toEqual([`${P}must be a JSON array of destinations`]);
    expect(problems.join('\n')).not.toContain('sk_live_secret');
  });

});

describe('parseDestinations: modes, paths, methods and headers', () => {
  it('checks modes', () => {
    expect(problemsOf({ modes: [] })).toEqual([`${P}[0].modes: must be a non-empty array of "test" and "live"`]);
    expect(problemsOf({ modes: 'test' })).toEqual([`${P}[0].modes: must be a non-empty array of "test" and "live"`]);
    expect(problemsOf({ modes: ['test', 'prod', 'test'] })).toEqual([
      `${P}[0].modes[1]: must be "test" or "live"`,
      `${P}[0].modes[2]: "test" is listed twice`,
    ]);
  });

  it('checks paths', () => {
    expect(problemsOf({ paths: [] })).toEqual([`${P}[0].paths: must be a non-empty array of paths`]);
    expect(problemsOf({ paths: ['v1', '/a/../b', '/a//b', '/a/*/b', '/ok/*', 3] })).toEqual([
      `${P}[0].paths[0]: must start with /`,
      `${P}[0].paths[1]: must not contain ..`,
      `${P}[0].paths[2]: must not contain //`,
      `${P}[0].paths[3]: may contain * only as its last character`,
      `${P}[0].paths[5]: must be a string`,
    ]);
  });

  it('checks methods', () => {
    expect(problemsOf({ methods: [] })).toEqual([`${P}[0].methods: must be a non-empty array of POST, PUT, PATCH, GET, DELETE`]);
    expect(problemsOf({ methods: ['post', 'TRACE', 1] })).toEqual([
      `${P}[0].methods[1]: must be one of POST, PUT, PATCH, GET, DELETE`,
      `${P}[0].methods[2]: must be one of POST, PUT, PATCH, GET, DELETE`,
    ]);
  });

  it('checks headers without quoting their values', () => {
    expect(problemsOf({ headers: ['Authorization'] })).toEqual([`${P}[0].headers: must be an object of header names to strings`]);
    const problems = problemsOf({
      headers: {
        Authorization: 'env:ACME_KEY',
        'Bad Name': 'x',
        host: 'x',
        'Content-Length': '1',
        'Transfer-Encoding': 'chunked',
        Connection: 'close',
        'X-Num': 1,
        'X-Split': 'sk_secret\r\nX-Evil: 1',
        'X-Env': 'env:not-a-name',
      },
    });
    expect(problems).toEqual([
      `${P}[0].headers["Bad Name"]: is not a valid header name`,
      `${P}[0].headers.host: is not allowed: the vault sets it`,
      `${P}[0].headers.Content-Length: is not allowed: the vault sets it`,
      `${P}[0].headers.Transfer-Encoding: is not allowed: the vault sets it`,
      `${P}[0].headers.Connection: is not allowed: the vault sets it`,
      `${P}[0].headers.X-Num: must be a string`,
      `${P}[0].headers.X-Split: must not contain line breaks`,
      `${P}[0].headers.X-Env: must name an environment variable after env:`,
    ]);
    expect(problems.join()).not.toContain('secret');
  });

});

describe('parseDestinations: options, and every problem at once', () => {
  it('checks timeoutMs, TLS fields and unknown fields', () => {
    for (const timeoutMs of [0, 60001, 1.5, '100']) {
      expect(problemsOf({ timeoutMs })).toEqual([`${P}[0].timeoutMs: must be an integer from 1 to 60000`]);
    }
    expect(problemsOf({ timeoutMs: 60000 })).toEqual([]);
    expect(problemsOf({ ca: 5 })).toEqual([`${P}[0].ca: must be PEM text or a file path`]);
    expect(problemsOf({ cert: '/tls/c.pem' })).toEqual([`${P}[0].key: is required with cert`]);
    expect(problemsOf({ key: '/tls/k.pem' })).toEqual([`${P}[0].cert: is required with key`]);
    expect(problemsOf({ cert: '/tls/c.pem', key: '/tls/k.pem' })).toEqual([]);
    expect(problemsOf({ retries: 3 })).toEqual([`${P}[0].retries: is not a known field`]);
  });

  it('collects every problem of every entry', () => {
    const result = parse([{ ...acme, url: 'http://x', modes: [] }, 'acme', { ...acme, name: 'b', paths: ['x'] }, { ...acme, name: 'c' }]);
    expect(result.problems).toEqual([
      `${P}[0].url: must be an https URL (or set allowInsecure: true outside production)`,
      `${P}[0].modes: must be a non-empty array of "test" and "live"`,
      `${P}[1]: must be an object`,
      `${P}[2].paths[0]: must start with /`,
    ]);
    expect(result.destinations.map((d) => d.name)).toEqual(['c']);
  });
});

describe('parseDestinations: the answer allowlist', () => {
  it('reads headers (lower case), JSON pointers and dotted paths as the keys they walk, and form keys', () => {
    const [destination] = parse([{ ...acme, answer: { headers: ['X-Outcome'], json: ['/id', '/outcome/code', 'status.reason', '/a~1b/~0c', '/items/0'], form: ['result'] } }]).destinations;
    expect(destination!.answer).toEqual({
      headers: ['x-outcome'],
      json: [['id'], ['outcome', 'code'], ['status', 'reason'], ['a/b', '~c'], ['items', '0']],
      form: ['result'],
    });
    expect(parse([{ ...acme, answer: {} }]).destinations[0]!.answer).toEqual({});
    expect(parse([acme]).destinations[0]!.answer).toBeUndefined();
  });

  it('refuses what is not an allowlist, at the field and the item', () => {
    expect(problemsOf({ answer: ['/id'] })).toEqual([`${P}[0].answer: must be an object with headers, json or form`]);
    expect(problemsOf({ answer: { json: '/id', body: true } })).toEqual([
      `${P}[0].answer.json: must be an array of JSON pointers or dotted paths`,
      `${P}[0].answer.body: is not a known field`,
    ]);
    expect(problemsOf({ answer: { headers: 'x-id', form: {} } })).toEqual([
      `${P}[0].answer.headers: must be an array of header names`,
      `${P}[0].answer.form: must be an array of form keys`,
    ]);
  });

  it('checks each JSON path and refuses the same member twice, however it is written', () => {
    const rule = 'must be a JSON pointer ("/outcome/code") or a dotted path of letters, digits, \'_\', \'-\' or \'$\' ("outcome.code")';
    expect(problemsOf({ answer: { json: ['', 'a..b', 'a b', '/bad~2', 7, '/outcome/code', 'outcome.code'] } })).toEqual([
      `${P}[0].answer.json[0]: ${rule}`,
      `${P}[0].answer.json[1]: ${rule}`,
      `${P}[0].answer.json[2]: ${rule}`,
      `${P}[0].answer.json[3]: ${rule}`,
      `${P}[0].answer.json[4]: ${rule}`,
      `${P}[0].answer.json[6]: the same member is listed twice`,
    ]);
  });

  it('checks header names: tokens, never the framing or a hop-by-hop header, each once', () => {
    expect(problemsOf({ answer: { headers: ['X Id', 'Content-Length', 'Content-Encoding', 'Connection', 'x-id', 'X-Id', 3] } })).toEqual([
      `${P}[0].answer.headers[0]: is not a valid header name`,
      `${P}[0].answer.headers[1]: is not kept: it describes the gateway's body, not the one the vault returns`,
      `${P}[0].answer.headers[2]: is not kept: it describes the gateway's body, not the one the vault returns`,
      `${P}[0].answer.headers[3]: is a hop-by-hop header and is never kept`,
      `${P}[0].answer.headers[6]: is not a valid header name`,
      `${P}[0].answer.headers[5]: "X-Id" is listed twice`,
    ]);
  });

  it('checks form keys: non-empty strings, each once', () => {
    expect(problemsOf({ answer: { form: ['result', '', 'result', null] } })).toEqual([
      `${P}[0].answer.form[1]: must be a non-empty string`,
      `${P}[0].answer.form[3]: must be a non-empty string`,
      `${P}[0].answer.form[2]: "result" is listed twice`,
    ]);
  });
});

describe('resolveDestinationSecrets', () => {
  const withSecrets = (extra: Record<string, unknown>) => parse([{ ...acme, ...extra }]).destinations;

  it('reads env: header values from the environment and leaves others as they are', () => {
    const destinations = withSecrets({ headers: { Authorization: 'env:ACME_KEY', 'X-Version': '2024-01' } });
    const { resolved, problems } = resolveDestinationSecrets(destinations, { ACME_KEY: 'Bearer sk_test_1' });
    expect(problems).toEqual([]);
    expect(resolved[0]!.resolvedHeaders).toEqual({ Authorization: 'Bearer sk_test_1', 'X-Version': '2024-01' });
    expect(resolved[0]!.headers).toEqual({ Authorization: 'env:ACME_KEY', 'X-Version': '2024-01' });
    expect(resolved[0]!.tls).toEqual({});
  });

  it('names a missing or blank variable and never the value', () => {
    const destinations = withSecrets({ headers: { Authorization: 'env:ACME_KEY', 'X-Other': 'env:OTHER', 'X-Split': 'env:SPLIT' } });
    const { resolved, problems } = resolveDestinationSecrets(destinations, { OTHER: '  ', SPLIT: 'sk_secret\nX: 1' });
    expect(problems).toEqual([
      `${P}[0].headers.Authorization: environment variable ACME_KEY is not set`,
      `${P}[0].headers.X-Other: environment variable OTHER is not set`,
      `${P}[0].headers.X-Split: environment variable SPLIT contains a line break`,
    ]);
    expect(problems.join()).not.toContain('secret');
    expect(resolved).toEqual([]);
  });

  it('takes PEM text as it is and reads anything else as a file path', () => {
    const files: Record<string, string> = { '/tls/client.pem': 'CERT FROM FILE', '/tls/client.key': 'KEY FROM FILE' };
    const readFile = (path: string) => {
      if (path in files) return files[path]!;
      throw Object.assign(new Error('missing'), { code: 'ENOENT' });
    };
    const destinations = withSecrets({ ca: PEM, cert: '/tls/client.pem', key: '/tls/client.key' });
    expect(resolveDestinationSecrets(destinations, {}, readFile).resolved[0]!.tls).toEqual({ ca: PEM, cert: 'CERT FROM FILE', key: 'KEY FROM FILE' });
    const missing = withSecrets({ ca: '/tls/ca.pem' });
    expect(resolveDestinationSecrets(missing, {}, readFile)).toEqual({ resolved: [], problems: [`${P}[0].ca: cannot read file /tls/ca.pem (ENOENT)`] });
  });
});

describe('findDestination and pathAllowed', () => {
  const [destination] = parse([acme]).destinations as [TForwardDestination];

  it('finds a destination by its exact name', () => {
    expect(findDestination([destination], 'acme')).toBe(destination);
    expect(findDestination([destination], 'ACME')).toBeUndefined();
  });

  it('matches exact paths and * prefixes on the part before the query', () => {
    expect(pathAllowed(destination, '/v1/charges')).toBe(true);
    expect(pathAllowed(destination, '/v1/charges?expand=card')).toBe(true);
    expect(pathAllowed(destination, '/v1/charges/ch_1')).toBe(false);
    expect(pathAllowed(destination, '/v1/refunds/re_1')).toBe(true);
    expect(pathAllowed(destination, '/v1/refunds/')).toBe(true);
    expect(pathAllowed(destination, '/v1/refunds')).toBe(false);
    expect(pathAllowed(destination, '/v1/customers?x=/v1/charges')).toBe(false);
  });

  it('matches no path that could climb out of a prefix', () => {
    for (const path of ['/v1/refunds/../../admin', '/v1/refunds//x', '/v1/refunds/%2e%2e/x', '/v1/refunds/a%2Fb', '/v1/refunds/a\\b']) {
      expect(pathAllowed(destination, path)).toBe(false);
    }
  });

  it("matches no path with a ';' in a segment or a %25 (double encoding)", () => {
    for (const path of ['/v1/refunds/..;/admin', '/v1/refunds/re_1;jsessionid=x', '/v1/charges;x', '/v1/refunds/%252e%252e/admin', '/v1/refunds/%25']) {
      expect(pathAllowed(destination, path), path).toBe(false);
    }
  });

  it('matches the path as the gateway reads it: percent-encoded unreserved characters decoded first', () => {
    expect(pathAllowed(destination, '/v1/charge%73')).toBe(true);
    expect(pathAllowed(destination, '/v1/%72efunds/re_1')).toBe(true);
    expect(pathAllowed(destination, '/v1/%72efunds')).toBe(false);
    // A dot segment spelled with its letters encoded is still a dot segment.
    expect(pathAllowed(destination, '/v1/refunds/.%2E/admin')).toBe(false);
    expect(pathAllowed(destination, '/v1/refunds/./re_1')).toBe(false);
  });
});

describe("destinationRefusal: the destination's own Content-Type", () => {
  const [own, fromEnv] = parse([
    { ...acme, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } },
    { ...acme, name: 'env-typed', headers: { 'Content-Type': 'env:ACME_TYPE' } },
  ]).destinations as [TForwardDestination, TForwardDestination];
  const post = (headers?: Record<string, string>) => ({ method: 'POST', path: '/v1/charges', ...(headers ? { headers } : {}) });

  it('refuses a template Content-Type of another media type, at the header as the template names it', () => {
    expect(destinationRefusal(own, post({ 'content-type': 'application/json' }), 'test')).toEqual({
      path: 'headers.content-type', message: "must be the destination's own Content-Type (application/x-www-form-urlencoded), which the gateway receives",
    });
  });

  it('takes the same media type with other parameters or case, and a template without one', () => {
    expect(destinationRefusal(own, post({ 'Content-Type': 'Application/X-WWW-Form-Urlencoded; charset=utf-8' }), 'test')).toBeUndefined();
    expect(destinationRefusal(own, post(), 'test')).toBeUndefined();
  });

  it('judges an env: Content-Type where it is resolved (the worker), without quoting it', () => {
    expect(destinationRefusal(fromEnv, post({ 'Content-Type': 'application/json' }), 'test')).toBeUndefined();
    const { resolved } = resolveDestinationSecrets([fromEnv], { ACME_TYPE: 'application/xml' });
    expect(destinationRefusal(resolved[0]!, post({ 'Content-Type': 'application/json' }), 'test')).toEqual({
      path: 'headers.Content-Type', message: "must be the destination's own Content-Type, which the gateway receives",
    });
    expect(destinationRefusal(resolved[0]!, post({ 'Content-Type': 'text/xml' }), 'test')?.path).toBe('headers.Content-Type');
    expect(destinationRefusal(resolved[0]!, post({ 'Content-Type': 'application/xml' }), 'test')).toBeUndefined();
  });
});
