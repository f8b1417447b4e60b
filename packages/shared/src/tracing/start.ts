// Tracing's switch (docs/operations.md#tracing). A process calls startTracing before it loads any
// module that tracing instruments (the entry points: apps/api/src/main.ts, apps/worker/src/main.ts,
// scripts/start.ts, and render-child.ts). Off — no collector named, OTEL_SDK_DISABLED, or a bad
// OTEL_* value, which the start then refuses with its line (config.ts) — nothing of OpenTelemetry's
// SDK or instrumentations is loaded; without a collector named, not even the settings' schema (a
// render process loads no zod).

import type { TTracedRole } from './sdk.js';

export interface TTracing {
  /** Whether spans are recorded and sent. */
  on: boolean;
  /** Sends the spans still waiting (at most `withinMs`); nothing to do when off. */
  shutdown(withinMs?: number): Promise<void>;
}

const OFF: TTracing = { on: false, shutdown: async () => undefined };

const named = (value: string | undefined) => value !== undefined && value.trim() !== '';

export async function startTracing(role: TTracedRole, env: NodeJS.ProcessEnv = process.env): Promise<TTracing> {
  if (!named(env.OTEL_EXPORTER_OTLP_ENDPOINT) && !named(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) return OFF;
  const { loadTracingSettings } = await import('../config.js');
  const settings = loadTracingSettings(env);
  if (!settings || settings.OTEL_SDK_DISABLED) return OFF;
  const { startSdk } = await import('./sdk.js');
  const sdk = startSdk(role, settings);
  // A render process makes its own spans only: nothing of it is instrumented.
  if (role !== 'render') (await import('./instrument.js')).instrument(role, sdk.provider);
  return {
    on: true,
    // A collector that does not answer must not hold a stopping process past its bound.
    shutdown: async (withinMs = 5_000) => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([sdk.shutdown().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)))]);
      clearTimeout(timer);
    },
  };
}
