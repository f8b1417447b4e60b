import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, futureYear } from '@folio-vault/test-kit/cards';
import { createTestPki, startGateway, type TTestGateway } from '@folio-vault/test-kit/gateway';
import { ROOT, type TSpawned } from '@folio-vault/test-kit/processes';
import { killGroup, logLines, startApiProcess, startWorkerProcess, until } from './support/faults.js';
import { startOtlpReceiver, type TOtlpReceiver, type TReceivedSpan } from '@folio-vault/test-kit/otlp-receiver';
import { findCvvs, findPans, withoutJsonNumbers } from './support/secret-scan.js';
import { COMPANY, importFrenchHotel } from './support/fiscal-fixture.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * Tracing (docs/operations.md#tracing): the API and the worker run as processes of their own with
 * OTEL_* set, exporting to a real OTLP/HTTP receiver started here — the API in protobuf, the worker
 * (and its render processes) in JSON. A tokenize, a forward to an HTTPS gateway, an export that
 * delivers its webhook, a night audit of 20 sources and an invoice issued (property 2, a French
 * hotel: support/fiscal-fixture.ts) each make one trace across the processes,
 * checked by trace and span ids; then every exported span is scanned for the card, the CVV, the
 * holder's name, the JWTs, the webhook secret, the link's signature and the forward's template.
 * That the processes load no tracing code with tracing off is checked on the compiled service
 * (compiled-start.test.ts).
 */
const PAN = '378282246310005';
const CVV = '7391';
const HOLDER = 'Zoë Łukasiewicz';
const BUSINESS_DATE = '2026-11-21';
const SOURCES = 20;
const TEMPLATE = JSON.stringify({ amount: 1000, card: { number: '{{card.number}}', cvc: '{{card.cvv}}' } });

const KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

const tx = (id: number, folioId: number, sourceId: number) => ({
  id, folioId, sourceKind: 'RESERVATION', sourceId, transactionDatetime: `${BUSINESS_DATE}T12:00:00Z`, serviceDate: BUSINESS_DATE,
  internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: `Night ${id}`, quantity: 1, amount: '110.00', currency: 'EUR', posted: true,
});
/** Property 1 with 20 reservations (500…519), each with a night on the business date. */
const LEDGER = {
  property: { id: 1, name: 'Hotel Traza', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test', language: 'en' },
  folios: Array.from({ length: SOURCES }, (_, i) => ({ id: 100 + i, sourceKind: 'RESERVATION', sourceId: 500 + i, name: `Guest ${i}` })),
  transactions: Array.from({ length: SOURCES }, (_, i) => tx(1000 + i, 100 + i, 500 + i)),
};

let receiver: TOtlpReceiver;
let gateway: TTestGateway;
let world: TWorld;
let api: { url: string; process: TSpawned };
let worker: TSpawned;
let modulesDir: string;
const hooks = new WebhookReceiver();
/** What must never be in a span, gathered as the tests make it. */
const secrets = { jwts: [] as string[], webhookSecrets: [] as string[], signatures: [] as string[] };

const headers = (scope = 'use:payment read:payment write:payment', property = '1') => {
  const token = world.token({ properties: [Number(property)], scope });
  secrets.jwts.push(token);
  return { Authorization: `Bearer ${token}`, 'X-Property-Id': property };
};
const vault = () => ({ ...headers(), 'SVC-Tokenization-Mode': 'test' });

// ---- the received spans ----------------------------------------------------------------------

const spans = () => receiver.spans;
const named = (name: string, among = spans()) => among.filter((span) => span.name === name);
const childrenOf = (parent: TReceivedSpan) => spans().filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId);
const childNamed = (parent: TReceivedSpan, name: string) => childrenOf(parent).filter((span) => span.name === name);
const service = (span: TReceivedSpan) => span.resource['service.name'];

/** The one span matching, once it has arrived (the exporters send in batches). */
async function arrived(what: string, match: (span: TReceivedSpan) => boolean): Promise<TReceivedSpan> {
  await receiver.until((all) => all.some(match));
  const found = spans().filter(match);
  expect(found, what).toHaveLength(1);
  return found[0]!;
}

/** The one child of `parent` named `name`, once it has arrived. */
const child = (parent: TReceivedSpan, name: string) => arrived(`${name} under ${parent.name}`, (span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId && span.name === name);

/** The API's server span of the one request to `route` (named by the route's pattern). */
async function serverSpan(route: string, method = 'POST'): Promise<TReceivedSpan> {
  const server = await arrived(`${method} ${route}`, (span) => span.kind === KIND.server && span.attributes['http.route'] === route && span.attributes['http.request.method'] === method);
  expect(service(server)).toBe('folio-vault-api');
  expect(server.parentSpanId).toBe('');
  expect(server.name).toBe(`${method} ${route}`);
  expect(server.attributes['url.query']).toBeUndefined();
  return server;
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  await hooks.start();
  const pki = await createTestPki();
  gateway = await startGateway({ pki });
  const destination = { name: 'acme', url: gateway.origin, modes: ['test'], paths: ['/v1/charges'], methods: ['POST'], ca: pki.ca };
  world = await createWorld({
    worker: false,
    env: {
      LOG_LEVEL: 'info', VAULT_FORWARD_DESTINATIONS: JSON.stringify([destination]), VAULT_CVV_HOLD_SECONDS: '600',
      WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true',
    },
  });
  // The ledger through this process's own API, which is not traced.
  const imported = await request(world.url).post('/accounting/v1.0/import').set(headers()).send(LEDGER);
  expect(imported.status, imported.text).toBe(200);
  await importFrenchHotel(world, world.token({ properties: [2], scope: 'read:payment write:payment' }), [501], 2);
  modulesDir = mkdtempSync(join(tmpdir(), 'fvt-modules-'));
  const tracing = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    NODE_OPTIONS: `--import=${join(ROOT, 'test/support/record-modules.mjs')}`,
    LOADED_MODULES_DIR: modulesDir,
  };
  [api, worker] = await Promise.all([
    startApiProcess({ ...world.env, ...tracing, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', LOG_LEVEL: 'debug' }),
    startWorkerProcess({ ...world.env, ...tracing, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', EXPORT_CONCURRENCY: '2' }),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([killGroup(api?.process), killGroup(worker)]);
  await world?.close();
  await gateway?.close();
  await hooks.close();
  await receiver?.close();
  if (modulesDir) rmSync(modulesDir, { recursive: true, force: true });
  if (world) rmSync(world.config.STORAGE_DIR, { recursive: true, force: true });
});

describe('one trace from the request to the worker, the render processes, the gateway and the receiver', () => {
  let tokenId: string;

  it('a tokenize: the API request, the job added, the worker processing it and its PostgreSQL statements; the log line names the span', async () => {
    const res = await request(api.url).post('/vault/v1/tokens/card').set(vault()).set('Idempotency-Key', 'trace-tokenize')
      .send(cardBody({ card_number: PAN, cvv: CVV, cardholder_name: HOLDER, expiration: { month: '07', year: futureYear(2) } }));
    expect(res.status, res.text).toBe(200);
    tokenId = res.body.id;

    const server = await serverSpan('/vault/v1/tokens/card');
    expect(server.attributes['http.response.status_code']).toBe(200);
    // The rate limiter's script, a Redis command under the request.
    expect(childrenOf(server).map((span) => [span.name, span.kind, span.attributes['db.query.text']])).toContainEqual(['evalsha', KIND.client, 'evalsha']);
    const added = await child(server, 'add vault.tokenize-card');
    expect(added.kind).toBe(KIND.producer);
    // BullMQ's own Redis command is the producer span itself, not a span of its own.
    expect(childrenOf(added).filter((span) => span.kind !== KIND.consumer)).toEqual([]);
    const processed = await child(added, 'process vault');
    expect([processed.kind, service(processed), processed.attributes['bullmq.job.name']]).toEqual([KIND.consumer, 'folio-vault-worker', 'tokenize-card']);
    expect(processed.resource['process.pid']).not.toBe(server.resource['process.pid']);
    // The card's row, by its statement's text: its parameters are never recorded.
    const statements = childrenOf(processed).filter((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(statements.some((span) => /INSERT INTO vault_test\.cards/.test(String(span.attributes['db.query.text'])))).toBe(true);
    expect(statements.every((span) => span.attributes['db.postgresql.values'] === undefined)).toBe(true);
    expect(processed.events.map((event) => event.name)).toEqual(['job completed']);
    expect(childNamed(processed, 'complete vault')).toEqual([]);

    const [done] = logLines(worker, 'job done').filter((line) => line.jobId === processed.attributes['bullmq.job.id']);
    expect(done).toMatchObject({ trace_id: processed.traceId, span_id: processed.spanId });
    // pino-http's line of the request (at debug), in the API's process.
    const completed = await until(async () => logLines(api.process, 'request completed').find((line) => line.requestId === res.headers['x-request-id']), 10_000, 'the request\'s log line');
    expect(completed).toMatchObject({ trace_id: server.traceId, span_id: server.spanId });
  });

  it('a forward: the worker\'s gateway call names the destination and the status, and its HTTPS request only the origin', async () => {
    const res = await request(api.url).post(`/vault/v1/tokens/${tokenId}/forward`).set(vault()).set('Idempotency-Key', 'trace-forward')
      .send({ destination: 'acme', path: '/v1/charges?card={{card.number}}', headers: { 'Content-Type': 'application/json' }, body: TEMPLATE });
    expect(res.status, res.text).toBe(200);
    expect(gateway.calls()).toBe(1);

    const server = await serverSpan('/vault/v1/tokens/:id/forward');
    const added = await child(server, 'add vault-forward.forward-card-token');
    const processed = await child(added, 'process vault-forward');
    const call = await child(processed, 'forward gateway call');
    expect(call.attributes).toEqual({ 'folio.forward.destination': 'acme', 'http.request.method': 'POST', 'http.response.status_code': 200 });
    const sent = await child(call, 'POST');
    expect(sent.kind).toBe(KIND.client);
    expect(sent.attributes).toMatchObject({ 'url.full': gateway.origin, 'http.response.status_code': 200 });
    expect([sent.attributes['url.path'], sent.attributes['url.query']]).toEqual([undefined, undefined]);
  });

  it('an export: the render (pages, rows) with its piece in a render process, the upload, then the webhook delivery attempt', async () => {
    const endpoint = await request(api.url).post('/webhooks/v1/endpoints').set(headers()).send({ url: hooks.url('/done'), events: ['export.completed'] });
    expect(endpoint.status, endpoint.text).toBe(201);
    secrets.webhookSecrets.push(endpoint.body.secret);
    hooks.register('/done', endpoint.body.secret);
    const started = await request(api.url).post('/fiscal-document/v1/folios/export').set(headers()).set('Prefer', 'respond-async').send({ sourceKind: 'RESERVATION', sourceId: '500' });
    expect(started.status, started.text).toBe(202);
    const [delivered] = await until(async () => (hooks.at('/done').length ? hooks.at('/done') : undefined), 30_000, 'export.completed');
    expect(delivered!.verified).toBe(true);
    const link = String(delivered!.body!.data.downloadUrl);
    secrets.signatures.push(new URL(link, api.url).searchParams.get('signature')!);
    // The signed link, fetched through the traced API: its query string is never recorded.
    const file = await request(api.url).get(link);
    expect(file.status).toBe(200);
    expect((await serverSpan('/fiscal-document/v1/folios/exports/:exportId/file', 'GET')).attributes['url.path']).toBe(new URL(link, api.url).pathname);

    const server = await serverSpan('/fiscal-document/v1/folios/export');
    const processed = await child(await child(server, 'add folio-export.export-folio'), 'process folio-export');
    const render = await child(processed, 'render PDF');
    expect(render.attributes).toEqual({ 'folio.export.format': 'PDF', 'folio.render.priority': 'on-demand', 'folio.render.pages': 1, 'folio.render.rows': 1 });
    const piece = await child(render, 'render pdf-chunk');
    expect(piece.resource).toMatchObject({ 'service.name': 'folio-vault-worker', 'folio_vault.process': 'render' });
    expect(piece.resource['process.pid']).not.toBe(render.resource['process.pid']);
    expect(piece.attributes).toEqual({ 'folio.render.piece': 'pdf-chunk', 'folio.render.pages': 1 });
    const upload = await child(processed, 'storage upload');
    expect(upload.attributes).toEqual({ 'folio.storage.driver': 'fs', 'folio.storage.key': `exports/1/${started.body.exportId}.pdf`, 'folio.storage.bytes': delivered!.body!.data.size });

    const delivery = await child(await child(processed, 'addBulk webhooks'), 'process webhooks');
    const attempt = await child(delivery, 'webhook delivery attempt');
    expect(attempt.attributes).toMatchObject({ 'folio.webhook.event': 'export.completed', 'folio.webhook.endpoint_id': endpoint.body.id, 'folio.webhook.attempt': 1, 'http.response.status_code': 200 });
    const sent = await child(attempt, 'POST');
    expect(sent.attributes).toMatchObject({ 'url.full': `http://127.0.0.1:${hooks.port}`, 'http.response.status_code': 200 });
  });

  it('a night audit of 20 sources: the batch span under the request, its manifest job its child, each piece a trace of its own linked to it', { timeout: 90_000 }, async () => {
    const res = await request(api.url).post('/fiscal-document/v1/night-audit/exports').set(headers()).send({ businessDate: BUSINESS_DATE });
    expect(res.status, res.text).toBe(202);
    const batchId = res.body.batchId as string;
    await until(async () => {
      const status = await request(api.url).get(`/fiscal-document/v1/night-audit/exports/${batchId}`).set(headers());
      return status.body.status === 'completed' ? status.body : undefined;
    }, 60_000, 'the batch to complete');

    const server = await serverSpan('/fiscal-document/v1/night-audit/exports');
    const batch = await child(server, 'night-audit batch');
    expect(batch.attributes).toMatchObject({ 'folio.night_audit.batch_id': batchId, 'folio.night_audit.run': 1, 'folio.night_audit.sources': SOURCES });
    // One producer span for the whole flow, none per node; the manifest's job is the batch's child.
    await child(batch, 'addFlow night-audit');
    expect(spans().filter((span) => span.name.startsWith('addNode'))).toEqual([]);
    const manifest = await child(batch, 'process night-audit');
    const manifestUpload = await child(manifest, 'storage upload');
    expect(manifestUpload.attributes['folio.storage.key']).toBe(`night-audit/1/${BUSINESS_DATE}/manifest.json`);

    // Every source's file, each uploaded in a piece's own trace, linked to the batch span.
    const sourceKey = (n: number) => `night-audit/1/${BUSINESS_DATE}/RESERVATION-${500 + n}.pdf`;
    const jobs = Number(batch.attributes['folio.night_audit.jobs']);
    // Each piece's spans come from the worker and from a render process, each exporting on its own.
    const rendered = (piece: TReceivedSpan) => childNamed(piece, 'render PDF').some((render) => childNamed(render, 'render pdf-chunk').length === 1);
    await receiver.until((all) => {
      const uploaded = Array.from({ length: SOURCES }, (_, n) => sourceKey(n)).every((key) => all.some((span) => span.attributes['folio.storage.key'] === key));
      const done = named('process night-audit-export', all);
      return uploaded && done.length === jobs && done.every(rendered);
    });
    const pieces = named('process night-audit-export');
    for (const piece of pieces) {
      expect([piece.parentSpanId, piece.links]).toEqual(['', [{ traceId: batch.traceId, spanId: batch.spanId }]]);
      expect(piece.traceId).not.toBe(batch.traceId);
      expect(childNamed(piece, 'render PDF')).toHaveLength(1);
    }
    const uploads = spans().filter((span) => span.name === 'storage upload' && String(span.attributes['folio.storage.key']).includes('RESERVATION-'));
    expect(uploads.map((span) => pieces.some((piece) => piece.spanId === span.parentSpanId))).toEqual(uploads.map(() => true));
    // The batch's own trace holds its request, its flow and its manifest, not its sources' work.
    const batchTrace = spans().filter((span) => span.traceId === server.traceId);
    expect(batchTrace.filter((span) => span.name.startsWith('render') || span.name === 'process night-audit-export')).toEqual([]);
  });

  it('an invoice: its issue (the number taken) and validation in the API, its files rendered and stored by the worker', async () => {
    const issued = await request(api.url).post('/fiscal-document/v1/invoices').set(headers('read:payment write:payment', '2'))
      .send({ sourceKind: 'RESERVATION', sourceId: 501, recipient: { type: 'COMPANY', id: COMPANY.id }, formats: ['FACTURX', 'CII', 'UBL'] });
    expect(issued.status, issued.text).toBe(201);
    const invoiceId = issued.body.id as string;

    const server = await serverSpan('/fiscal-document/v1/invoices');
    const issue = await child(server, 'invoice issue');
    expect(issue.attributes).toMatchObject({ 'folio.property_id': '2', 'folio.invoice.id': invoiceId, 'folio.invoice.number': issued.body.number, 'folio.invoice.folios': 1, 'folio.invoice.formats': ['FACTURX', 'CII', 'UBL'] });
    const validation = await child(issue, 'invoice validation');
    expect([validation.attributes['folio.invoice.rows'], validation.status.code]).toEqual([14, 0]);
    const processed = await child(await child(server, 'add folio-export.render-fiscal-document'), 'process folio-export');
    const render = await child(processed, 'render Factur-X');
    await child(render, 'render facturx');
    await receiver.until((all) => all.filter((span) => span.parentSpanId === processed.spanId && span.name === 'storage upload').length === 3);
    expect(childNamed(processed, 'storage upload').map((span) => span.attributes['folio.storage.key']).sort()).toEqual(
      ['cii.xml', 'factur-x.pdf', 'ubl.xml'].map((file) => `fiscal/2/${invoiceId}/${file}`),
    );
  });

  it('makes no trace of its own for BullMQ\'s polling and housekeeping, or for a Redis command outside a traced request or job', () => {
    const roots = spans().filter((span) => span.parentSpanId === '');
    const kinds = roots.map((span) => (span.kind === KIND.server ? 'request' : span.kind === KIND.consumer && span.links.length === 1 ? 'linked piece' : span.name));
    expect(new Set(kinds)).toEqual(new Set(['request', 'linked piece']));
    expect(spans().filter((span) => /^(getNextJob|extendLocks|moveStalledJobsToWait|startStalledCheckTimer)/.test(span.name))).toEqual([]);
    // A job's return value (a vault job's is the client's answer) is neither an attribute nor an event's.
    const results = spans().filter((span) => [span.attributes, ...span.events.map((event) => event.attributes)].some((attributes) => 'bullmq.job.result' in attributes));
    expect(results).toEqual([]);
    expect(spans().some((span) => span.events.some((event) => event.name === 'job completed'))).toBe(true);
  });

  it('exports no card data or secret in any span: attributes, events, statements, URLs', () => {
    const decoded = JSON.stringify(spans());
    const text = [decoded, ...receiver.bodies].join('\n');
    expect(receiver.contentTypes).toEqual(new Set(['application/x-protobuf', 'application/json']));
    expect(spans().length).toBeGreaterThan(200);
    const hits = {
      pans: findPans(text, [PAN]),
      cvvs: findCvvs(withoutJsonNumbers(decoded), [CVV]),
      holder: text.includes(HOLDER) || text.includes('Łukasiewicz'),
      // Not even masked (the forward's answer masks the card it echoes; the last line of defence in
      // tracing/sdk.ts masks any card number): no card number reached a span.
      masked: /\d{6}\*{3,9}\d{4}/.test(text),
      jwts: secrets.jwts.filter((jwt) => text.includes(jwt) || text.includes(jwt.split('.')[2]!)),
      webhookSecrets: secrets.webhookSecrets.filter((secret) => text.includes(secret) || text.includes(secret.slice('whsec_'.length))),
      signatures: secrets.signatures.filter((signature) => text.includes(signature)),
      // The invoice's buyer: never recorded.
      buyer: [COMPANY.name, COMPANY.vatId, COMPANY.email].filter((value) => text.includes(value)),
      // Neither the template nor its path: a forward is named by its destination.
      template: text.includes('{{card') || text.includes('/v1/charges'),
    };
    expect(secrets.jwts.length * secrets.webhookSecrets.length * secrets.signatures.length).toBeGreaterThan(0);
    expect(hits).toEqual({ pans: [], cvvs: [], holder: false, masked: false, jwts: [], webhookSecrets: [], signatures: [], buyer: [], template: false });
  });

  it('the traced processes (render processes included) loaded the SDK, the instrumentations and bullmq-otel', async () => {
    await Promise.all([api.process, worker].map(async (spawned) => {
      spawned.kill('SIGTERM');
      await spawned.exited;
    }));
    const loaded = readdirSync(modulesDir).map((file) => readFileSync(join(modulesDir, file), 'utf8'));
    const withTracing = loaded.filter((list) => list.includes('@opentelemetry/sdk-trace'));
    // The API and the worker: the SDK, the pg instrumentation and bullmq-otel.
    expect(withTracing.filter((list) => list.includes('@opentelemetry/instrumentation-pg') && list.includes('bullmq-otel')).length).toBe(2);
    // The worker's render processes (one or more, as pieces retire them): the SDK without BullMQ.
    expect(withTracing.filter((list) => !list.includes('bullmq-otel')).length).toBeGreaterThanOrEqual(1);
  });
});
