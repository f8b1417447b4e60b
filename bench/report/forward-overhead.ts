import type { THostileFigures } from '../scenarios/forward-hostile-answers.js';
import type { TForwardFigures } from '../scenarios/forward-overhead.js';
import type { TMachine } from '../support/machine.js';
import { header, int, msText, table, type TRun } from './format.js';

/** bench/scenarios/forward-overhead.ts's result. */
export interface TForwardResult {
  machine: TMachine;
  clients: number;
  sequential: TForwardFigures;
  concurrent: TForwardFigures;
  /** The floor of the forward's shape (bench/baselines/service-floor.ts), one client; absent from older results. */
  floor?: TForwardFigures;
  /** Hostile answers (bench/scenarios/forward-hostile-answers.ts); absent from older results. */
  hostile?: THostileFigures;
}

/** docs/benchmarks.md's "Forward" section: a forward through the vault against the same call made directly. */
export function forwardSection(run: TRun): string[] {
  const r = run.result as TForwardResult | undefined;
  const lines = ['## Forward', '', ...header('forward', run)];
  if (!r) return lines;
  const { sequential: one, concurrent: many, floor } = r;
  lines.push(
    'POST /vault/v1/tokens/{id}/forward through the API and worker as separate processes (NODE_ENV=production, rate limits lifted) to a local HTTPS gateway (packages/test-kit/src/gateway.ts: a certificate from an openssl-made test CA; it answers 200 JSON echoing the body), against the baseline measured in the same run: the same request — the body and headers the gateway received from the worker, with card number, expiry and holder name filled in — sent from the bench process straight to the same gateway with an undici Pool trusting the same CA, as the worker\'s gateway client does; the forwards go to the API through an undici Pool too, so both sides pay the same client cost. Every iteration makes one direct call, then one forward (a fresh Idempotency-Key each; no `{{card.cvv}}`), so both see the same machine. The overhead is forward − direct, per percentile: what the vault adds to a gateway call (API checks, the queue both ways, the worker\'s transaction recording the attempt before the call, opening the card, masking the answer, recording it).',
    '',
    table(
      ['clients', 'forwards', 'direct p50', 'forward p50', 'overhead p50', 'direct p99', 'forward p99', 'overhead p99', 'load'],
      [
        ['1 (sequential)', one],
        [`${r.clients} concurrent`, many],
        ...(floor ? [['floor, 1 (sequential)', floor]] : []),
      ].map(([label, f]) => {
        const figures = f as TForwardFigures;
        return [
          label as string,
          int(figures.requests),
          msText(figures.direct.p50),
          msText(figures.forward.p50),
          `**${msText(figures.overhead.p50)}**`,
          msText(figures.direct.p99),
          msText(figures.forward.p99),
          `**${msText(figures.overhead.p99)}**`,
          figures.load.toFixed(1),
        ];
      }),
    ),
    '',
    `One client: a forward took ${(one.forward.p50 / one.direct.p50).toFixed(1)}× the direct call at p50; the vault added ${msText(one.overhead.p50)} at p50 and ${msText(one.overhead.p99)} at p99. ${r.clients} clients: ${msText(many.overhead.p50)} at p50 and ${msText(many.overhead.p99)} at p99, each client waiting for its forward before its next call. The machine's ${r.machine.cores} cores run the API, the worker, Redis, PostgreSQL, the gateway and the bench${Math.max(one.load, many.load) > r.machine.cores ? `; the load (${Math.max(one.load, many.load).toFixed(1)}) was above the core count, so other work shared the machine and these figures overstate the overhead` : ''}.`,
    '',
  );
  if (floor) {
    lines.push(
      `The floor (bench/baselines/service-floor.ts) is the forward's shape with none of the vault's work: an Express app adding one BullMQ job a request and answering its result, and a worker process whose handler only sends the template (placeholders unfilled) to the same gateway through an undici Pool — no authentication, validation, rate limit, database, card or log line. It added ${msText(floor.overhead.p50)} to the direct call at p50 (${msText(floor.overhead.p99)} at p99), against the vault's ${msText(one.overhead.p50)}: the vault's own work is ${msText(one.overhead.p50 - floor.overhead.p50)} of the overhead, the shape's hops the rest.`,
      '',
    );
  }
  if (r.hostile) lines.push(...hostileLines(r.hostile));
  return lines;
}

/** The hostile answers' part: the worker's event-loop cost of each, and another property's tokenize beside them. */
function hostileLines(h: THostileFigures): string[] {
  const { idle, underLoad, parallelForwards, forwardsDuringLoad } = h.tokenize;
  return [
    '### Hostile answers',
    '',
    `Against the same API and worker, a gateway answering bodies built to be expensive (bench/scenarios/forward-hostile-answers.ts): one over the cap (FORWARD_MAX_ANSWER_BYTES, ${int(h.cap)} bytes), which the worker stops reading at the cap and answers 502 FORWARD_ANSWER_TOO_LARGE, and others just under it that the answer masking has most work with. Each forwarded ${h.runs} times, one at a time, after one that warms the worker's code: the worker's largest event-loop delay over a forward (its /metrics, \`nodejs_eventloop_lag_max_seconds\`, read before and after each), the forward end to end at p50, and the masking alone (\`clientAnswer\`, the function the worker runs) in the bench process, warm.`,
    '',
    table(
      ['answer', 'bytes', 'answered', 'worker event-loop max', 'forward p50', 'masking alone'],
      h.answers.map((a) => [a.shape, int(a.bytes), a.errorCode ? `502 ${a.errorCode}` : String(a.status), `**${msText(a.eventLoopMaxMs)}**`, msText(a.forwardMs.p50), a.maskMs === undefined ? '—' : msText(a.maskMs)]),
    ),
    '',
    `Another property's tokenize, sequential requests: idle p50 ${msText(idle.p50)}, p99 ${msText(idle.p99)}; while ${parallelForwards} clients forward these answers without pause (${int(forwardsDuringLoad)} forwards) p50 **${msText(underLoad.p50)}**, p99 **${msText(underLoad.p99)}**.`,
    '',
  ];
}
