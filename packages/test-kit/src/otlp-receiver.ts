import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';

/**
 * A real OTLP/HTTP trace receiver for the tests (docs/operations.md#tracing): what a collector
 * would get, decoded from `application/json` or `application/x-protobuf` (the wire format of
 * opentelemetry-proto's ExportTraceServiceRequest, read field by field below), into one shape.
 */
export interface TReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  links: Array<{ traceId: string; spanId: string }>;
  status: { code: number; message: string };
  resource: Record<string, unknown>;
  scope: string;
}

export interface TOtlpReceiver {
  url: string;
  /** Every span received (none kept with `countOnly`). */
  spans: TReceivedSpan[];
  /** Spans and export requests received so far. */
  counts: { spans: number; requests: number; bytes: number };
  /** Every export request's body as received (as UTF-8 text), for the residue scans. */
  bodies: string[];
  /** The content types the exports came in. */
  contentTypes: Set<string>;
  /** Resolves once `done` holds for the spans received, within `timeoutMs`. */
  until(done: (spans: TReceivedSpan[]) => boolean, timeoutMs?: number): Promise<TReceivedSpan[]>;
  close(): Promise<void>;
}

// ---- protobuf wire format -------------------------------------------------------------------

type TField = { number: number; wire: number; value: bigint | Buffer };

function fieldsOf(buffer: Buffer): TField[] {
  const fields: TField[] = [];
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[offset++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (offset < buffer.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wire = key & 7;
    if (wire === 0) fields.push({ number, wire, value: varint() });
    else if (wire === 1) {
      fields.push({ number, wire, value: buffer.subarray(offset, offset + 8) });
      offset += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      fields.push({ number, wire, value: buffer.subarray(offset, offset + length) });
      offset += length;
    } else if (wire === 5) {
      fields.push({ number, wire, value: buffer.subarray(offset, offset + 4) });
      offset += 4;
    } else throw new Error(`protobuf wire type ${wire} is not expected in OTLP`);
  }
  return fields;
}

const bytesOf = (fields: TField[], number: number) => fields.filter((f) => f.number === number).map((f) => f.value as Buffer);
const stringOf = (fields: TField[], number: number) => bytesOf(fields, number)[0]?.toString('utf8') ?? '';
const hexOf = (fields: TField[], number: number) => bytesOf(fields, number)[0]?.toString('hex') ?? '';
const numberOf = (fields: TField[], number: number) => Number((fields.find((f) => f.number === number)?.value as bigint | undefined) ?? 0n);

function anyValue(buffer: Buffer): unknown {
  const [field] = fieldsOf(buffer);
  if (!field) return undefined;
  switch (field.number) {
    case 1:
      return (field.value as Buffer).toString('utf8');
    case 2:
      return field.value !== 0n;
    case 3:
      return Number(BigInt.asIntN(64, field.value as bigint));
    case 4:
      return (field.value as Buffer).readDoubleLE(0);
    case 5:
      return bytesOf(fieldsOf(field.value as Buffer), 1).map(anyValue);
    case 6:
      return keyValues(bytesOf(fieldsOf(field.value as Buffer), 1));
    default:
      return (field.value as Buffer).toString('base64');
  }
}

function keyValues(entries: Buffer[]): Record<string, unknown> {
  return Object.fromEntries(
    entries.map((entry) => {
      const fields = fieldsOf(entry);
      const value = bytesOf(fields, 2)[0];
      return [stringOf(fields, 1), value ? anyValue(value) : undefined];
    }),
  );
}

function protobufSpans(body: Buffer): TReceivedSpan[] {
  return bytesOf(fieldsOf(body), 1).flatMap((resourceSpans) => {
    const rs = fieldsOf(resourceSpans);
    const resource = keyValues(bytesOf(fieldsOf(bytesOf(rs, 1)[0] ?? Buffer.alloc(0)), 1));
    return bytesOf(rs, 2).flatMap((scopeSpans) => {
      const ss = fieldsOf(scopeSpans);
      const scope = stringOf(fieldsOf(bytesOf(ss, 1)[0] ?? Buffer.alloc(0)), 1);
      return bytesOf(ss, 2).map((spanBytes): TReceivedSpan => {
        const span = fieldsOf(spanBytes);
        const status = fieldsOf(bytesOf(span, 15)[0] ?? Buffer.alloc(0));
        return {
          traceId: hexOf(span, 1),
          spanId: hexOf(span, 2),
          parentSpanId: hexOf(span, 4),
          name: stringOf(span, 5),
          kind: numberOf(span, 6),
          attributes: keyValues(bytesOf(span, 9)),
          events: bytesOf(span, 11).map((event) => {
            const fields = fieldsOf(event);
            return { name: stringOf(fields, 2), attributes: keyValues(bytesOf(fields, 3)) };
          }),
          links: bytesOf(span, 13).map((link) => {
            const fields = fieldsOf(link);
            return { traceId: hexOf(fields, 1), spanId: hexOf(fields, 2) };
          }),
          status: { code: numberOf(status, 3), message: stringOf(status, 2) },
          resource,
          scope,
        };
      });
    });
  });
}

// ---- JSON -----------------------------------------------------------------------------------

type TJsonValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number; arrayValue?: { values?: TJsonValue[] }; kvlistValue?: { values?: TJsonKeyValue[] } };
type TJsonKeyValue = { key: string; value?: TJsonValue };

function jsonValue(value: TJsonValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(jsonValue);
  if (value.kvlistValue) return jsonKeyValues(value.kvlistValue.values);
  return undefined;
}

const jsonKeyValues = (entries: TJsonKeyValue[] | undefined) => Object.fromEntries((entries ?? []).map((entry) => [entry.key, jsonValue(entry.value)]));

/** OTLP/JSON ids are hex (the specification's exception to protobuf's JSON mapping); base64 from other senders. */
const idOf = (id: string | undefined) => (!id ? '' : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex'));

function jsonSpans(body: Buffer): TReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans?: Array<{
      resource?: { attributes?: TJsonKeyValue[] };
      scopeSpans?: Array<{
        scope?: { name?: string };
        spans?: Array<{
          traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number; attributes?: TJsonKeyValue[];
          events?: Array<{ name: string; attributes?: TJsonKeyValue[] }>; links?: Array<{ traceId: string; spanId: string }>;
          status?: { code?: number; message?: string };
        }>;
      }>;
    }>;
  };
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const resource = jsonKeyValues(rs.resource?.attributes);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((span) => ({
        traceId: idOf(span.traceId),
        spanId: idOf(span.spanId),
        parentSpanId: idOf(span.parentSpanId),
        name: span.name,
        kind: span.kind ?? 0,
        attributes: jsonKeyValues(span.attributes),
        events: (span.events ?? []).map((event) => ({ name: event.name, attributes: jsonKeyValues(event.attributes) })),
        links: (span.links ?? []).map((link) => ({ traceId: idOf(link.traceId), spanId: idOf(link.spanId) })),
        status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
        resource,
        scope: ss.scope?.name ?? '',
      })),
    );
  });
}

/** The number of spans in an export, read no deeper than it takes to count them. */
function countSpans(body: Buffer, type: string): number {
  if (type === 'application/json') return jsonSpans(body).length;
  return bytesOf(fieldsOf(body), 1).reduce((sum, rs) => sum + bytesOf(fieldsOf(rs), 2).reduce((inner, ss) => inner + bytesOf(fieldsOf(ss), 2).length, 0), 0);
}

/**
 * `countOnly`: spans are counted, not decoded or kept (the benchmarks, where the receiver shares the
 * machine with the service: it should cost about what a collector's receiving costs).
 */
export async function startOtlpReceiver(options: { countOnly?: boolean } = {}): Promise<TOtlpReceiver> {
  const spans: TReceivedSpan[] = [];
  const counts = { spans: 0, requests: 0, bytes: 0 };
  const bodies: string[] = [];
  const contentTypes = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !['application/json', 'application/x-protobuf'].includes(type)) {
        res.writeHead(404).end();
        return;
      }
      contentTypes.add(type);
      counts.requests += 1;
      counts.bytes += body.length;
      if (options.countOnly) counts.spans += countSpans(body, type);
      else {
        bodies.push(body.toString('utf8'));
        const received = type === 'application/json' ? jsonSpans(body) : protobufSpans(body);
        spans.push(...received);
        counts.spans += received.length;
      }
      // An empty ExportTraceServiceResponse: everything was accepted.
      if (type === 'application/json') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    counts,
    bodies,
    contentTypes,
    async until(done, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done(spans)) {
        if (Date.now() > deadline) throw new Error(`the spans expected did not arrive in ${timeoutMs} ms; received: ${spans.map((s) => s.name).filter((name) => !/^(pg\.query|evalsha)/.test(name)).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return spans;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
