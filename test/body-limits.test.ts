import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerLog, EXPORT, TOKENIZE, expectError, expectNoInternals, report } from './support/abuse.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * Body limits per route through the real app (docs/api.md#abuse-limits): every JSON route of the
 * OpenAPI document has its own limit, answered 413 PAYLOAD_TOO_LARGE one byte over it, and reads
 * a body of exactly the limit.
 */
let world: TWorld;
const log = new AnswerLog();

beforeAll(async () => {
  world = await createWorld();
});
afterAll(async () => world?.close());

describe('body limits per route (413 PAYLOAD_TOO_LARGE)', () => {
  /** Every JSON route and its limit; the test fails when the OpenAPI document has a JSON route not listed here. */
  const LIMITS: Record<string, number> = {
    [`POST ${TOKENIZE}`]: 16 * 1024,
    // A template body of 64 kB is the rule (400 at body); the JSON around it may take more room.
    'POST /vault/v1/tokens/{id}/forward': 160 * 1024,
    'POST /accounting/v1.0/import': 64 * 1024 * 1024,
    'POST /accounting/v1.0/folios/transactions': 64 * 1024,
    [`POST ${EXPORT}`]: 64 * 1024,
    'POST /fiscal-document/v1/folio-export/pdf': 64 * 1024,
    'POST /fiscal-document/v1/night-audit/exports': 8 * 1024,
    'POST /fiscal-document/v1/invoices': 16 * 1024,
    'POST /fiscal-document/v1/invoices/{id}/credit-notes': 8 * 1024,
    'POST /webhooks/v1/endpoints': 8 * 1024,
  };

  /** A JSON object of exactly `size` bytes, as text (superagent would serialize a Buffer as JSON). */
  const padded = (size: number) => `{"pad":"${'x'.repeat(size - '{"pad":""}'.length)}"}`;

  it('lists every JSON route of the OpenAPI document', async () => {
    const doc = (await request(world.url).get('/openapi.json')).body as { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>> };
    const jsonRoutes = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.requestBody?.content?.['application/json'])
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(jsonRoutes.sort()).toEqual(Object.keys(LIMITS).sort());
  });

  it('answers 413 one byte over each route\'s limit, and reads a body of exactly the limit', async () => {
    const token = world.token({ sub: 'body-limits', properties: [9], scope: 'read:payment write:payment use:payment' });
    const send = (route: string, body: string) => {
      const [method, path] = route.split(' ') as [string, string];
      expect(method).toBe('POST');
      return request(world.url)
        .post(path)
        .set('Authorization', `Bearer ${token}`)
        .set('X-Property-Id', '9')
        .set('SVC-Tokenization-Mode', 'test')
        .set('Content-Type', 'application/json')
        .send(body);
    };
    for (const [route, limit] of Object.entries(LIMITS)) {
      const over = log.seen(`${route} oversize`, await send(route, padded(limit + 1)));
      expectError(over, 413, 'PAYLOAD_TOO_LARGE');
      expect(JSON.stringify(over.body)).not.toContain('xxxx');
      // The limit is the route's own: a body of exactly that size is read (and refused for its content).
      if (limit <= 64 * 1024) {
        const at = log.seen(`${route} at limit`, await send(route, padded(limit)));
        expectError(at, 400, 'INVALID_REQUEST');
        expect(at.body.fieldErrors).toContainEqual({ path: 'pad', message: 'is not a known field' });
      }
    }
    report(`body limits: ${Object.keys(LIMITS).length} JSON routes, 413 one byte over each`);
  });

  it('puts no internals in any of these error answers', () => {
    expectNoInternals(log, 'body-limits');
  });
});
