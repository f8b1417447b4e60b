// What a traced API or worker process records besides the service's own spans (tracing/spans.ts),
// loaded by tracing/start.ts with tracing on (a render process loads none of it). The
// instrumentations are the OpenTelemetry project's, each told what it may record:
// - http: the API's (and the worker's health server's) incoming requests, but not the probes and
//   /metrics that a scraper calls every few seconds; the path with any card number masked, never
//   the query string. Outgoing http (the S3 client, the exporter itself) is not traced. The server
//   span is named by the pattern of the Express route that answered (`POST /vault/v1/tokens/:id`,
//   http.route), read off the request as its answer ends (routeOf below). Express's own
//   instrumentation is not loaded: it would wrap every middleware and router layer a request passes
//   (each made no span of its own) to learn the same pattern.
// - pg: statements with their text (never their parameters), only under a span; no span for taking
//   a pooled connection or opening one.
// - ioredis: commands under a span only, recorded by name alone (BullMQ's scripts carry jobs'
//   payloads in their arguments).
// - undici: a gateway's or a webhook receiver's request, with its origin only: a forward's path can
//   hold the card, and a receiver's URL is its owner's.
// - BullMQ: its own telemetry interface, with bullmq-otel (tracing/bullmq-telemetry.ts).

import { createRequire } from 'node:module';
import type { IncomingMessage } from 'node:http';
import type { Attributes } from '@opentelemetry/api';
import { registerInstrumentations, type Instrumentation } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { redactPans } from '../vault/card/redact-pan.js';
import { bullmqHooks } from './bullmq-telemetry.js';
import { useTracingHooks } from './spans.js';

/** The processes that are instrumented: the API, a worker, and `npm start`'s both. */
export type TInstrumentedRole = 'api' | 'worker' | 'all';

/** Requests nobody waits on: the probes and the metrics scrape, every few seconds each. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The pattern of the Express route that answered a request (its router's mount path, then the
 * route's path: `/vault/v1/tokens/:id`), as apps/api's request metrics label it; undefined when no
 * route did (a 404, a mounted app such as the queue dashboard, the worker's health server).
 */
function routeOf(request: IncomingMessage): string | undefined {
  const { baseUrl, route } = request as IncomingMessage & { baseUrl?: unknown; route?: { path?: unknown } };
  return typeof route?.path === 'string' ? `${typeof baseUrl === 'string' ? baseUrl : ''}${route.path}` : undefined;
}

function instrumentations(): Instrumentation[] {
  return [
    new HttpInstrumentation({
      disableOutgoingRequestInstrumentation: true,
      ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '/').split('?')[0]!),
      // undefined drops the attribute: a query string can hold a signed link's signature or a filter's text.
      startIncomingSpanHook: (request) => ({ 'url.path': redactPans((request.url ?? '/').split('?')[0]!), 'url.query': undefined }) as Attributes,
      // Called once the answer has ended, before the span does; an outgoing request is never traced here.
      applyCustomAttributesOnSpan: (span, request) => {
        if (!('httpVersion' in request)) return;
        const route = routeOf(request);
        if (route !== undefined) span.setAttribute('http.route', route).updateName(`${request.method ?? 'GET'} ${route}`);
      },
    }),
    new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true }),
    new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    new UndiciInstrumentation({
      requireParentforSpans: true,
      startSpanHook: (request) => ({ 'url.full': request.origin, 'url.path': undefined, 'url.query': undefined }) as Attributes,
    }),
  ];
}

/**
 * The modules the instrumentations patch, required once now through the CommonJS loader they hook:
 * the service imports them as ES modules, which reach the same CommonJS module (and its patched
 * prototypes) but not the hook.
 */
const PATCHED_MODULES: Record<TInstrumentedRole, string[]> = {
  api: ['http', 'https', 'pg', 'ioredis'],
  worker: ['http', 'https', 'pg', 'ioredis'],
  all: ['http', 'https', 'pg', 'ioredis'],
};

export function instrument(role: TInstrumentedRole, provider: NodeTracerProvider): void {
  registerInstrumentations({ tracerProvider: provider, instrumentations: instrumentations() });
  const require = createRequire(import.meta.url);
  for (const name of PATCHED_MODULES[role]) require(name);
  useTracingHooks(bullmqHooks());
}
