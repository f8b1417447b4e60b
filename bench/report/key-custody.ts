import type { TMachine } from '../support/machine.js';
import { median } from '../support/stats.js';
import { header, int, mark, msText, table, type TRun } from './format.js';

type TPhase = 'tokenize' | 'read' | 'forward';
interface TPhaseFigures {
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  keyOperations: Record<string, number>;
}
interface TRound {
  provider: 'software' | 'pkcs11';
  phases: Record<TPhase, TPhaseFigures>;
  eventLoopP99Ms: number;
  load: number;
}
/** bench/scenarios/key-custody.ts's result. */
interface TKeyCustodyResult {
  machine: TMachine;
  seconds: number;
  connections: number;
  rounds: TRound[];
}

/** The goals the issue set for keys in an HSM, against software keys in the same run. */
export const KEY_CUSTODY_GOALS = { minThroughputRatio: 0.8, maxP99Ratio: 1.5, maxEventLoopP99Ms: 20 };

/** Per provider and phase: the median over rounds of each figure. */
export function keyCustodyMedians(r: TKeyCustodyResult) {
  const of = (provider: TRound['provider']) => r.rounds.filter((round) => round.provider === provider);
  const phase = (provider: TRound['provider'], name: TPhase) => {
    const rounds = of(provider).map((round) => round.phases[name]);
    const operations = [...new Set(rounds.flatMap((figures) => Object.keys(figures.keyOperations)))];
    return {
      perSecond: median(rounds.map((figures) => figures.perSecond)),
      p99: median(rounds.map((figures) => figures.p99)),
      keyOperations: Object.fromEntries(operations.map((op) => [op, median(rounds.map((figures) => figures.keyOperations[op] ?? 0))])),
    };
  };
  return (['tokenize', 'read', 'forward'] as const).map((name) => {
    const software = phase('software', name);
    const pkcs11 = phase('pkcs11', name);
    return { name, software, pkcs11, throughputRatio: pkcs11.perSecond / software.perSecond, p99Ratio: pkcs11.p99 / software.p99 };
  });
}

/** docs/benchmarks.md's "Keys in an HSM" section. */
export function keyCustodySection(run: TRun): string[] {
  const r = run.result as TKeyCustodyResult | undefined;
  const lines = ['## Keys in an HSM (PKCS#11) against software keys', '', ...header('key-custody', run)];
  if (!r) return lines;
  const phases = keyCustodyMedians(r);
  const calls = (operations: Record<string, number>) =>
    Object.entries(operations).filter(([, n]) => n > 0.005).map(([op, n]) => `${n.toFixed(2)} ${op}`).join(' + ') || '0';
  const loop = (provider: TRound['provider']) => median(r.rounds.filter((round) => round.provider === provider).map((round) => round.eventLoopP99Ms));
  const { minThroughputRatio, maxP99Ratio, maxEventLoopP99Ms } = KEY_CUSTODY_GOALS;
  lines.push(
    `API and worker as separate processes (NODE_ENV=production, rate limits lifted); the worker's keys in a SoftHSM2 token (\`pkcs11\`) or as software keys (\`components\`, the code \`local\` runs). autocannon, ${r.connections} connections, ${r.seconds} s a phase after 1 s of warm-up: tokenize (a different card each request), read (one token's metadata), forward (to a local HTTPS gateway, a fresh Idempotency-Key each). The providers alternate; ${r.rounds.length / 2} rounds each, the median shown. Key operations per request from the worker's \`vault_key_operations_total\`; the worker's event-loop delay p99 over the tokenize phase from \`nodejs_eventloop_lag_p99_seconds\`. Goals: throughput ≥ ${minThroughputRatio}× and p99 ≤ ${maxP99Ratio}× software keys, event-loop delay p99 ≤ ${maxEventLoopP99Ms} ms.`,
    '',
    table(
      ['', 'software req/s', 'pkcs11 req/s', 'ratio', 'software p99', 'pkcs11 p99', 'ratio', 'key operations a request (pkcs11)'],
      phases.map((p) => [
        p.name, int(p.software.perSecond), int(p.pkcs11.perSecond), `${p.throughputRatio.toFixed(2)}× ${mark(p.throughputRatio >= minThroughputRatio)}`,
        msText(p.software.p99), msText(p.pkcs11.p99), `${p.p99Ratio.toFixed(2)}× ${mark(p.p99Ratio <= maxP99Ratio)}`, calls(p.pkcs11.keyOperations),
      ]),
    ),
    '',
    `Worker event-loop delay p99 during tokenize: software ${msText(loop('software'))}, pkcs11 ${msText(loop('pkcs11'))} ${mark(loop('pkcs11') <= maxEventLoopP99Ms)}.`,
    '',
  );
  return lines;
}
