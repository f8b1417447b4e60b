import type { TOpenLoopFigures, TTokenizeOpenLoopResult } from '../scenarios/tokenize-open-loop.js';
import { header, int, mark, msText, table, type TRun } from './format.js';

const row = (name: string, f: TOpenLoopFigures, extra: string[] = []) => [
  name,
  int(f.rate),
  int(f.sent),
  int(f.ok),
  `${f.non2xx} / ${f.errors} / ${f.timeouts}`,
  msText(f.latency.p50),
  msText(f.latency.p90),
  msText(f.latency.p99),
  msText(f.latency.max),
  int(f.achievedRate),
  `${int(f.lateSends)} (${msText(f.maxLateMs)})`,
  f.processCpuMs === undefined ? '–' : `${(f.processCpuMs / f.sent).toFixed(2)} ms`,
  f.load.toFixed(1),
  ...extra,
];
const HEAD = ['', 'req/s offered', 'sent', '2xx', 'non-2xx / errors / timeouts', 'p50', 'p90', 'p99', 'max', '2xx/s', 'late sends (max)', 'bench process CPU / req', 'load'];

/** docs/benchmarks.md's "Tokenize, open loop" section: a fixed arrival rate, then the highest rate held. */
export function openLoopSection(run: TRun): string[] {
  const r = run.result as TTokenizeOpenLoopResult | undefined;
  const lines = ['## Tokenize, open loop', '', ...header('tokenize-open-loop', run)];
  if (!r) return lines;
  const shape = r.shape === 'split' ? 'API and worker as separate processes' : 'API and worker in one process (`npm start`)';
  const { fixed } = r;
  lines.push(
    `POST /vault/v1/tokens/card at a fixed arrival rate (packages/test-kit/src/open-loop.ts): each request leaves on a schedule computed before the run, whether or not earlier ones were answered, and its latency runs from its **scheduled** send time to the last byte of its answer. A closed loop (the autocannon section above) stops sending while the service stalls, so the requests that would have queued are never measured; here they are, and a generator that falls behind its schedule shows too (late sends: more than 1 ms after their schedule, counted in their latency). The bench process's CPU per request shows what the generator itself costs (for the bare queue it includes the queue's worker, which runs there). An undici Pool of up to ${r.maxConnections} connections, no pipelining; a different generated card each request (test mode); ${shape}, NODE_ENV=production, rate limits lifted; ${r.warmUpSeconds} s warm-up at the fixed rate${r.warmUp ? " (its figures are in the table: a service's first seconds of load are its slowest)" : ''}. Baseline on the same schedule, before and after the service: a bare BullMQ add → process → result round trip on the same Redis (its worker in the bench process, the service's concurrency), what the queue alone costs at that rate.`,
    '',
    table(HEAD, [
      ...r.bareRuns.map((bare, i) => row(`bare BullMQ round trip (${i === 0 ? 'before' : 'after'})`, bare)),
      ...(r.warmUp ? [row(`tokenize, its warm-up (the service's first ${r.warmUpSeconds} s of load)`, r.warmUp)] : []),
      row('**tokenize**', fixed),
    ]),
    '',
    `Rate search: ${r.stepSeconds} s a step, rising until a step does not hold (p99 > ${r.searchP99LimitMs} ms, or any request without a 2xx), then halving the gap between the last rate held and the first not held.`,
    '',
    table(
      [...HEAD, 'held'],
      r.steps.map((step) => row(step.refined ? 'step (refined)' : 'step', step, [mark(step.held)])),
    ),
    '',
  );
  const busiest = Math.max(fixed.load, ...r.steps.map((step) => step.load));
  lines.push(
    `Highest rate held at p99 ≤ ${r.searchP99LimitMs} ms: **${int(r.highestHeld)} req/s**. At ${int(fixed.rate)} req/s tokenize answered at p50 ${msText(fixed.latency.p50)} and p99 ${msText(fixed.latency.p99)}, the bare queue at p99 ${r.bareRuns.map((bare) => msText(bare.latency.p99)).join(' and ')}.${busiest > r.machine.cores ? ` The load (up to ${busiest.toFixed(1)}) was above the machine's ${r.machine.cores} cores: other work shared the machine and these latencies overstate the service's.` : ''}`,
    '',
  );
  return lines;
}
