import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadTracingSettings } from '@folio-vault/shared/config';
import { startTracing } from '@folio-vault/shared/tracing/start';
import { spanContextOf, traceparentOf } from '@folio-vault/shared/tracing/spans';
import { testKeys } from '../support/world.js';

/** The problem lines loadConfig throws for `extra` over a valid worker environment. */
function problemsOf(extra: Record<string, string>): string[] {
  try {
    loadConfig({ ...testKeys(), ...extra }, 'worker');
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

describe('tracing settings (OTEL_*)', () => {
  it('are off by default: no endpoint, protobuf, the parent-based always-on sampler, a 5 s batch', () => {
    expect(loadTracingSettings({})).toEqual({
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_TRACES_SAMPLER_ARG: 1,
      OTEL_BSP_SCHEDULE_DELAY: 5000,
      OTEL_SDK_DISABLED: false,
    });
  });

  it('reads the standard values, the headers percent-decoded with lower-case names', () => {
    const settings = loadTracingSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.internal:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Api-Token%20abc%3D,x-team=blue',
      OTEL_SERVICE_NAME: 'folio-vault-api-eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(settings).toMatchObject({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.internal:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: { authorization: 'Api-Token abc=', 'x-team': 'blue' },
      OTEL_SERVICE_NAME: 'folio-vault-api-eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: 0.25,
    });
  });

  it('stop the start with one line per bad value, naming the setting', () => {
    const bad = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_TRACES_SAMPLER: 'jaeger_remote',
      OTEL_TRACES_SAMPLER_ARG: '1.5',
      OTEL_BSP_SCHEDULE_DELAY: '0',
      OTEL_SERVICE_NAME: 'folio vault',
      OTEL_SDK_DISABLED: 'maybe',
    };
    const problems = problemsOf(bad);
    expect(problems.map((line) => line.split(':')[0]).sort()).toEqual(Object.keys(bad).sort());
    expect(problems).toContain('OTEL_EXPORTER_OTLP_PROTOCOL: must be http/protobuf or http/json (gRPC is not supported)');
    expect(problems).toContain('OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1');
    expect(problems).toContain('OTEL_BSP_SCHEDULE_DELAY: must be 1-60000 ms');
    // A bad value starts the process untraced as far as tracing goes: loadConfig has refused it.
    expect(loadTracingSettings(bad)).toBeUndefined();
  });

  it('refuse a header that is not name=value by its position, never echoing the value', () => {
    const secret = randomBytes(12).toString('hex');
    const problems = problemsOf({ OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${secret}%zz,authorization` });
    expect(problems).toEqual(['OTEL_EXPORTER_OTLP_HEADERS: entry 1 must be name=value (the value percent-encoded)']);
    expect(problemsOf({ OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${secret},authorization` })).toEqual([
      'OTEL_EXPORTER_OTLP_HEADERS: entry 2 must be name=value (the value percent-encoded)',
    ]);
  });

  it('leave tracing off, loading nothing, without a collector, when disabled, or with a bad value', async () => {
    for (const env of [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }]) {
      expect((await startTracing('api', env)).on).toBe(false);
    }
  });
});

describe('the trace context a process hands another (W3C traceparent)', () => {
  const spanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };

  it('is written and read back, sampled or not', () => {
    expect(traceparentOf(spanContext)).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(spanContextOf('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({ ...spanContext, isRemote: true });
    expect(spanContextOf('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00')).toEqual({ ...spanContext, traceFlags: 0, isRemote: true });
  });

  it('is nothing when it is not one', () => {
    for (const text of [undefined, '', '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', '00-00000000000000000000000000000000-00f067aa0ba902b7-01', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01']) {
      expect(spanContextOf(text)).toBeUndefined();
    }
  });
});
