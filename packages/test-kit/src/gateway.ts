// A real local "payment gateway" for the forward proxy's tests: an HTTPS server on 127.0.0.1 whose
// certificate is signed by a test CA made here with the openssl CLI (.ci/run installs it), plus a
// plain-HTTP variant for an allowInsecure destination. Every request is recorded in arrival order.

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';

/** The test CA, a second unrelated one, and the certificates and keys they signed (PEM). */
export interface TTestPki {
  ca: string;
  serverCert: string;
  serverKey: string;
  /** A second CA, unrelated to `ca`, and a server certificate for 127.0.0.1 signed by it. */
  otherCa: string;
  otherServerCert: string;
  otherServerKey: string;
  /** Signed by `ca`, for mutual TLS. */
  clientCert: string;
  clientKey: string;
}

export interface TReceivedRequest {
  method: string;
  path: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  /** "CN=..." of the client certificate, when the gateway asked for one and got it. */
  clientCertSubject?: string;
}

export interface TGatewayExchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The received body text. */
  body: string;
  /** 1 for the gateway's first request. */
  n: number;
}
export type TGatewayHandler = (exchange: TGatewayExchange) => void;

export interface TTestGateway {
  /** https://127.0.0.1:PORT (http:// for startPlainGateway). */
  origin: string;
  requests: TReceivedRequest[];
  calls(): number;
  /** Stops listening and destroys every socket, held ones included. */
  close(): Promise<void>;
}

const run = promisify(execFile);
const pkiCache = new Map<string, Promise<TTestPki>>();
const CURVE = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
let serial = 0x1000;

async function openssl(dir: string, args: string[]): Promise<void> {
  await run('openssl', args, { cwd: dir });
}

async function makeCa(dir: string, name: string, cn: string): Promise<void> {
  await openssl(dir, [
    'req', '-x509', '-new', ...CURVE, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2',
    '-subj', `/CN=${cn}`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]);
}

/** A key and a certificate signed by the CA `ca`, with the given extensions. */
async function makeLeaf(dir: string, ca: string, name: string, cn: string, extensions: string): Promise<void> {
  await openssl(dir, ['req', '-new', ...CURVE, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`]);
  await writeFile(join(dir, `${name}.ext`), extensions);
  serial += 1;
  await openssl(dir, [
    'x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-set_serial', String(serial),
    '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.crt`,
  ]);
}

async function generatePki(dir: string): Promise<TTestPki> {
  const server = 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n';
  const client = 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n';
  await Promise.all([makeCa(dir, 'ca', 'Folio Vault Test Gateway CA'), makeCa(dir, 'other-ca', 'Unrelated Test CA')]);
  await Promise.all([
    makeLeaf(dir, 'ca', 'server', 'localhost', server),
    makeLeaf(dir, 'other-ca', 'other-server', 'localhost', server),
    makeLeaf(dir, 'ca', 'client', 'folio-vault-test-client', client),
  ]);
  const read = (file: string) => readFile(join(dir, file), 'utf8');
  const [ca, serverCert, serverKey, otherCa, otherServerCert, otherServerKey, clientCert, clientKey] = await Promise.all(
    ['ca.crt', 'server.crt', 'server.key', 'other-ca.crt', 'other-server.crt', 'other-server.key', 'client.crt', 'client.key'].map(read),
  );
  return { ca, serverCert, serverKey, otherCa, otherServerCert, otherServerKey, clientCert, clientKey } as TTestPki;
}

/** The test PKI, generated once per process (per `dir` when one is given) in a temp folder. */
export function createTestPki(dir?: string): Promise<TTestPki> {
  const key = dir ?? '';
  let pki = pkiCache.get(key);
  if (!pki) {
    pki = (async () => generatePki(dir ?? (await mkdtemp(join(tmpdir(), 'fv-gateway-pki-')))))();
    pkiCache.set(key, pki);
    pki.catch(() => pkiCache.delete(key));
  }
  return pki;
}

/** 200 JSON {"id":"ch_1","status":"succeeded","echo":<body text>} with x-request-id gw-<n>. */
export const defaultHandler: TGatewayHandler = ({ res, body, n }) => {
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `gw-${n}` });
  res.end(JSON.stringify({ id: 'ch_1', status: 'succeeded', echo: body }));
};

export function redirectTo(location: string): TGatewayHandler {
  return ({ res }) => {
    res.writeHead(302, { location, 'content-type': 'text/plain' });
    res.end('moved');
  };
}

/**
 * A JSON-ish body of exactly `n` bytes ({"pad":"xxx…"}), written in 64 KiB chunks as the socket
 * drains; with a content-length unless `declareLength` is false (then chunked, the size unknown upfront).
 */
export function answerBytes(n: number, { declareLength = true }: { declareLength?: boolean } = {}): TGatewayHandler {
  return ({ res }) => {
    const head = '{"pad":"';
    const tail = '"}';
    res.writeHead(200, { 'content-type': 'application/json', ...(declareLength ? { 'content-length': String(n) } : {}) });
    let left = n;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const write = () => {
      while (left > 0 && !res.destroyed) {
        const size = Math.min(left, chunk.length);
        const piece = Buffer.from(chunk.subarray(0, size));
        if (left === n) piece.write(head.slice(0, size), 0);
        if (left === size) piece.write(tail.slice(Math.max(0, tail.length - size)), Math.max(0, size - tail.length));
        left -= size;
        if (!res.write(piece)) return void res.once('drain', write);
      }
      if (left === 0) res.end();
    };
    write();
  };
}

/** Never answers: the request is held until the gateway closes. */
export function neverAnswer(): TGatewayHandler {
  return () => undefined;
}

/** Holds requests until release() (then answers as the default handler); `received` resolves on the first. */
export function holdUntilReleased(): { handler: TGatewayHandler; release: () => void; received: Promise<void> } {
  const held: TGatewayExchange[] = [];
  let released = false;
  let arrived: () => void = () => undefined;
  const received = new Promise<void>((resolve) => (arrived = resolve));
  const handler: TGatewayHandler = (exchange) => {
    arrived();
    if (released) defaultHandler(exchange);
    else held.push(exchange);
  };
  const release = () => {
    released = true;
    for (const exchange of held.splice(0)) if (!exchange.res.destroyed) defaultHandler(exchange);
  };
  return { handler, release, received };
}

export function failWith(status: number): TGatewayHandler {
  return ({ res, n }) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `gw-${n}` });
    res.end(JSON.stringify({ error: { code: 'gateway_error', status } }));
  };
}

function headerRecord(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function clientSubject(req: IncomingMessage): string | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  const subject = socket.getPeerCertificate?.()?.subject;
  if (!subject || Object.keys(subject).length === 0) return undefined;
  return Object.entries(subject).map(([key, value]) => `${key}=${String(value)}`).join(',');
}

async function serve(server: http.Server | https.Server, scheme: string, handler: TGatewayHandler): Promise<TTestGateway> {
  const requests: TReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const subject = clientSubject(req);
      requests.push({
        method: req.method ?? '', path: req.url ?? '', headers: headerRecord(req), body, ...(subject ? { clientCertSubject: subject } : {}),
      });
      handler({ req, res, body, n: requests.length });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${scheme}://127.0.0.1:${port}`,
    requests,
    calls: () => requests.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

export interface TGatewayOptions {
  pki: TTestPki;
  /** Serve the certificate signed by the unrelated CA. */
  useOtherCa?: boolean;
  /** Mutual TLS: refuse clients without a certificate signed by `pki.ca`. */
  requireClientCert?: boolean;
  handler?: TGatewayHandler;
}

export function startGateway(options: TGatewayOptions): Promise<TTestGateway> {
  const { pki, useOtherCa = false, requireClientCert = false } = options;
  const server = https.createServer({
    cert: useOtherCa ? pki.otherServerCert : pki.serverCert,
    key: useOtherCa ? pki.otherServerKey : pki.serverKey,
    ...(requireClientCert ? { requestCert: true, rejectUnauthorized: true, ca: pki.ca } : {}),
  });
  return serve(server, 'https', options.handler ?? defaultHandler);
}

/** The same gateway over plain HTTP, for an allowInsecure destination (development, demo). */
export function startPlainGateway(options: { handler?: TGatewayHandler } = {}): Promise<TTestGateway> {
  return serve(http.createServer(), 'http', options.handler ?? defaultHandler);
}
