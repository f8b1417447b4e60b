import type { NextFunction, Request, Response } from 'express';
import type { TMetrics } from '@folio-vault/shared/metrics';

/**
 * Prefixes served by middleware rather than by a route pattern (static files, the dashboard):
 * their requests are counted under `<prefix>/*`.
 */
const MOUNTED_PREFIXES = ['/admin/queues', '/docs'];

/** Methods outside this list are counted as OTHER (a client can send any token as a method). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The route label: the Express route pattern that answered (`/vault/v1/tokens/:id`), never the
 * URL, so ids never become label values. Requests no route matched share one label.
 */
export function routeLabel(req: Request): string {
  const pattern: unknown = req.route?.path;
  if (typeof pattern === 'string') return `${req.baseUrl}${pattern}`;
  if (Array.isArray(pattern)) {
    // One route, several literal paths (an alias): the one asked for, else the first.
    const path = req.path;
    const literal = pattern.find((candidate) => candidate === path);
    if (typeof literal === 'string') return `${req.baseUrl}${literal}`;
    if (typeof pattern[0] === 'string') return `${req.baseUrl}${pattern[0]}`;
  }
  const path = (req.originalUrl || req.url).split('?')[0] ?? '';
  const prefix = MOUNTED_PREFIXES.find((candidate) => path === candidate || path.startsWith(`${candidate}/`));
  return prefix ? `${prefix}/*` : 'unmatched';
}

/**
 * `http_request_duration_seconds` for every request, observed when its connection is done with it
 * ('close': also when the client hangs up, as clients of a streamed file with a known length do as
 * soon as they have it). A request whose client went away before any answer has status "aborted".
 */
export function requestMetrics(metrics: TMetrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const method = METHODS.has(req.method) ? req.method : 'OTHER';
      const status = res.headersSent ? String(res.statusCode) : 'aborted';
      metrics.httpRequestDuration.observe({ method, route: routeLabel(req), status }, seconds);
    });
    next();
  };
}
