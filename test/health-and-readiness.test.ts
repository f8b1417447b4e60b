import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@folio-vault/dev-services/process-utils';
import { startRedisServer, type TRunningService } from '@folio-vault/dev-services/redis-server';
import { cardBody } from '@folio-vault/test-kit/cards';
import { createWorld, type TWorld } from './support/world.js';

/**
 * The API's own endpoints and its answers when a store is missing: /healthz, /readyz (naming the
 * store that does not answer), /openapi.json, /docs, X-Request-Id, the 404 shape, and 503 with
 * Retry-After while PostgreSQL or Redis is down. The operator's endpoints (/metrics, the queue
 * dashboard, a worker's health server) are in test/operator-view.test.ts.
 */
let world: TWorld;

beforeAll(async () => {
  world = await createWorld();
});
afterAll(async () => world?.close());

describe('operations endpoints', () => {
  it('GET /healthz answers without authentication', async () => {
    const res = await request(world.url).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when Redis, PostgreSQL and storage answer', async () => {
    const res = await request(world.url).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { redis: 'ok', postgres: 'ok', storage: 'ok', keys: 'ok' } });
  });

  it('GET /openapi.json describes the vault routes from the zod schemas', async () => {
    const res = await request(world.url).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/vault/v1/tokens/card', '/vault/v1/tokens/{id}']));
    const request_ = res.body.components.schemas.TokenizeCardRequest;
    expect(request_.required).toEqual(expect.arrayContaining(['card_number', 'cvv', 'cardholder_name', 'expiration']));
    expect(request_.additionalProperties).toBe(false);
    expect(res.body.components.schemas.CardTokenMetadata.properties).toHaveProperty('fingerprint');
    const parameters = res.body.paths['/vault/v1/tokens/card'].post.parameters.map((p: { name: string }) => p.name.toLowerCase());
    expect(parameters).toEqual(expect.arrayContaining(['x-property-id', 'svc-tokenization-mode', 'idempotency-key']));
  });

  it('GET /docs serves the API explorer', async () => {
    const res = await request(world.url).get('/docs/').redirects(1);
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
  });

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const echoed = await request(world.url).get('/healthz').set('X-Request-Id', 'client-req-42');
    expect(echoed.headers['x-request-id']).toBe('client-req-42');
    const replaced = await request(world.url).get('/healthz').set('X-Request-Id', 'bad id with spaces <script>');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route with 404 in the contract error shape', async () => {
    const res = await request(world.url).get('/nope').set('X-Request-Id', 'req-404');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ id: 'req-404', timestamp: expect.any(String), errorCode: 'ENTITY_NOT_FOUND', errorDetails: expect.any(String) });
  });

  it('sends security headers and no X-Powered-By', async () => {
    const res = await request(world.url).get('/healthz');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});

describe('readiness and errors when a store does not answer', () => {
  it('names PostgreSQL when it does not answer', async () => {
    const port = await freePort();
    const broken = await createWorld({ worker: false, env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/nowhere` } });
    try {
      const res = await request(broken.url).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body.errorCode).toBe('SERVICE_UNAVAILABLE');
      expect(res.body.errorDetails).toContain('postgres');
      expect(res.body.checks).toEqual({ redis: 'ok', postgres: 'unavailable', storage: 'ok', keys: 'ok' });
      // Tokenizing needs the property's gateway mode: 503 with Retry-After, not a 500 or a hang.
      const tokenize = await request(broken.url)
        .post('/vault/v1/tokens/card')
        .set('Authorization', `Bearer ${broken.token()}`)
        .set('X-Property-Id', '1')
        .set('SVC-Tokenization-Mode', 'test')
        .send(cardBody());
      expect(tokenize.status).toBe(503);
      expect(tokenize.headers['retry-after']).toBe('2');
    } finally {
      await broken.close().catch(() => undefined);
    }
  });

  it('names storage when the object store is not writable', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fv-')), 'a-file');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, 'not a folder');
    const broken = await createWorld({ worker: false, env: { STORAGE_DIR: join(file, 'objects') } });
    try {
      const res = await request(broken.url).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body.checks.storage).toBe('unavailable');
    } finally {
      await broken.close();
    }
  });

  describe('with its own Redis that goes away', () => {
    let redis: TRunningService;
    let port: number;
    let dir: string;
    let own: TWorld;

    beforeAll(async () => {
      port = await freePort();
      dir = mkdtempSync(join(tmpdir(), 'fv-redis-'));
      redis = await startRedisServer({ dir, port, appendOnly: false });
      own = await createWorld({ env: { REDIS_URL: redis.url, TOKENIZE_WAIT_MS: '2000' } });
    });
    afterAll(async () => {
      await own?.close().catch(() => undefined);
      await redis.stop();
    });

    it('tokenizes while Redis is up, then answers 503 + Retry-After and readyz names redis while it is down', async () => {
      const auth = `Bearer ${own.token()}`;
      const post = () =>
        request(own.url).post('/vault/v1/tokens/card').set('Authorization', auth).set('X-Property-Id', '1').set('SVC-Tokenization-Mode', 'test').send(cardBody());
      expect((await post()).status).toBe(200);
      await redis.stop();
      const down = await post();
      expect(down.status).toBe(503);
      expect(down.body.errorCode).toBe('SERVICE_UNAVAILABLE');
      expect(Number(down.headers['retry-after'])).toBeGreaterThan(0);
      const ready = await request(own.url).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.redis).toBe('unavailable');

      // Redis comes back: the same process becomes ready and tokenizes again, no restart.
      redis = await startRedisServer({ dir, port, appendOnly: false });
      let readyAgain = 503;
      for (let attempt = 0; attempt < 100 && readyAgain !== 200; attempt += 1) {
        readyAgain = (await request(own.url).get('/readyz')).status;
        if (readyAgain !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(readyAgain).toBe(200);
      let after = await post();
      for (let attempt = 0; attempt < 50 && after.status !== 200; attempt += 1) after = await post();
      expect(after.status, JSON.stringify(after.body)).toBe(200);
    });
  });
});
