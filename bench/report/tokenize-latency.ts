import type { TMachine } from '../support/machine.js';
import { header, int, msText, table, type TRun } from './format.js';

interface TLatency {
  p50: number;
  p99: number;
  perSecond?: number;
}
/** bench/scenarios/tokenize-latency.ts's result. */
interface TLatencyResult {
  machine: TMachine;
  requests: number;
  bare: TLatency;
  single: TLatency;
  split: TLatency;
}

/** docs/benchmarks.md's "Tokenize latency, sequential" section. */
export function tokenizeLatencySection(run: TRun): string[] {
  const r = run.result as TLatencyResult | undefined;
  const lines = ['## Tokenize latency, sequential', '', ...header('latency', run)];
  if (!r) return lines;
  lines.push(
    `${int(r.requests)} sequential requests (one client), against a bare BullMQ round trip on the same Redis.`,
    '',
    table(
      ['', 'p50', 'p99', 'p50 vs bare', 'req/s'],
      [
        ['bare BullMQ round trip', msText(r.bare.p50), msText(r.bare.p99), '1.0×', ''],
        ['tokenize, one process', msText(r.single.p50), msText(r.single.p99), `${(r.single.p50 / r.bare.p50).toFixed(1)}×`, int(r.single.perSecond ?? 0)],
        ['tokenize, worker apart', msText(r.split.p50), msText(r.split.p99), `${(r.split.p50 / r.bare.p50).toFixed(1)}×`, int(r.split.perSecond ?? 0)],
      ],
    ),
    '',
  );
  return lines;
}
