// The OpenTelemetry SDK of a traced process (docs/operations.md#tracing), loaded by tracing/start.ts
// only when tracing is on: with it off, none of this file's imports is ever loaded. Spans are sent
// in batches over OTLP/HTTP, protobuf or JSON. Whatever a span holds, every exported string passes
// redactPans first, as log lines do: a second line of defence behind what each span is allowed to
// record (tracing/instrument.ts, tracing/spans.ts).

import type { Attributes } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  RandomIdGenerator,
  TraceIdRatioBasedSampler,
  type IdGenerator,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import type { TTracingSettings } from '../config.js';
import { holdsPan, redactPans } from '../vault/card/redact-pan.js';

/** The processes that trace: the API, a worker, `npm start`'s both, and a worker's render processes. */
export type TTracedRole = 'api' | 'worker' | 'all' | 'render';

function samplerOf(settings: TTracingSettings): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(settings.OTEL_TRACES_SAMPLER_ARG);
  switch (settings.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** redactPans of texts seen lately: most strings a span holds repeat (a statement's text, a route). */
const seen = new Map<string, string>();
function masked(text: string): string {
  let result = seen.get(text);
  if (result === undefined) {
    result = redactPans(text);
    if (seen.size >= 2_000) seen.clear();
    seen.set(text, result);
  }
  return result;
}

const scrubbed = (attributes: Attributes): Attributes =>
  Object.fromEntries(Object.entries(attributes).map(([key, value]) => [key, typeof value === 'string' ? masked(value) : value]));

const holdsMaskable = (attributes: Attributes | undefined) => attributes !== undefined && Object.values(attributes).some((value) => typeof value === 'string' && masked(value) !== value);

/**
 * The span as exported: its strings through redactPans (the span itself is left as the SDK holds
 * it). A span with nothing to mask, which is every span unless something went wrong, goes as it is.
 */
function scrub(span: ReadableSpan): ReadableSpan {
  const clean =
    masked(span.name) === span.name &&
    !holdsMaskable(span.attributes) &&
    !span.events.some((event) => holdsMaskable(event.attributes)) &&
    (span.status.message === undefined || masked(span.status.message) === span.status.message);
  if (clean) return span;
  return Object.create(span, {
    name: { value: masked(span.name) },
    attributes: { value: scrubbed(span.attributes) },
    events: { value: span.events.map((event) => ({ ...event, ...(event.attributes ? { attributes: scrubbed(event.attributes) } : {}) })) },
    status: { value: span.status.message === undefined ? span.status : { ...span.status, message: masked(span.status.message) } },
  }) as ReadableSpan;
}

function exporterOf(settings: TTracingSettings): SpanExporter {
  const base = settings.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  const url = settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`;
  const options = { url, ...(settings.OTEL_EXPORTER_OTLP_HEADERS ? { headers: settings.OTEL_EXPORTER_OTLP_HEADERS } : {}) };
  const inner = settings.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/json' ? new JsonTraceExporter(options) : new ProtobufTraceExporter(options);
  return {
    export: (spans, done) => inner.export(spans.map(scrub), done),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/**
 * The SDK's random W3C ids, drawn again when one holds a run of digits shaped like a card number
 * (brand, length, Luhn; how often: docs/operations.md#tracing). A log line names its span
 * (logger.ts: trace_id, span_id) and passes redactPans, which would cut such an id to first six and
 * last four: the line must lead to its trace.
 */
export function cardFreeIds(random: IdGenerator = new RandomIdGenerator()): IdGenerator {
  const drawn = (next: () => string): string => {
    let id = next();
    while (holdsPan(id)) id = next();
    return id;
  };
  return { generateTraceId: () => drawn(() => random.generateTraceId()), generateSpanId: () => drawn(() => random.generateSpanId()) };
}

export interface TStartedTracing {
  provider: NodeTracerProvider;
  /** Sends the spans still waiting; later spans are dropped. */
  shutdown(): Promise<void>;
}

export function startSdk(role: TTracedRole, settings: TTracingSettings): TStartedTracing {
  const serviceName = settings.OTEL_SERVICE_NAME ?? (role === 'all' ? 'folio-vault' : role === 'api' ? 'folio-vault-api' : 'folio-vault-worker');
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName, 'process.pid': process.pid, 'folio_vault.process': role }),
    sampler: samplerOf(settings),
    idGenerator: cardFreeIds(),
    spanProcessors: [new BatchSpanProcessor(exporterOf(settings), { scheduledDelayMillis: settings.OTEL_BSP_SCHEDULE_DELAY })],
  });
  // No propagator: no trace context is read from or written to HTTP headers (tracing/bullmq-telemetry.ts).
  provider.register({ propagator: null });
  return { provider, shutdown: () => provider.shutdown() };
}
