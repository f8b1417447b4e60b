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
  return lines;
}
