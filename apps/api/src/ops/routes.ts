import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { pingRedis, type TPgPool, type TRedisClient } from '@folio-vault/shared/connections';
import { AppError, toErrorBody } from '@folio-vault/shared/errors';
import type { ObjectStorage } from '@folio-vault/shared/storage/object-storage';
import { within } from '@folio-vault/shared/within';

const CHECK_TIMEOUT_MS = 2_000;

export interface TReadinessDeps {
  redis: TRedisClient;
  pool: TPgPool;
  storage: ObjectStorage;
}

/** docs/api.md#operations: liveness, readiness naming the store that does not answer, and the API's own description. */
export function opsRoutes(deps: TReadinessDeps, openApiDocument: object): Router {
  const router = Router();

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (req, res) => {
    const checks = {
      // On a Redis Cluster: every master (redis+cluster:// URLs).
      redis: () => pingRedis(deps.redis),
      postgres: () => deps.pool.query('SELECT 1'),
      storage: () => deps.storage.ping(),
    };
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await within<unknown>(check(), CHECK_TIMEOUT_MS);
          return [name, 'ok'] as const;
        } catch {
          return [name, 'unavailable'] as const;
        }
      }),
    );
    const failing = results.filter(([, state]) => state !== 'ok').map(([name]) => name);
    if (failing.length === 0) {
      res.json({ status: 'ready', checks: Object.fromEntries(results) });
      return;
    }
    const error = AppError.unavailable(`Not ready: ${failing.join(', ')} did not answer.`, 5);
    res.status(503).set('Retry-After', '5').json({ ...toErrorBody(error, String(req.id)), checks: Object.fromEntries(results) });
  });

  router.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  router.use('/docs', swaggerUi.serve, swaggerUi.setup(openApiDocument, { customSiteTitle: 'Folio Vault API' }));

  return router;
}
