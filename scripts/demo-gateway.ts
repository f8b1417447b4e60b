// `npm run demo`'s payment gateway: plain HTTP on 127.0.0.1 at a free port, for a destination with
// `allowInsecure: true` (development only; refused when NODE_ENV=production). It answers
// `POST /v1/charges` like a card gateway — a charge id derived from the Idempotency-Key, and the
// card number it received echoed back — so the demo can show that the vault masks the answer.
// It keeps nothing but a count of the charges it took.
//
// On its own, for the curl session of docs/vault.md#forward-to-a-payment-gateway:
// `DEMO_GATEWAY_KEY='Bearer sk_test_demo' npx tsx scripts/demo-gateway.ts [PORT]` (default 4242).

import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

/** A running demo gateway: its origin, the charges it took, and how to close it. */
export interface TDemoGateway {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The charges this gateway answered 200. */
  charges(): number;
  close(): Promise<void>;
}

/** The Authorization header the gateway wants (set on the destination as `env:<name>`). */
export type TDemoGatewayOptions = { authorization: string; port?: number };

const MAX_BODY = 64 * 1024;

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'request-id': `req_demo_${Date.now()}` });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function charge(body: string, idempotencyKey: string): { status: number; body: unknown } {
  let request: { amount?: unknown; currency?: unknown; card?: { number?: unknown } };
  try {
    request = JSON.parse(body) as typeof request;
  } catch {
    return { status: 400, body: { error: { type: 'invalid_request', message: 'body is not JSON' } } };
  }
  const number = typeof request.card?.number === 'string' ? request.card.number : '';
  if (!/^\d{12,19}$/.test(number)) return { status: 402, body: { error: { type: 'card_error', message: 'card.number is missing' } } };
  return {
    status: 200,
    body: {
      id: `ch_${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 16)}`,
      status: 'succeeded',
      amount: request.amount,
      currency: request.currency,
      card: { number, last4: number.slice(-4) },
    },
  };
}

export async function startDemoGateway(options: TDemoGatewayOptions): Promise<TDemoGateway> {
  let charges = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      if (req.method !== 'POST' || req.url !== '/v1/charges') return answer(res, 404, { error: { type: 'not_found' } });
      if (req.headers.authorization !== options.authorization) return answer(res, 401, { error: { type: 'authentication_error' } });
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || key === '') return answer(res, 400, { error: { type: 'invalid_request', message: 'Idempotency-Key is required' } });
      const result = charge(body, key);
      if (result.status === 200) charges += 1;
      answer(res, result.status, result.body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    charges: () => charges,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const authorization = process.env.DEMO_GATEWAY_KEY;
  const port = Number(process.argv[2] ?? 4242);
  if (!authorization || !Number.isInteger(port) || port < 1 || port > 65_535) {
    console.error('demo-gateway: set DEMO_GATEWAY_KEY (the Authorization value it wants) and give a port (default 4242)');
    process.exit(2);
  }
  const gateway = await startDemoGateway({ authorization, port });
  console.log(`demo-gateway: listening on ${gateway.origin}; POST /v1/charges wants Authorization: <DEMO_GATEWAY_KEY>`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void gateway.close().then(() => process.exit(0)));
}
