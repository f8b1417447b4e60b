// `npm run webhook-receiver -- --secret whsec_… [--port 4000] [--count N]`
// A webhook receiver for trying the service on one machine (the README's session): it listens on
// 127.0.0.1, verifies each delivery (Standard Webhooks) under the endpoint's secret, answers 204,
// or 400 when the signature does not verify, and prints the event: a line with its type, its
// webhook-id and the verdict, then the body as it came. A GET is answered with one line saying it
// listens, and nothing printed: what a script waits on before it asks for an event (`curl
// --retry-connrefused`). With --count it exits after that many verified deliveries (0 when they
// verified), else it runs until Ctrl-C.

import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { fail, parseCommandLine } from './cli-support.js';

const COMMAND = 'webhook-receiver';
const HELP = `usage: npm run webhook-receiver -- --secret whsec_… [--port 4000] [--count N]

Listens on 127.0.0.1 for webhook deliveries, verifies each under the endpoint's secret (the
"secret" its creation answered) and prints it. A GET answers "listening on 127.0.0.1:PORT" (wait
for it with curl --retry-connrefused before asking for an event).

  --secret whsec_…  the endpoint's secret (required)
  --port N          the port to listen on (default 4000)
  --count N         exit after N verified deliveries (default: run until Ctrl-C)
  --help            this text`;

const { values } = parseCommandLine(COMMAND, HELP, {
  options: {
    secret: { type: 'string' },
    port: { type: 'string', default: '4000' },
    count: { type: 'string' },
  },
});
if (!values.secret?.startsWith('whsec_')) fail(COMMAND, '--secret must be the endpoint\'s secret (whsec_…)');
const port = Number(values.port);
if (!Number.isInteger(port) || port < 1 || port > 65_535) fail(COMMAND, `--port must be 1 to 65535 (got ${values.port})`);
const count = values.count === undefined ? Infinity : Number(values.count);
if (!(count >= 1) || (count !== Infinity && !Number.isInteger(count))) fail(COMMAND, `--count must be a positive integer (got ${values.count})`);

const webhook = new Webhook(values.secret);
let verified = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.end(`listening on 127.0.0.1:${port}\n`);
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    // Verified on the raw body, before it is parsed: the signature covers the bytes sent.
    const body = Buffer.concat(chunks).toString('utf8');
    const id = String(req.headers['webhook-id'] ?? '(no webhook-id)');
    let event: { type?: string } | undefined;
    try {
      event = webhook.verify(body, req.headers as Record<string, string>) as { type?: string };
    } catch {
      event = undefined;
    }
    console.log(event ? `${event.type} ${id}: signature verified` : `${req.method} ${req.url} ${id}: signature does NOT verify (answered 400)`);
    console.log(body);
    const done = event !== undefined && (verified += 1) >= count;
    res.statusCode = event ? 204 : 400;
    // The answer goes out before the exit, so the delivery is recorded as succeeded.
    res.end(() => {
      if (done) process.exit(0);
    });
  });
});

server.on('error', (error) => fail(COMMAND, error.message, 1));
server.listen(port, '127.0.0.1');
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
