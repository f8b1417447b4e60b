import { randomBytes, randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@folio-vault/shared/config';
import { QUEUE_STATES } from '@folio-vault/shared/metrics';
import { freePort } from '@folio-vault/dev-services/process-utils';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { startWorker } from '@folio-vault/worker/worker';
import { cardBody } from '@folio-vault/test-kit/cards';
import { PROPERTY_1, importOk } from './support/ledger-fixture.js';
import { findPans } from './support/secret-scan.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * The operator's view (docs/api.md#operations): /metrics (admin JWT or METRICS_TOKEN), the queue dashboard at
 * /admin/queues (admin JWT as a header or, for a browser, the cookie set by ?token=), and the
 * worker's own health server (WORKER_HEALTH_PORT): liveness, readiness, its metrics.
 */
const METRICS_TOKEN = randomBytes(24).toString('base64url');
const PAN = '4111111111111111';
const SOURCE_ID = '500';

let world: TWorld;
let workerUrl: string;
let admin: string;
let payments: string;
/** Tokens with the admin scope that are not the operator's: bound to properties, or to none. */
let boundAdmins: Array<[string, string]>;

/** Values of one metric family, by its label string: { 'queue="vault",state="waiting"': 0, … }. */
function samples(text: string, name: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${name}(?:\\{(.*)\\})? (\\S+)$`).exec(line);
    if (match) found.set(match[1] ?? '', Number(match[2]));
  }
  return found;
}

const scrapeApi = async () => {
  const res = await request(world.url).get('/metrics').set('Authorization', `Bearer ${admin}`);
  expect(res.status).toBe(200);
  return res.text;
};
const scrapeWorker = async () => {
  const res = await request(workerUrl).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
  expect(res.status).toBe(200);
  return res.text;
};

function expectError(res: request.Response, status: number, errorCode: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ id: res.headers['x-request-id'], timestamp: expect.any(String), errorCode, errorDetails: expect.any(String) });
}

beforeAll(async () => {
  // Its worker's own render pool: the export_render_* figures below are that worker's metrics.
  world = await createWorld({ env: { METRICS_TOKEN, WORKER_HEALTH_PORT: 'ephemeral' }, renderProcesses: 'own' });
  expect(world.worker?.healthPort).toBeGreaterThan(0);
  workerUrl = `http://127.0.0.1:${world.worker!.healthPort}`;
  admin = world.token({ scope: 'admin', properties: ['*'] });
  payments = world.token({ properties: [1] });
  boundAdmins = [
    ['property_ids [1]', world.token({ scope: 'admin read:payment', properties: [1] })],
    ['property_ids [1, 2]', world.token({ scope: 'admin', properties: [1, 2] })],
    ['property_ids []', world.token({ scope: 'admin', properties: [] })],
  ];
});
afterAll(async () => world?.close());

describe('GET /metrics', () => {
  it('answers 401 without a token or with a wrong one, 403 to a token without the admin scope', async () => {
    const none = await request(world.url).get('/metrics');
    expectError(none, 401, 'UNAUTHENTICATED');
    expect(none.headers['www-authenticate']).toMatch(/^Bearer /);
    expectError(await request(world.url).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}x`), 401, 'UNAUTHENTICATED');
    expectError(await request(world.url).get('/metrics').set('Authorization', 'Basic YWRtaW46YWRtaW4='), 401, 'UNAUTHENTICATED');
    expectError(await request(world.url).get('/metrics').set('Authorization', `Bearer ${payments}`), 403, 'ACCESS_DENIED');
    // The dashboard cookie is for the dashboard only.
    expectError(await request(world.url).get('/metrics').set('Cookie', `folio_admin_token=${admin}`), 401, 'UNAUTHENTICATED');
  });

  it('answers the Prometheus text format to an admin token and to METRICS_TOKEN', async () => {
    for (const credential of [admin, METRICS_TOKEN]) {
      const res = await request(world.url).get('/metrics').set('Authorization', `Bearer ${credential}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
      expect(res.text).toContain('# TYPE queue_jobs gauge');
    }
  });

  it('labels HTTP latency with the route pattern, never the URL with its ids', async () => {
    const id = randomUUID();
    const missing = await request(world.url).get(`/vault/v1/tokens/${id}`).set('Authorization', `Bearer ${payments}`).set('X-Property-Id', '1').set('SVC-Tokenization-Mode', 'test');
    expect(missing.status).toBe(404);
    await request(world.url).get(`/no/such/route/${id}`);
    const text = await scrapeApi();
    const latency = samples(text, 'http_request_duration_seconds_count');
    expect(latency.get('method="GET",route="/vault/v1/tokens/:id",status="404"')).toBeGreaterThanOrEqual(1);
    expect(latency.get('method="GET",route="unmatched",status="404"')).toBeGreaterThanOrEqual(1);
    const healthz = 'method="GET",route="/healthz",status="200"';
    const before = latency.get(healthz) ?? 0;
    await request(world.url).get('/healthz');
    expect(samples(await scrapeApi(), 'http_request_duration_seconds_count').get(healthz)).toBe(before + 1);
    expect(text).not.toContain(id);
  });

  it('counts every queue of QUEUE_NAMES by state', async () => {
    const depth = samples(await scrapeApi(), 'queue_jobs');
    for (const queue of Object.values(QUEUE_NAMES)) {
      for (const state of QUEUE_STATES) expect(depth.get(`queue="${queue}",state="${state}"`), `${queue} ${state}`).toBeGreaterThanOrEqual(0);
    }
    expect(depth.get('queue="vault",state="waiting"')).toBe(0);
  });

  it('counts jobs and rendered rows after a tokenize and an export, with no card data or ids in any label', async () => {
    const tokenized = await request(world.url)
      .post('/vault/v1/tokens/card')
      .set('Authorization', `Bearer ${payments}`)
      .set('X-Property-Id', '1')
      .set('SVC-Tokenization-Mode', 'test')
      .send(cardBody({ card_number: PAN }));
    expect(tokenized.status, JSON.stringify(tokenized.body)).toBe(200);

    await importOk(world, payments, 1, {
      property: PROPERTY_1,
      folios: [{ id: 10, sourceKind: 'RESERVATION', sourceId: SOURCE_ID, name: 'Main folio' }],
      transactions: [1, 2, 3].map((n) => ({
        id: n,
        folioId: 10,
        sourceKind: 'RESERVATION',
        sourceId: SOURCE_ID,
        transactionDatetime: `2026-11-2${n}T12:00:00Z`,
        serviceDate: `2026-11-2${n}`,
        internalTransactionCode: '1000',
        internalCodeGroup: 'ROOM_REVENUE_RATE',
        description: `Night ${n}`,
        quantity: 1,
        amount: '100.00',
        currency: 'EUR',
        posted: true,
      })),
    });
    const exportIds: string[] = [];
    for (const format of ['PDF', 'XLSX']) {
      const exported = await request(world.url)
        .post('/fiscal-document/v1/folios/export')
        .set('Authorization', `Bearer ${payments}`)
        .set('X-Property-Id', '1')
        .send({ sourceKind: 'RESERVATION', sourceId: SOURCE_ID, format });
      expect(exported.status, format).toBe(200);
      exportIds.push(String(exported.headers['x-export-id']));
    }

    const worker = await scrapeWorker();
    const jobs = samples(worker, 'jobs_total');
    expect(jobs.get('queue="vault",name="tokenize-card",outcome="completed"')).toBeGreaterThanOrEqual(1);
    expect(jobs.get(`queue="${QUEUE_NAMES.export}",name="export-folio",outcome="completed"`)).toBe(2);
    expect(samples(worker, 'job_duration_seconds_count').get(`queue="${QUEUE_NAMES.export}",name="export-folio",outcome="completed"`)).toBe(2);
    const rows = samples(worker, 'export_rows_rendered_total');
    // One folio of three nights: three table rows in each file.
    expect(rows.get('format="PDF"')).toBe(3);
    expect(rows.get('format="XLSX"')).toBe(3);
    expect(samples(worker, 'export_render_seconds_count').get('format="PDF"')).toBeGreaterThanOrEqual(1);

    const api = await scrapeApi();
    expect(samples(api, 'http_request_duration_seconds_count').get('method="POST",route="/vault/v1/tokens/card",status="200"')).toBeGreaterThanOrEqual(1);
    expect(samples(api, 'http_request_duration_seconds_count').get('method="POST",route="/fiscal-document/v1/folios/export",status="200"')).toBe(2);
    for (const text of [api, worker]) {
      expect(findPans(text, [PAN])).toEqual([]);
      expect(text).not.toContain(tokenized.body.id);
      for (const exportId of exportIds) expect(text).not.toContain(exportId);
    }
  });
});

describe('/admin/queues', () => {
  it('answers 401 without a token, 403 to a token without the admin scope, the dashboard to an admin', async () => {
    expectError(await request(world.url).get('/admin/queues'), 401, 'UNAUTHENTICATED');
    expectError(await request(world.url).get('/admin/queues/api/queues'), 401, 'UNAUTHENTICATED');
    expectError(await request(world.url).get('/admin/queues').set('Authorization', `Bearer ${payments}`), 403, 'ACCESS_DENIED');
    expectError(await request(world.url).get('/admin/queues').set('Cookie', `folio_admin_token=${payments}`), 403, 'ACCESS_DENIED');
    // METRICS_TOKEN opens /metrics only.
    expectError(await request(world.url).get('/admin/queues').set('Authorization', `Bearer ${METRICS_TOKEN}`), 401, 'UNAUTHENTICATED');

    const page = await request(world.url).get('/admin/queues').set('Authorization', `Bearer ${admin}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<base href="/admin/queues/"');
    expect(page.text).toContain('<title>Folio Vault queues</title>');
    expect(page.headers['x-powered-by']).toBeUndefined();
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('moves ?token= into an HttpOnly, SameSite=Strict cookie and redirects; the page and its API then load with the cookie', async () => {
    const visit = await request(world.url).get(`/admin/queues?token=${admin}`);
    expect(visit.status).toBe(303);
    expect(visit.headers.location).toBe('/admin/queues');
    const setCookie = ([] as string[]).concat(visit.headers['set-cookie'] ?? []);
    expect(setCookie).toHaveLength(1);
    const cookie = setCookie[0]!;
    expect(cookie).toMatch(new RegExp(`^folio_admin_token=${admin.replaceAll('.', '\\.')};`));
    expect(cookie).toMatch(/; Path=\/admin\/queues(;|$)/);
    expect(cookie).toMatch(/; HttpOnly(;|$)/);
    expect(cookie).toMatch(/; SameSite=Strict(;|$)/);
    expect(cookie).toMatch(/; Max-Age=\d+/);
    const jar = cookie.split(';')[0]!;

    const page = await request(world.url).get('/admin/queues').set('Cookie', jar);
    expect(page.status).toBe(200);
    const script = /<script defer src="(static\/js\/main[^"]+)"/.exec(page.text)?.[1];
    expect(script).toBeDefined();
    const asset = await request(world.url).get(`/admin/queues/${script}`).set('Cookie', jar);
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);

    const api = await request(world.url).get('/admin/queues/api/queues').set('Cookie', jar);
    expect(api.status).toBe(200);
    const queues = api.body.queues as Array<{ name: string; counts: Record<string, number>; readOnlyMode: boolean }>;
    expect(queues.map((queue) => queue.name).sort()).toEqual(Object.values(QUEUE_NAMES).sort());
    for (const queue of queues) {
      expect(queue.readOnlyMode).toBe(true);
      expect(queue.counts).toEqual(expect.objectContaining({ waiting: expect.any(Number), active: expect.any(Number), failed: expect.any(Number) }));
    }
    // Read-only: the dashboard's API refuses to change a queue.
    const pause = await request(world.url).put(`/admin/queues/api/queues/${QUEUE_NAMES.vault}/pause`).set('Cookie', jar);
    expect(pause.status).toBe(405);
  });

  it('serves the page and its fonts from the service only: no web-font link, styles and fonts limited to its own origin', async () => {
    const page = await request(world.url).get('/admin/queues').set('Authorization', `Bearer ${admin}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    expect(page.text).toMatch(/<link href="static\/css\/main\.[0-9a-f]+\.css" rel="stylesheet">/);
    const policy = new Map(String(page.headers['content-security-policy']).split(';').map((d) => [d.trim().split(' ')[0], d.trim().split(' ').slice(1).join(' ')]));
    expect(policy.get('font-src')).toBe("'self' data:");
    expect(policy.get('style-src')).toBe("'self' 'unsafe-inline'");
  });

  describe('without a usable token', () => {
    const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

    it.each(['/admin/queues', '/admin/queues/delivery', '/admin/queues?token=not-a-jwt'])('answers a browser at %s a sign-in page, 401', async (path) => {
      const res = await request(world.url).get(path).set('Accept', BROWSER_ACCEPT);
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="folio-vault", error="invalid_token"');
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.text).toContain('<title>Folio Vault queues: sign in</title>');
      expect(res.text).toContain("<pre>npm run token -- --property &#39;*&#39; --scope admin</pre>");
      expect(res.text).toContain('<code>/admin/queues?token=&lt;the token&gt;</code>');
      expect(res.text).toContain('<form method="get"><label>Token <input name="token" type="password" autocomplete="off" required></label>');
      expect(res.text).toContain('<a href="/admin/queues">the queues</a> · <a href="/admin/queues/delivery">the delivery panel</a>');
      expect(res.text).not.toContain('#root');
    });

    it('says why: no token, or a token that does not verify', async () => {
      const none = await request(world.url).get('/admin/queues').set('Accept', BROWSER_ACCEPT);
      expect(none.text).toContain('<p id="reason">Not signed in: A bearer token is required (Authorization: Bearer &#60;JWT&#62;).</p>');
      const bad = await request(world.url).get('/admin/queues?token=not-a-jwt').set('Accept', BROWSER_ACCEPT);
      expect(bad.text).toContain('<p id="reason">Not signed in: The bearer token is not valid: it is malformed.</p>');
    });

    it.each([
      ['Accept: application/json', 'application/json'],
      ['Accept: */* (curl)', '*/*'],
      ['JSON preferred to HTML', 'application/json, text/html;q=0.5'],
    ])('answers an API client (%s) the JSON error', async (_name, accept) => {
      const res = await request(world.url).get('/admin/queues').set('Accept', accept);
      expectError(res, 401, 'UNAUTHENTICATED');
      expect(res.body.errorDetails).toBe('A bearer token is required (Authorization: Bearer <JWT>).');
    });

    it('answers a browser JSON for a 403 and for what is not a page (the dashboard API, a POST)', async () => {
      expectError(await request(world.url).get('/admin/queues').set('Accept', BROWSER_ACCEPT).set('Authorization', `Bearer ${payments}`), 403, 'ACCESS_DENIED');
      expectError(await request(world.url).get('/admin/queues/api/queues').set('Accept', 'application/json'), 401, 'UNAUTHENTICATED');
      expectError(await request(world.url).post('/admin/queues').set('Accept', BROWSER_ACCEPT), 401, 'UNAUTHENTICATED');
    });
  });

  it('refuses a ?token= that is not an admin JWT, and sets no cookie', async () => {
    const forbidden = await request(world.url).get(`/admin/queues?token=${payments}`);
    expectError(forbidden, 403, 'ACCESS_DENIED');
    expect(forbidden.headers['set-cookie']).toBeUndefined();
    const bad = await request(world.url).get('/admin/queues?token=not-a-jwt');
    expectError(bad, 401, 'UNAUTHENTICATED');
    expect(bad.headers['set-cookie']).toBeUndefined();
    // The token in the query never reaches the logs.
    expect(world.logs.join('')).not.toContain(payments);
    expect(world.logs.join('')).not.toContain(admin);
  });
});

describe('operator tokens only', () => {
  // Every queue's jobs, the delivery figures and the metrics cover all properties: a token bound to
  // properties (or to none) does not open them, whatever its scope; property_ids ["*"] does.
  const OPERATOR_PATHS = ['/metrics', '/admin/queues', '/admin/queues/api/queues', `/admin/queues/api/queues?activeQueue=${QUEUE_NAMES.vault}&status=completed`, '/admin/queues/delivery'];

  it.each(OPERATOR_PATHS)('%s answers 403 ACCESS_DENIED to an admin token that is not the operator\'s, and 200 to the operator', async (path) => {
    for (const [name, token] of boundAdmins) {
      const res = await request(world.url).get(path).set('Authorization', `Bearer ${token}`).set('Accept', 'application/json');
      expect(res.status, name).toBe(403);
      expectError(res, 403, 'ACCESS_DENIED');
      expect(res.body.errorDetails, name).toBe('The admin scope needs an operator token (property_ids ["*"]); this token is bound to properties.');
    }
    const operator = await request(world.url).get(path).set('Authorization', `Bearer ${admin}`).set('Accept', 'application/json');
    expect(operator.status).toBe(200);
  });

  it('refuses them in the dashboard cookie and in ?token=, and sets no cookie', async () => {
    for (const [name, token] of boundAdmins) {
      expectError(await request(world.url).get('/admin/queues/api/queues').set('Cookie', `folio_admin_token=${token}`), 403, 'ACCESS_DENIED');
      const visit = await request(world.url).get(`/admin/queues?token=${token}`);
      expect(visit.status, name).toBe(403);
      expectError(visit, 403, 'ACCESS_DENIED');
      expect(visit.headers['set-cookie']).toBeUndefined();
    }
  });

  it('grants the operator no property: property_ids ["*"] is refused on a property route, and mixed with ids is not a valid claim', async () => {
    const operator = world.token({ scope: 'admin read:payment', properties: ['*'] });
    const read = await request(world.url).get(`/vault/v1/tokens/${randomUUID()}`).set('Authorization', `Bearer ${operator}`).set('X-Property-Id', '1').set('SVC-Tokenization-Mode', 'test');
    expectError(read, 403, 'ACCESS_DENIED');
    const mixed = world.token({ scope: 'admin', properties: ['*', 1] });
    expectError(await request(world.url).get('/metrics').set('Authorization', `Bearer ${mixed}`), 401, 'UNAUTHENTICATED');
  });
});

describe('worker health server (WORKER_HEALTH_PORT)', () => {
  it('answers /healthz, /readyz and its own /metrics (METRICS_TOKEN when set)', async () => {
    expect((await request(workerUrl).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(workerUrl).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { redis: 'ok', postgres: 'ok', keys: 'ok', workers: 'ok' } });
    expectError(await request(workerUrl).get('/metrics'), 401, 'UNAUTHENTICATED');
    const metrics = await request(workerUrl).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('# TYPE job_duration_seconds histogram');
    expect(metrics.text).toContain('# TYPE export_rows_rendered_total counter');
    expectError(await request(workerUrl).get('/nope'), 404, 'ENTITY_NOT_FOUND');
  });

  it('answers 503 naming postgres when its database does not answer (the worker still starts)', async () => {
    const prefix = `{fvt-${randomBytes(4).toString('hex')}}`;
    const config = loadConfig({
      ...world.env,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/nowhere`,
      QUEUE_PREFIX: prefix,
      WORKER_HEALTH_PORT: 'ephemeral',
    });
    const broken = await startWorker(config, world.logger, { warmRenderProcesses: false });
    try {
      const res = await request(`http://127.0.0.1:${broken.healthPort}`).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body.errorCode).toBe('SERVICE_UNAVAILABLE');
      expect(res.body.errorDetails).toContain('postgres');
      expect(res.body.checks).toEqual({ redis: 'ok', postgres: 'unavailable', keys: 'ok', workers: 'ok' });
      expect((await request(`http://127.0.0.1:${broken.healthPort}`).get('/healthz')).status).toBe(200);
    } finally {
      await broken.close();
      for (const node of world.redis instanceof Cluster ? world.redis.nodes('master') : [world.redis]) {
        const stream = node.scanStream({ match: `${prefix}*`, count: 500 });
        for await (const keys of stream as AsyncIterable<string[]>) if (keys.length) await node.del(...keys);
      }
    }
  });

  it('is off unless WORKER_HEALTH_PORT is set; a bad value stops the start with one line', () => {
    const base = { ...world.env };
    delete base.WORKER_HEALTH_PORT;
    expect(loadConfig(base).WORKER_HEALTH_PORT).toBeUndefined();
    expect(loadConfig({ ...base, WORKER_HEALTH_PORT: '0' }).WORKER_HEALTH_PORT).toBeUndefined();
    expect(loadConfig({ ...base, WORKER_HEALTH_PORT: '9464' }).WORKER_HEALTH_PORT).toBe(9464);
    expect(loadConfig({ ...base, WORKER_HEALTH_PORT: 'ephemeral' }).WORKER_HEALTH_PORT).toBe(0);
    expect(loadConfig(base).WORKER_HEALTH_HOST).toBe('127.0.0.1');
    for (const bad of ['70000', '-1', 'abc', '80.5']) {
      try {
        loadConfig({ ...base, WORKER_HEALTH_PORT: bad });
        expect.unreachable(`WORKER_HEALTH_PORT=${bad} was accepted`);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).problems).toEqual(['WORKER_HEALTH_PORT: must be 0 (off), 1-65535 or "ephemeral"']);
      }
    }
    expect(() => loadConfig({ ...base, METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: must be at least 16 characters without spaces/);
  });
});
