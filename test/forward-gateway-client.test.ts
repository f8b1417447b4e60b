import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TResolvedDestination } from '@folio-vault/shared/vault/forward/destinations';
import { GatewayClients, GatewayError, NotSentError, type TGatewayRequest } from '@folio-vault/worker/vault/forward/gateway-client';
import { answerBytes, createTestPki, neverAnswer, redirectTo, startGateway, startPlainGateway } from '@folio-vault/test-kit/gateway';
import type { TGatewayHandler, TTestGateway, TTestPki } from '@folio-vault/test-kit/gateway';

/**
 * The forward proxy's gateway client against real local HTTPS "gateways" (packages/test-kit/src/gateway.ts)
 * with certificates from a test CA. No timing is asserted beyond "it ended" (a 5 s bound on the
 * time-out case only proves it did not hang).
 */
let pki: TTestPki;
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  pki = await createTestPki();
});

afterAll(async () => {
  await Promise.all(opened.map((thing) => thing.close()));
});

async function gateway(options: Omit<Parameters<typeof startGateway>[0], 'pki'> = {}): Promise<TTestGateway> {
  const started = await startGateway({ pki, ...options });
  opened.push(started);
  return started;
}

function destination(origin: string, overrides: Partial<TResolvedDestination> = {}): TResolvedDestination {
  const url = new URL(origin);
  return {
    name: 'acme-pay',
    url: origin,
    origin: url.origin,
    basePath: '',
    modes: ['test'],
    paths: ['/charges'],
    methods: ['POST'],
    headers: {},
    timeoutMs: 5_000,
    allowInsecure: false,
    resolvedHeaders: {},
    tls: { ca: pki.ca },
    ...overrides,
  };
}

/** FORWARD_MAX_ANSWER_BYTES's default. */
const MAX_ANSWER_BYTES = 262_144;

function clients(...destinations: TResolvedDestination[]): GatewayClients {
  const built = new GatewayClients(destinations, { maxAnswerBytes: MAX_ANSWER_BYTES });
  opened.push(built);
  return built;
}

const POST: TGatewayRequest = { method: 'POST', path: '/charges', headers: { 'content-type': 'application/json' }, body: '{"a":1}' };

async function gatewayError(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure);
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

/** A bare TCP server on 127.0.0.1, closed (its sockets destroyed) after the file; answers its port. */
async function tcpServer(onSocket: (socket: net.Socket) => void): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  opened.push({
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    }),
  });
  return (server.address() as net.AddressInfo).port;
}

/** A TCP port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a request that reaches the gateway', () => {
  it('carries the body, the destination headers over the caller ones, the content-length and the basePath', async () => {
    const gw = await gateway();
    const body = '{"number":"4242424242424242","amount":1250,"name":"Zoë"}';
    const client = clients(
      destination(`${gw.origin}/v1`, {
        basePath: '/v1',
        resolvedHeaders: { Authorization: 'Bearer sk_test_destination', 'x-account': 'acct_1' },
      }),
    );
    const answer = await client.send('acme-pay', {
      method: 'POST',
      path: '/charges?expand=card',
      headers: { 'Content-Type': 'application/json', authorization: 'Bearer caller', 'Idempotency-Key': 'idem-1', Host: 'evil.example' },
      body,
    });

    expect(gw.requests).toHaveLength(1);
    const [received] = gw.requests;
    expect(received!.method).toBe('POST');
    expect(received!.path).toBe('/v1/charges?expand=card');
    expect(received!.body).toBe(body);
    expect(received!.headers).toMatchObject({
      authorization: 'Bearer sk_test_destination',
      'x-account': 'acct_1',
      'content-type': 'application/json',
      'idempotency-key': 'idem-1',
      'content-length': '57',
      'user-agent': 'folio-vault',
      host: gw.origin.slice('https://'.length),
    });
    expect([body.length, Buffer.byteLength(body)]).toEqual([56, 57]);
    expect(answer.status).toBe(200);
    expect(answer.headers).toEqual({ 'content-type': 'application/json', date: expect.any(String), 'x-request-id': 'gw-1' });
    expect(JSON.parse(answer.body)).toEqual({ id: 'ch_1', status: 'succeeded', echo: body });
    expect(Number.isInteger(answer.durationMs)).toBe(true);
  });

  it('keeps only content-type, date and the request-id headers of the answer', async () => {
    const ids = {
      'x-request-id': 'a', 'request-id': 'b', 'x-correlation-id': 'c', 'correlation-id': 'd', 'x-trace-id': 'e',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    };
    const handler: TGatewayHandler = ({ res }) => {
      res.writeHead(402, { ...ids, 'content-type': 'text/plain', 'set-cookie': 'sid=1', server: 'acme', 'x-card': '4242' });
      res.end('declined');
    };
    const gw = await gateway({ handler });
    const answer = await clients(destination(gw.origin)).send('acme-pay', { method: 'GET', path: '/charges/ch_1', headers: {} });
    expect(answer).toMatchObject({ status: 402, body: 'declined' });
    expect(answer.headers).toEqual({ ...ids, 'content-type': 'text/plain', date: expect.any(String) });
    expect(gw.requests[0]!.headers['content-length']).toBeUndefined();
    expect(gw.requests[0]!.path).toBe('/charges/ch_1');
  });

  it("keeps content-type, date and the headers a destination's answer allowlist names, nothing else", async () => {
    const handler: TGatewayHandler = ({ res }) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'a', 'x-outcome': 'approved', 'set-cookie': 'sid=1' });
      res.end('{}');
    };
    const gw = await gateway({ handler });
    const listed = clients(destination(gw.origin, { answer: { headers: ['x-outcome'] } }));
    expect((await listed.send('acme-pay', POST)).headers).toEqual({ 'content-type': 'application/json', date: expect.any(String), 'x-outcome': 'approved' });
    const none = clients(destination(gw.origin, { answer: { json: [['id']] } }));
    expect((await none.send('acme-pay', POST)).headers).toEqual({ 'content-type': 'application/json', date: expect.any(String) });
  });

  it('answers a body of exactly the cap', async () => {
    const gw = await gateway({ handler: answerBytes(MAX_ANSWER_BYTES, { declareLength: false }) });
    const answer = await clients(destination(gw.origin)).send('acme-pay', POST);
    expect(answer.body.length).toBe(MAX_ANSWER_BYTES);
    expect(answer.body.startsWith('{"pad":"x')).toBe(true);
    expect(answer.body.endsWith('x"}')).toBe(true);
  });

  it('talks plain HTTP only to a destination that allows it', async () => {
    const gw = await startPlainGateway();
    opened.push(gw);
    const answer = await clients(destination(gw.origin, { allowInsecure: true, tls: {} })).send('acme-pay', POST);
    expect(answer.status).toBe(200);
    expect(() => new GatewayClients([destination(gw.origin, { tls: {} })], { maxAnswerBytes: MAX_ANSWER_BYTES })).toThrow(
      'forward destination "acme-pay" must use https (or allow insecure http)',
    );
  });

  it('refuses an unknown destination name', async () => {
    await expect(clients().send('nobody', POST)).rejects.toThrow(new NotSentError('unknown forward destination "nobody"'));
  });
});

describe('TLS', () => {
  it('presents the client certificate to a gateway that requires one', async () => {
    const gw = await gateway({ requireClientCert: true });
    const tls = { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey };
    const answer = await clients(destination(gw.origin, { tls })).send('acme-pay', POST);
    expect(answer.status).toBe(200);
    expect(gw.requests[0]!.clientCertSubject).toBe('CN=folio-vault-test-client');
  });

  // TLS 1.3: the client's handshake is done before the server checks for a certificate, so the
  // server's refusal reaches undici as the connection closing ("other side closed"), not a TLS error:
  // the vault cannot tell it from a gateway that read the request and hung up, so it says "may have".
  it('fails as reset without the client certificate the gateway requires', async () => {
    const gw = await gateway({ requireClientCert: true });
    const error = await gatewayError(clients(destination(gw.origin)).send('acme-pay', POST));
    expect({ code: error.code, failure: error.failure, detail: error.detail }).toEqual({
      code: 'GATEWAY_UNREACHABLE', failure: 'reset', detail: 'UND_ERR_SOCKET',
    });
    expect(gw.calls()).toBe(0);
  });

  it('refuses a server certificate not signed by the destination CA', async () => {
    const gw = await gateway({ useOtherCa: true });
    const error = await gatewayError(clients(destination(gw.origin)).send('acme-pay', { ...POST, body: '{"number":"4242424242424242"}' }));
    expect({ code: error.code, failure: error.failure, detail: error.detail }).toEqual({
      code: 'GATEWAY_UNREACHABLE', failure: 'tls', detail: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
    expect(error.message).toBe('the payment gateway "acme-pay" failed TLS verification against the certificates configured for it');
    expect(gw.calls()).toBe(0);
  });
});

describe('answers refused', () => {
  it('never follows a redirect', async () => {
    const target = await gateway();
    const gw = await gateway({ handler: redirectTo(`${target.origin}/steal`) });
    const error = await gatewayError(clients(destination(gw.origin)).send('acme-pay', POST));
    expect({ code: error.code, failure: error.failure, detail: error.detail }).toEqual({
      code: 'GATEWAY_UNREACHABLE', failure: 'redirect', detail: '302',
    });
    expect(gw.calls()).toBe(1);
    expect(target.calls()).toBe(0);
  });

  it.each([true, false])('refuses an answer one byte over the cap (content-length declared: %s)', async (declareLength) => {
    const gw = await gateway({ handler: answerBytes(MAX_ANSWER_BYTES + 1, { declareLength }) });
    const error = await gatewayError(clients(destination(gw.origin)).send('acme-pay', POST));
    expect({ code: error.code, failure: error.failure }).toEqual({ code: 'FORWARD_ANSWER_TOO_LARGE', failure: 'too_large' });
    expect(error.message).toBe(
      'the payment gateway "acme-pay" answered with a body over 262144 bytes (FORWARD_MAX_ANSWER_BYTES), which was not read: it received the request and may have acted on it',
    );
  });

  it('answers malformed HTTP as protocol', async () => {
    const port = await tcpServer((socket) => socket.end('HELLO THERE\r\n\r\n'));
    const plain = destination(`http://127.0.0.1:${port}`, { allowInsecure: true, tls: {} });
    const error = await gatewayError(clients(plain).send('acme-pay', POST));
    expect({ code: error.code, failure: error.failure }).toEqual({ code: 'GATEWAY_UNREACHABLE', failure: 'protocol' });
    expect(error.detail).toBe('HTTPParserError');
    expect(error.message).toBe('the payment gateway "acme-pay" answered with malformed HTTP');
  });
});

describe('unreachable and slow gateways', () => {
  it('times out a gateway that never answers', async () => {
    const gw = await gateway({ handler: neverAnswer() });
    const started = Date.now();
    const error = await gatewayError(clients(destination(gw.origin, { timeoutMs: 300 })).send('acme-pay', POST));
    expect({ code: error.code, failure: error.failure }).toEqual({ code: 'GATEWAY_TIMEOUT', failure: 'timeout' });
    expect(error.message).toBe('the payment gateway "acme-pay" did not answer within its time-out');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(gw.calls()).toBe(1);
  });

  it('times out a body that stops half-way', async () => {
    const gw = await gateway({
      handler: ({ res }) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id":"ch_1",');
      },
    });
    const error = await gatewayError(clients(destination(gw.origin, { timeoutMs: 300 })).send('acme-pay', POST));
    expect({ code: error.code, failure: error.failure }).toEqual({ code: 'GATEWAY_TIMEOUT', failure: 'timeout' });
  });

  it('fails as reset, not as "nothing sent", when the gateway reads the request and closes the connection', async () => {
    const gw = await gateway({ handler: ({ req }) => req.socket.destroy() });
    const error = await gatewayError(clients(destination(gw.origin)).send('acme-pay', POST));
    expect({ code: error.code, failure: error.failure }).toEqual({ code: 'GATEWAY_UNREACHABLE', failure: 'reset' });
    expect(error.message).toBe('the payment gateway "acme-pay" closed the connection without an answer: it may have received the request');
    expect(gw.calls()).toBe(1);
  });

  it('fails as connect on a closed port', async () => {
    const port = await closedPort();
    const error = await gatewayError(clients(destination(`https://127.0.0.1:${port}`)).send('acme-pay', POST));
    expect({ code: error.code, failure: error.failure, detail: error.detail }).toEqual({
      code: 'GATEWAY_UNREACHABLE', failure: 'connect', detail: 'ECONNREFUSED',
    });
  });
});

describe('the configured host only', () => {
  let port = 0;
  let decoyConnections = 0;

  beforeAll(async () => {
    port = await tcpServer((socket) => {
      decoyConnections += 1;
      socket.destroy();
    });
  });

  it('sends a path naming another host to the configured origin', async () => {
    const gw = await gateway();
    const client = clients(destination(gw.origin));
    const answer = await client.send('acme-pay', { ...POST, path: `//127.0.0.1:${port}/x` });
    expect(answer.status).toBe(200);
    expect(gw.requests.map((request) => request.path)).toEqual([`//127.0.0.1:${port}/x`]);
    expect(decoyConnections).toBe(0);
  });

  it('refuses an absolute URL as the path before sending anything', async () => {
    const gw = await gateway();
    const client = clients(destination(gw.origin), destination(`${gw.origin}/v1`, { name: 'based', basePath: '/v1' }));
    for (const name of ['acme-pay', 'based']) {
      const sent = client.send(name, { ...POST, path: `https://127.0.0.1:${port}/x` });
      await expect(sent).rejects.toThrow(`the request path for forward destination "${name}" must start with "/"`);
      // Not a gateway failure: nothing was sent (the forwarder releases the attempt on it).
      await expect(sent).rejects.toBeInstanceOf(NotSentError);
    }
    expect(gw.calls()).toBe(0);
    expect(decoyConnections).toBe(0);
  });
});
