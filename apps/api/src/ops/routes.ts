import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { pingRedis, type TRedisClient } from '@folio-vault/shared/connections';
import { toErrorBody } from '@folio-vault/shared/errors';
import type { TMetrics } from '@folio-vault/shared/metrics';
import { ZHealth, ZReadiness, ZReadinessFailure } from '@folio-vault/shared/schemas/common';
import type { ObjectStorage } from '@folio-vault/shared/storage/object-storage';
import { checkReadiness, READINESS_CHECK_MS } from '@folio-vault/shared/readiness';
import { checkWorkersKeys } from '@folio-vault/shared/vault/keys/key-health';
import { SCOPES } from '../auth/principal.js';
import { HEADERS } from '../http/openapi-errors.js';
import { defineRoute, mountRoutes, type TRouteDeps } from '../http/route.js';

const TAGS: ['Operations'] = ['Operations'];

export interface TReadinessDeps {
  redis: TRedisClient;
  /** QUEUE_PREFIX: where the workers report keys they cannot use. */
  queuePrefix: string;
  /** PostgreSQL's check on a connection of its own (createPgProbe): never behind the pool or a lock. */
  pgProbe: { check(): Promise<void> };
  storage: ObjectStorage;
}

export interface TOpsDeps extends TRouteDeps, TReadinessDeps {
  metrics: TMetrics;
  /** METRICS_TOKEN: a shared secret a scraper may send instead of an admin JWT. */
  metricsToken?: string;
  openApiDocument: object;
}

const healthz = defineRoute<TOpsDeps>({
  method: 'get',
  path: '/healthz',
  operationId: 'getHealth',
  summary: 'Liveness',
  description: 'Answers while the process serves requests; checks no store.',
  tags: TAGS,
  responses: { 200: { description: 'Alive', json: ZHealth } },
  handler: () => async ({ res }) => {
    res.json({ status: 'ok' });
  },
});

const readyz = defineRoute<TOpsDeps>({
  method: 'get',
  path: '/readyz',
  operationId: 'getReadiness',
  summary: 'Readiness',
  description: `Pings Redis (every master of a cluster), PostgreSQL (on a connection of its own: never behind the requests' pool or a lock) and the object storage, and reads whether a worker reported its vault keys unusable (an HSM that does not answer), each within ${READINESS_CHECK_MS} ms; 503 names what is not ready.`,
  tags: TAGS,
  responses: {
    200: { description: 'Every store answered', json: ZReadiness },
    503: { description: 'A store did not answer: the error body plus every check.', json: ZReadinessFailure, headers: { 'Retry-After': HEADERS.retryAfter(true) } },
  },
  handler: (deps) => async ({ req, res }) => {
    const { checks, error } = await checkReadiness({
      // On a Redis Cluster: every master (redis+cluster:// URLs).
      redis: () => pingRedis(deps.redis),
      postgres: () => deps.pgProbe.check(),
      storage: () => deps.storage.ping(),
      // The workers' keys (an HSM), as they report them: the API has no access of its own.
      keys: () => checkWorkersKeys(deps.redis, deps.queuePrefix),
    });
    if (!error) {
      res.json({ status: 'ready', checks });
      return;
    }
    res.status(503).set('Retry-After', String(error.retryAfterSeconds)).json({ ...toErrorBody(error, String(req.id)), checks });
  },
});

const metrics = defineRoute<TOpsDeps>({
  method: 'get',
  path: '/metrics',
  operationId: 'getMetrics',
  summary: 'Prometheus metrics',
  description: 'Prometheus text exposition. The bearer token is the operator\'s admin JWT (property_ids ["*"]) or METRICS_TOKEN.',
  tags: TAGS,
  scope: SCOPES.admin,
  authOptions: (deps) => ({ sharedSecret: deps.metricsToken }),
  responses: {
    200: {
      description: 'The metrics',
      content: { type: 'text/plain', schema: { type: 'string' } },
      headers: { 'Cache-Control': { description: 'Never cached.', required: true, schema: { type: 'string', enum: ['no-store'] } } },
    },
  },
  handler: (deps) => async ({ res }) => {
    const { contentType, body } = await deps.metrics.scrape();
    res.set('Content-Type', contentType).set('Cache-Control', 'no-store').send(body);
  },
});

const openApi = defineRoute<TOpsDeps>({
  method: 'get',
  path: '/openapi.json',
  operationId: 'getOpenApiDocument',
  summary: 'This OpenAPI document',
  tags: TAGS,
  responses: { 200: { description: 'The OpenAPI 3.1 document', content: { type: 'application/json', schema: { type: 'object' } } } },
  handler: (deps) => async ({ res }) => {
    res.json(deps.openApiDocument);
  },
});

export const OPS_ROUTES = [healthz, readyz, metrics, openApi];

/**
 * Liveness, readiness naming the store that does not answer, metrics, and the API's own
 * description, plus its Swagger UI at /docs (left out of the document: openapi.ts).
 */
export function opsRoutes(deps: TOpsDeps): Router {
  const router = mountRoutes(Router(), OPS_ROUTES, deps);
  router.use('/docs', swaggerUi.serve, swaggerUi.setup(deps.openApiDocument, { customSiteTitle: 'Folio Vault API' }));
  return router;
}
