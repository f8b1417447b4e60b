// The service's own spans (docs/operations.md#tracing), and the trace context that crosses a process
// boundary where no library carries it: a render process's piece, a night-audit piece linked to its
// batch. Only @opentelemetry/api is loaded here: with tracing off no tracer provider is registered,
// every span below is the API's no-op span, and BullMQ is given no telemetry (tracing/start.ts).
// Attributes name what was done (a format, a count, a destination's name, an event type), never a
// value of a request: no card field, no URL, no template, no secret.

import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Link, type Span, type SpanContext } from '@opentelemetry/api';
import type { JobsOptions, Telemetry } from 'bullmq';

export type { Span };

/** The tracer of the service's own spans (the provider's once one is registered: a proxy until then). */
const tracer = () => trace.getTracer('folio-vault');

/** What a started tracing SDK hands the service's code (tracing/sdk.ts); absent while tracing is off. */
export interface TTracingHooks {
  /** BullMQ's telemetry: the producer and consumer spans, and the trace context in each job. */
  telemetry: Telemetry;
  /** A job's telemetry options that link its processing span to the active span instead of parenting it. */
  linkedJob(parent: SpanContext): NonNullable<JobsOptions['telemetry']>;
  /** A job's telemetry options that make the active span its processing span's parent. */
  parentedJob(parent: SpanContext): NonNullable<JobsOptions['telemetry']>;
}

let hooks: TTracingHooks | undefined;

/** Called once by the tracing SDK when it starts. */
export function useTracingHooks(started: TTracingHooks): void {
  hooks = started;
}

/** BullMQ's `telemetry` option for a Queue, Worker or FlowProducer: none while tracing is off. */
export function queueTelemetry(): { telemetry?: Telemetry } {
  return hooks ? { telemetry: hooks.telemetry } : {};
}

/** The active span's context when it is recorded (sampled); undefined otherwise. */
function recordedSpanContext(): SpanContext | undefined {
  const spanContext = trace.getSpan(context.active())?.spanContext();
  return spanContext && (spanContext.traceFlags & TraceFlags.SAMPLED) !== 0 && trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * Job options under which the job's processing span starts a trace of its own, linked to the active
 * span: a night audit's pieces, so a batch of thousands of sources is not one trace of thousands of
 * children. Empty when nothing is traced.
 */
export function linkedJobOptions(): { telemetry?: JobsOptions['telemetry'] } {
  const parent = recordedSpanContext();
  return hooks && parent ? { telemetry: hooks.linkedJob(parent) } : {};
}

/**
 * Job options under which the job's processing span is a child of the active span: a flow's node,
 * whose adding makes no span of its own (tracing/bullmq-telemetry.ts). Empty when nothing is traced.
 */
export function parentedJobOptions(): { telemetry?: JobsOptions['telemetry'] } {
  const parent = recordedSpanContext();
  return hooks && parent ? { telemetry: hooks.parentedJob(parent) } : {};
}

/** The active span as a W3C traceparent, for a process that has no other way to learn it (a render process). */
export function activeTraceparent(): string | undefined {
  const spanContext = recordedSpanContext();
  return spanContext && traceparentOf(spanContext);
}

export function traceparentOf(spanContext: SpanContext): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & TraceFlags.SAMPLED) !== 0 ? '01' : '00'}`;
}

/** The span context a W3C traceparent names; undefined for anything else. */
export function spanContextOf(traceparent: string | undefined): SpanContext | undefined {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(traceparent ?? '');
  if (!match) return undefined;
  const spanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED, isRemote: true };
  return trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** A context whose parent is the span a traceparent names (the root context when it names none). */
export function contextOf(traceparent: string | undefined): Context {
  const spanContext = spanContextOf(traceparent);
  return spanContext ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}

/**
 * The active context when a recorded span is active; otherwise the root context, so that a span
 * started under it begins a trace of its own (a scheduled night audit, whose start is not traced).
 */
export function tracedOrNewTrace(): Context {
  return recordedSpanContext() ? context.active() : ROOT_CONTEXT;
}

export interface TSpanOptions {
  kind?: SpanKind;
  /** The parent; the active context when absent. */
  parent?: Context;
  /** Starts a trace of its own, linked to these. */
  links?: Link[];
}

/**
 * Runs `work` in a span of its own. A failure marks the span failed with the error's name only:
 * messages can quote what a driver or a receiver said, and the logs already carry them.
 */
export async function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>, options: TSpanOptions = {}): Promise<T> {
  const links = options.links ?? [];
  const spanOptions = { kind: options.kind ?? SpanKind.INTERNAL, attributes, ...(links.length > 0 ? { links, root: true } : {}) };
  return tracer().startActiveSpan(name, spanOptions, options.parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      spanFailed(span, error instanceof Error ? error.name : 'Error');
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks a span failed, with a short word for why (never a message that could quote data). */
export function spanFailed(span: Span, why: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: why });
}

/** The recorded span of the active context, when there is one (trace_id and span_id of a log line). */
export function activeSpanIds(): { trace_id: string; span_id: string } | undefined {
  const spanContext = recordedSpanContext();
  return spanContext ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : undefined;
}
