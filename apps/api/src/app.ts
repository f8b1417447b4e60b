import { randomUUID } from 'node:crypto';
import type { FlowProducer, Queue } from 'bullmq';
import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import { holdsPan } from '@folio-vault/shared/vault/card/redact-pan';
import type { Logger } from '@folio-vault/shared/logger';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import { requestMetrics } from './http/request-metrics.js';
import { adminRoutes, type TAdminDeps } from './ops/admin.js';
import type { TJwtVerifier } from './auth/jwt-verifier.js';
import { opsRoutes, type TReadinessDeps } from './ops/routes.js';
import { exportRoutes } from './exports/routes.js';
import { nightAuditRoutes } from './night-audit/routes.js';
import { ledgerRoutes } from './ledger/routes.js';
import { vaultRoutes } from './vault/routes.js';
import type { ExportService } from './exports/export-service.js';
import type { VaultClient } from './vault/vault-client.js';

export interface TAppDeps extends TReadinessDeps, TAdminDeps {
  logger: Logger;
  verifier: TJwtVerifier;
  vault: VaultClient;
  exports: ExportService;
  /** Rate limits of POST /vault/v1/tokens/card (http/rate-limit.ts). */
  tokenizeLimits: RequestHandler[];
  flows: FlowProducer;
  nightAuditQueue: Queue;
  exportWaitMs: number;
  openApiDocument: object;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The Express app: request id, logging, security headers, routes, one error handler. No I/O at build time. */
export function createApp(deps: TAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', 'simple');

  app.use(
    pinoHttp({
      logger: deps.logger,
      // X-Request-Id is echoed when it is sane, generated otherwise (docs/api.md#conventions).
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        // A client that puts a card number in its request id gets a fresh id: the id is echoed,
        // logged and carried in job payloads (docs/security.md).
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) && !holdsPan(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      customAttributeKeys: { reqId: 'requestId' },
      // Every line logged through req.log carries the request id, and nothing else of the request.
      quietReqLogger: true,
      // Only method and path: headers, query and bodies can carry tokens or card data.
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, path: req.url.split('?')[0] }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    }),
  );
  app.use(requestMetrics(deps.metrics));
  app.use(helmet());

  app.use(opsRoutes(deps, deps.openApiDocument));
  app.use(adminRoutes(deps));
  app.use(vaultRoutes(deps.verifier, deps.vault, deps.tokenizeLimits));
  app.use(ledgerRoutes(deps.verifier, deps.pool, deps.nightAuditQueue));
  app.use(exportRoutes(deps.verifier, deps.exports, deps.exportWaitMs));
  app.use(nightAuditRoutes(deps.verifier, deps.pool, deps.flows));

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
