import express, { type Express } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { TTrustProxy } from '@folio-vault/shared/config-fields';
import { withoutBlankErrorFields, type Logger } from '@folio-vault/shared/logger';
import { requestIdOf } from '@folio-vault/shared/request-id';
import { errorHandler, notFoundHandler, requestLogOptions } from './http/error-handler.js';
import { requestMetrics } from './http/request-metrics.js';
import { DOMAINS, type TDomainDeps } from './domains.js';
import { adminRoutes, type TAdminDeps } from './ops/admin.js';

/** Each domain's routes take the part of these they need. */
export interface TAppDeps extends TDomainDeps, TAdminDeps {
  logger: Logger;
  /** TRUST_PROXY: the proxies whose X-Forwarded-For names the client (req.ip, what audit rows record). */
  trustProxy: TTrustProxy;
}

/** The Express app: request id, logging, security headers, routes, one error handler. No I/O at build time. */
export function createApp(deps: TAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy);
  app.set('query parser', 'simple');

  app.use(
    pinoHttp({
      logger: deps.logger,
      // X-Request-Id is echoed when it is sane, generated otherwise (docs/api.md#conventions).
      genReqId: (req, res) => {
        const id = requestIdOf(req.headers['x-request-id']);
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
        err: withoutBlankErrorFields,
      },
      // Answered requests at debug; 503 and 4xx at warn, with the answer's error code; other 5xx at
      // error (http/error-handler.ts).
      ...requestLogOptions,
    }),
  );
  app.use(requestMetrics(deps.metrics));
  app.use(helmet());
  // A browser opening /docs or the dashboard asks for an icon: none, answered as such (a 404
  // would be a warning in the log for every page a person opens).
  app.get('/favicon.ico', (_req, res) => {
    res.status(204).end();
  });

  for (const domain of DOMAINS) app.use(domain.router(deps));
  // The BullMQ dashboard is bull-board's, not route definitions: mounted, never documented (openapi.ts).
  app.use(adminRoutes(deps));

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
