// BullMQ's telemetry (its `telemetry` option) as this service uses it, loaded only with tracing on
// (tracing/instrument.ts). bullmq-otel makes the spans: a producer span where a job is added, the
// job's processing span as its child in the worker. Around it, these rules:
// - A job carries its trace context as a W3C traceparent in BullMQ's job metadata, written and read
//   here rather than through the global propagator, which stays unset so that no trace context is
//   read from or sent over HTTP (docs/operations.md#what-crosses-a-boundary).
// - BullMQ's own work outside any job makes no trace: polling for the next job, lock renewal, the
//   stalled-job check, a job scheduler adding the next run of a repeated job. Each gets an unrecorded
//   span whose context is valid but not sampled, so what it starts (a scheduled sweep) is not
//   recorded either.
// - A job is two spans: where it is added (the producer span) and where it is processed (the
//   consumer span, which the job's completion or failure events are on). BullMQ's other operations
//   on a job (completing it, moving it to delayed) and an operation inside another (a flow's nodes)
//   make no span, and what BullMQ does within its operations makes none either: its Redis commands
//   run in a context without an active span, so the ioredis instrumentation, which wants a parent,
//   leaves them alone. A flow's jobs name their parent or link themselves (spans.ts
//   parentedJobOptions, linkedJobOptions).
// - A job whose metadata says `link` (spans.ts linkedJobOptions) starts a trace of its own, linked
//   to the span that added it.
// - A job's return value and progress are never span attributes, nor event attributes: the return
//   value of a vault job is a client's answer.

import { context, createContextKey, INVALID_SPAN_CONTEXT, ROOT_CONTEXT, trace, TraceFlags, type Context, type SpanContext } from '@opentelemetry/api';
import { SpanKind, type ContextManager, type Span, type Telemetry, type Tracer } from 'bullmq';
import { BullMQOtel, BullMQOTelSpan } from 'bullmq-otel';
import { RandomIdGenerator } from '@opentelemetry/sdk-trace-node';
import { spanContextOf, traceparentOf, type TTracingHooks } from './spans.js';

/** Metadata of a job whose processing span is linked to its producer's, not parented by it. */
const LINK_MARK = 'folio-link';
const LINKED_FROM = createContextKey('folio-vault: the span a job is linked to');
/** The span of the BullMQ operation a context runs in, kept apart from the active span (see above). */
const WITHIN = createContextKey('folio-vault: within a BullMQ operation');

/** Attributes BullMQ would set that can hold a client's data. */
const DROPPED_ATTRIBUTES = new Set(['bullmq.job.result', 'bullmq.job.progress']);

type TAttributes = Parameters<Span['setAttributes']>[0];

/**
 * bullmq-otel's span, minus the attributes above (on the span and its events). The context it makes
 * current drops the link mark; a job's processing span is the active span of its handler, any other
 * operation's is kept apart (WITHIN), so nothing under it makes a span of its own.
 */
class ServiceSpan implements Span<Context> {
  /** Whether the inner span records: attributes and events of one that does not are dropped unread. */
  private readonly recording: boolean;

  constructor(
    private readonly inner: BullMQOTelSpan,
    private readonly processing: boolean,
  ) {
    this.recording = inner.span.isRecording();
  }

  setSpanOnContext(ctx: Context): Context {
    const unlinked = ctx.getValue(LINKED_FROM) === undefined ? ctx : ctx.deleteValue(LINKED_FROM);
    return this.processing ? this.inner.setSpanOnContext(unlinked) : trace.deleteSpan(unlinked).setValue(WITHIN, this.inner.span.spanContext());
  }

  setAttribute(key: string, value: Parameters<Span['setAttribute']>[1]): void {
    if (this.recording && !DROPPED_ATTRIBUTES.has(key)) this.inner.setAttribute(key, value);
  }

  setAttributes(attributes: TAttributes): void {
    if (this.recording) this.inner.setAttributes(kept(attributes));
  }

  addEvent(name: string, attributes?: TAttributes): void {
    if (this.recording) this.inner.addEvent(name, attributes && kept(attributes));
  }

  recordException(...args: Parameters<Span['recordException']>): void {
    this.inner.recordException(...args);
  }

  end(): void {
    this.inner.end();
  }
}

/** `attributes` without the dropped ones (the same object when it holds none: the SDK copies what it keeps). */
function kept(attributes: TAttributes): TAttributes {
  for (const key of DROPPED_ATTRIBUTES) {
    if (key in attributes) return Object.fromEntries(Object.entries(attributes).filter(([name]) => !DROPPED_ATTRIBUTES.has(name)));
  }
  return attributes;
}

const ids = new RandomIdGenerator();

/** A span nobody records whose context is valid and not sampled: what starts under it is not recorded either. */
function unrecorded(): ServiceSpan {
  const spanContext: SpanContext = { traceId: ids.generateTraceId(), spanId: ids.generateSpanId(), traceFlags: TraceFlags.NONE };
  return new ServiceSpan(new BullMQOTelSpan(trace.wrapSpanContext(spanContext)), false);
}

/** Part of something recorded, and no span itself: no context to hand on. */
const PART = new ServiceSpan(new BullMQOTelSpan(trace.wrapSpanContext(INVALID_SPAN_CONTEXT)), false);

const hasRecordedSpan = (ctx: Context) => {
  const spanContext = trace.getSpanContext(ctx);
  return spanContext !== undefined && (spanContext.traceFlags & TraceFlags.SAMPLED) !== 0 && trace.isSpanContextValid(spanContext);
};

class ServiceTracer implements Tracer<Context> {
  constructor(private readonly inner: Tracer<Context>) {}

  /** `ctx`: the parent a job's metadata names; BullMQ passes none for its other spans, which start in the active context. */
  startSpan(name: string, options?: { kind: SpanKind }, ctx?: Context): Span<Context> {
    const kind = options?.kind ?? SpanKind.INTERNAL;
    const parent = ctx ?? context.active();
    const processing = kind === SpanKind.CONSUMER;
    const linked = parent.getValue(LINKED_FROM) as SpanContext | undefined;
    if (linked && processing) {
      return new ServiceSpan(this.inner.startSpan(name, { kind, links: [{ context: linked }], root: true } as { kind: SpanKind }, parent) as BullMQOTelSpan, true);
    }
    // Polling for a job (its callback starts nothing), an operation within another (a flow's
    // node), BullMQ's work on a job under its processing span.
    const recorded = hasRecordedSpan(parent);
    if (name.startsWith('getNextJob') || (!processing && parent.getValue(WITHIN)) || (kind === SpanKind.INTERNAL && recorded)) return PART;
    // A job's processing span follows its producer's decision (or starts a trace for a job nobody
    // traced); anything else of BullMQ's is recorded only under a recorded span.
    if (!processing && !recorded) return unrecorded();
    return new ServiceSpan(this.inner.startSpan(name, options, parent) as BullMQOTelSpan, processing);
  }
}

class ServiceContextManager implements ContextManager<Context> {
  constructor(private readonly inner: ContextManager<Context>) {}

  with<A extends (...args: unknown[]) => unknown>(ctx: Context, fn: A): ReturnType<A> {
    return this.inner.with(ctx, fn);
  }

  active(): Context {
    return this.inner.active();
  }

  root(): Context {
    return ROOT_CONTEXT;
  }

  getMetadata(ctx: Context): string {
    const spanContext = trace.getSpanContext(ctx) ?? (ctx.getValue(WITHIN) as SpanContext | undefined);
    return spanContext && trace.isSpanContextValid(spanContext) ? JSON.stringify({ traceparent: traceparentOf(spanContext) }) : '';
  }

  fromMetadata(activeContext: Context, metadata: string): Context {
    let carrier: Record<string, unknown>;
    try {
      carrier = JSON.parse(metadata) as Record<string, unknown>;
    } catch {
      return activeContext;
    }
    const spanContext = spanContextOf(typeof carrier.traceparent === 'string' ? carrier.traceparent : undefined);
    if (!spanContext) return activeContext;
    return carrier[LINK_MARK] === true ? activeContext.setValue(LINKED_FROM, spanContext) : trace.setSpanContext(activeContext, spanContext);
  }
}

/** The hooks the service's code reaches through tracing/spans.ts. */
export function bullmqHooks(): TTracingHooks {
  const otel = new BullMQOtel({ tracerName: 'bullmq' });
  const telemetry: Telemetry<Context> = { tracer: new ServiceTracer(otel.tracer), contextManager: new ServiceContextManager(otel.contextManager) };
  return {
    telemetry,
    // omitContext: a retry keeps the link rather than chaining to the failed attempt.
    linkedJob: (parent) => ({ metadata: JSON.stringify({ traceparent: traceparentOf(parent), [LINK_MARK]: true }), omitContext: true }),
    parentedJob: (parent) => ({ metadata: JSON.stringify({ traceparent: traceparentOf(parent) }) }),
  };
}
