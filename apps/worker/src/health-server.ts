// A worker process's own small HTTP server (WORKER_HEALTH_PORT): `GET /healthz` (the process
// answers), `GET /readyz` (200 when its Redis and PostgreSQL answer and its BullMQ workers run; 503
// naming what does not) and `GET /metrics` (this process's registry: jobs and renders). When
// METRICS_TOKEN is set, /metrics wants it as `Authorization: Bearer`. No other routes, no body read.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { TWorkerConfig } from '@folio-vault/shared/config';
import { createPgProbe, createRedis, pingRedis } from '@folio-vault/shared/connections';
import { AppError, isUnexpected, toAppError, toErrorBody } from '@folio-vault/shared/errors';
import type { Logger } from '@folio-vault/shared/logger';
import { bearerMatches, type TMetrics } from '@folio-vault/shared/metrics';
import { checkReadiness, type TReadinessCheck } from '@folio-vault/shared/readiness';
import { requestIdOf } from '@folio-vault/shared/request-id';

export type { TReadinessCheck };

export interface THealthServerOptions {
  host: string;
  /** 0: a free port the system picks. */
  port: number;
  /** Each check rejects or throws when it is not ready; checked in parallel, each within `timeoutMs`. */
  checks: Record<string, TReadinessCheck>;
  metrics: TMetrics;
  metricsToken?: string;
  logger: Logger;
  timeoutMs?: number;
}

export interface TRunningHealthServer {
  port: number;
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store', ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, requestId: string, error: AppError, extra: object = {}): void {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  if (error.code === 'UNAUTHENTICATED') headers['WWW-Authenticate'] = 'Bearer realm="folio-vault-worker", error="invalid_token"';
  sendJson(res, error.status, { ...toErrorBody(error, requestId), ...extra }, headers);
}

export async function startHealthServer(options: THealthServerOptions): Promise<TRunningHealthServer> {
  async function readiness(res: ServerResponse, requestId: string): Promise<void> {
    const { checks, error } = await checkReadiness(options.checks, options.timeoutMs);
    if (!error) return sendJson(res, 200, { status: 'ready', checks });
    sendError(res, requestId, error, { checks });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = requestIdOf(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, requestId, AppError.notFound('The route'));
    if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (path === '/readyz') return readiness(res, requestId);
    if (path === '/metrics') {
      if (options.metricsToken && !bearerMatches(req.headers.authorization, options.metricsToken)) {
        return sendError(res, requestId, new AppError('UNAUTHENTICATED', 'This endpoint wants Authorization: Bearer <METRICS_TOKEN>.'));
      }
      const { contentType, body } = await options.metrics.scrape();
      res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
      res.end(body);
      return;
    }
    sendError(res, requestId, AppError.notFound('The route'));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // The same conversion as the API's: a store that is away is a 503 and a warning, a fault a 500 and its stack.
      const answer = toAppError(error);
      if (isUnexpected(answer)) options.logger.error({ err: error }, 'health server error');
      else options.logger.warn({ errorCode: answer.code, err: { message: (error as Error).message } }, 'health server answered an error');
      if (!res.headersSent) sendError(res, randomUUID(), answer);
      else res.destroy();
    });
  });
  // Probes are short: a client that holds a connection open must not keep the worker from stopping.
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  options.logger.info({ host: options.host, port }, 'worker health server listening');

  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The worker's health server when WORKER_HEALTH_PORT is set (else undefined): readiness is its
 * Redis (a connection of its own, so a probe never waits behind the workers' blocking commands),
 * PostgreSQL (likewise a connection of its own, never behind the jobs' pool or a lock), its key provider (an HSM that answers), and every BullMQ worker of the
 * process running.
 */
export async function startWorkerHealthServer(
  config: TWorkerConfig,
  parts: { workers: ReadonlyArray<{ name: string; isRunning(): boolean }>; metrics: TMetrics; logger: Logger; keys: { check(): Promise<void> } },
): Promise<TRunningHealthServer | undefined> {
  if (config.WORKER_HEALTH_PORT === undefined) return undefined;
  // Fail-fast like the API's connection, but a probe right after start waits for the first connect.
  const probe = createRedis(config, 'producer', { enableOfflineQueue: true });
  probe.on('error', () => undefined);
  const pgProbe = createPgProbe(config.WORKER_DATABASE_URL);
  try {
    const server = await startHealthServer({
      host: config.WORKER_HEALTH_HOST,
      port: config.WORKER_HEALTH_PORT,
      metrics: parts.metrics,
      metricsToken: config.METRICS_TOKEN,
      logger: parts.logger,
      checks: {
        redis: () => pingRedis(probe),
        postgres: () => pgProbe.check(),
        keys: () => parts.keys.check(),
        workers: () => {
          const stopped = parts.workers.filter((worker) => !worker.isRunning()).map((worker) => worker.name);
          if (stopped.length > 0) throw new Error(`not running: ${stopped.join(', ')}`);
        },
      },
    });
    return {
      port: server.port,
      async close() {
        await server.close();
        probe.disconnect();
        await pgProbe.end();
      },
    };
  } catch (error) {
    probe.disconnect();
    await pgProbe.end();
    throw error;
  }
}
