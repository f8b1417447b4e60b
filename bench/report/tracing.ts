import type { TTracingResult } from '../scenarios/tracing.js';
import { header, int, msText, table, type TRun } from './format.js';

const cpuText = (byProcess: Record<string, number>, digits: number) =>
  Object.entries(byProcess)
    .filter(([, ms]) => ms >= 0.005)
    .map(([role, ms]) => `${role} ${ms.toFixed(digits)}`)
    .join(', ');

/** docs/benchmarks.md's "Tracing" section (bench/scenarios/tracing.ts's result). */
export function tracingSection(run: TRun): string[] {
  const r = run.result as TTracingResult | undefined;
  const lines = ['## Tracing', '', ...header('tracing', run)];
  if (!r) return lines;
  lines.push(
    `The service as deployed (API and worker as separate compiled processes, NODE_ENV=production, the rate limits lifted), twice side by side on their own queues: tracing off, and every request traced (sampling 1.0) with its spans sent over OTLP/HTTP in protobuf to a local receiver that counts them ([operations.md](operations.md#tracing)). The two are measured in turn, on then off, ${r.rounds} rounds each after ${r.warmUpRounds} warm-up rounds each: a round is tokenize with ${r.connections} connections for ${r.durationSeconds} s, then ${r.clients} clients exporting typical 30-row folios for ${r.exportSeconds} s. "CPU" is each kind of process's CPU time per answered request or export (both services' processes; the idle one's share is small).`,
    '',
    table(
      ['tracing', 'tokenize/s', 'p50', 'p99', 'CPU a tokenize (ms)', 'exports/s', 'export p50', 'export p99', 'CPU an export (ms)', 'load'],
      r.runs.map((one) => [
        one.tracing,
        int(one.tokenize.perSecond),
        msText(one.tokenize.p50),
        msText(one.tokenize.p99),
        cpuText(one.tokenize.cpuMsPerRequest, 2),
        one.exports.perSecond.toFixed(1),
        msText(one.exports.e2e.p50),
        msText(one.exports.e2e.p99),
        cpuText(one.exports.cpuMsPerExport, 1),
        `${one.tokenize.load.toFixed(1)} / ${one.exports.load.toFixed(1)}`,
      ]),
    ),
    '',
    `Tracing on over off (the medians of each side's rounds): tokenize ${r.tokenizeRatio.toFixed(2)}, small exports ${r.exportRatio.toFixed(2)}. The receiver got ${int(r.received.spans)} spans over the measured rounds.`,
    '',
  );
  return lines;
}
