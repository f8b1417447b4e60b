/**
 * Hostile answers: what a gateway's answer built to be expensive costs the worker, measured by
 * bench/scenarios/forward-overhead.ts against its own API and worker processes (this file is its
 * part, not a script of its own).
 *
 * A local HTTPS gateway answers forwards to the destination `hostile` with, by path: 1 MiB of
 * "1 1 1 …" (over FORWARD_MAX_ANSWER_BYTES: the worker stops reading at the cap and answers 502
 * FORWARD_ANSWER_TOO_LARGE), and, just under the cap, the shapes the masking (packages/shared/src/
 * vault/forward/mask.ts) has most work with: "1 1 1 …", the forwarded card's own groups repeated
 * ("4242 4242 …"), base64 of base64 of base64 of card groups, escapes of every kind at every depth,
 * and a 60 kB JSON description echoing the card and the holder's name. For each, one forward at a
 * time (`runs` of them): the worker's largest event-loop delay over the forward, from its /metrics
 * (nodejs_eventloop_lag_max_seconds; prom-client resets it at each scrape, so one scrape before and
 * one after frame the forward), the forward's time end to end, and the masking alone in this
 * process (answer.ts's clientAnswer, the function the worker runs, warm: median of five).
 *
 * Then another property's tokenize latency, sequential requests, first with the service idle, then
 * while four clients forward hostile answers (the shapes in turn) without pause: what one tenant's
 * hostile gateway costs another tenant.
 */
import { randomBytes } from 'node:crypto';
import { clientAnswer } from '@folio-vault/shared/vault/forward/answer';
import type { TGatewayHandler } from '@folio-vault/test-kit/gateway';
import { summary } from '../support/stats.js';

/** FORWARD_MAX_ANSWER_BYTES's default. */
export const ANSWER_CAP = 262_144;
const UNDER_CAP = ANSWER_CAP - 1024;
const CARD = '4242424242424242';
const HOLDER = 'Zoë Łukasiewicz';
const b64 = (text: string) => Buffer.from(text).toString('base64');
/** `unit` repeated to exactly `bytes` ASCII characters. */
const sized = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);

/** Each shape's answer body; the first is over the cap. */
const SHAPES: Record<string, () => string> = {
  'ones, 1 MiB (over the cap)': () => sized('1 ', 1024 * 1024),
  '"1 1 1 …"': () => sized('1 ', UNDER_CAP),
  '"4242 4242 …" (the card\'s groups)': () => sized('4242 ', UNDER_CAP),
  'base64 of base64 of base64 of card groups': () => {
    let inner = `${CARD.match(/.{4}/g)!.join(' ')} `;
    inner = inner.repeat(Math.floor((UNDER_CAP * 27) / 64 / inner.length));
    return b64(b64(b64(inner)));
  },
  'escapes at every depth': () => sized('%2534&#52;\\u0034=34<b>4</b>&#0052&thinsp;', UNDER_CAP),
  '60 kB echoed description': () => JSON.stringify({ id: 'ch_1', description: `${HOLDER} ${CARD} ${sized('room 12, 3 nights; ', 60_000)}` }),
};
export const HOSTILE_SHAPES = Object.keys(SHAPES);
const BODIES = new Map(Object.entries(SHAPES).map(([shape, make], i) => [`/v1/hostile/${i}`, { shape, body: make() }]));

/** The gateway of the destination `hostile`: /v1/hostile/<i> answers shape i. */
export const hostileGateway: TGatewayHandler = ({ req, res }) => {
  const answer = BODIES.get(req.url ?? '');
  res.writeHead(answer ? 200 : 404, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(answer?.body ?? 'no such shape');
};

export interface THostileAnswer {
  shape: string;
  bytes: number;
  /** The forward's answer: 200, or 502 FORWARD_ANSWER_TOO_LARGE. */
  status: number;
  errorCode?: string;
  /** The worker's largest event-loop delay over one forward, the largest of the runs. */
  eventLoopMaxMs: number;
  forwardMs: ReturnType<typeof summary>;
  /** clientAnswer() alone in the bench process, warm; none for an answer over the cap (never read whole). */
  maskMs?: number;
}

export interface THostileFigures {
  cap: number;
  runs: number;
  answers: THostileAnswer[];
  tokenize: { idle: ReturnType<typeof summary>; underLoad: ReturnType<typeof summary>; parallelForwards: number; forwardsDuringLoad: number };
}

export interface THostileSetup {
  api: string;
  /** Headers of a vault request of `property`, JSON body. */
  headers: (property: string) => Record<string, string>;
  /** The worker's /metrics text. */
  workerMetrics: () => Promise<string>;
  /** A token of property 1 whose card is CARD, held by HOLDER. */
  tokenId: string;
  runs: number;
  tokenizeSamples: number;
}

const TEMPLATE = JSON.stringify({ amount: 1000, card: { number: '{{card.number}}', name: '{{card.holder_name}}' } });
export const HOSTILE_CARD = { card_number: CARD, cvv: '123', cardholder_name: HOLDER };
const eventLoopMaxMs = (metrics: string) => Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(metrics)?.[1] ?? NaN) * 1000;

async function forwardHostile(setup: THostileSetup, path: string): Promise<{ status: number; errorCode?: string; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${setup.api}/vault/v1/tokens/${setup.tokenId}/forward`, {
    method: 'POST',
    headers: { ...setup.headers('1'), 'idempotency-key': `hostile-${randomBytes(8).toString('hex')}` },
    body: JSON.stringify({ destination: 'hostile', path, headers: { 'Content-Type': 'application/json' }, body: TEMPLATE }),
  });
  const answer = (await res.json()) as { errorCode?: string; status?: number };
  const ms = performance.now() - started;
  if (res.status !== 200 && answer.errorCode !== 'FORWARD_ANSWER_TOO_LARGE') throw new Error(`hostile forward answered ${res.status} ${answer.errorCode}`);
  return { status: res.status, ...(answer.errorCode ? { errorCode: answer.errorCode } : {}), ms };
}

async function maskingMs(body: string): Promise<number> {
  const secrets = { pan: CARD, holderName: HOLDER };
  const headers = { 'content-type': 'text/plain; charset=utf-8' };
  for (let i = 0; i < 3; i += 1) await clientAnswer(undefined, { headers, body }, secrets);
  const samples: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now();
    await clientAnswer(undefined, { headers, body }, secrets);
    samples.push(performance.now() - started);
  }
  return summary(samples).p50;
}

async function tokenizeLatency(setup: THostileSetup, samples: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const started = performance.now();
    const res = await fetch(`${setup.api}/vault/v1/tokens/card`, {
      method: 'POST',
      headers: setup.headers('2'),
      body: JSON.stringify({ card_number: '5555555555554444', cvv: '123', cardholder_name: 'Other Hotel Guest', expiration: { month: '08', year: String(new Date().getUTCFullYear() + 3) } }),
    });
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`tokenize answered ${res.status}`);
  }
  return latencies;
}

export async function measureHostileAnswers(setup: THostileSetup): Promise<THostileFigures> {
  const answers: THostileAnswer[] = [];
  for (const [path, { shape, body }] of BODIES) {
    // The first forward of a shape warms the worker's code for it; it is not counted.
    await forwardHostile(setup, path);
    const times: number[] = [];
    let worst = 0;
    let last: { status: number; errorCode?: string } = { status: 0 };
    for (let run = 0; run < setup.runs; run += 1) {
      await setup.workerMetrics();
      const forwarded = await forwardHostile(setup, path);
      times.push(forwarded.ms);
      last = forwarded;
      worst = Math.max(worst, eventLoopMaxMs(await setup.workerMetrics()));
    }
    const over = Buffer.byteLength(body) > ANSWER_CAP;
    answers.push({
      shape, bytes: Buffer.byteLength(body), status: last.status, ...(last.errorCode ? { errorCode: last.errorCode } : {}),
      eventLoopMaxMs: worst, forwardMs: summary(times), ...(over ? {} : { maskMs: await maskingMs(body) }),
    });
  }

  await tokenizeLatency(setup, 10);
  const idle = await tokenizeLatency(setup, setup.tokenizeSamples);
  const maskedPaths = [...BODIES].filter(([, { body }]) => Buffer.byteLength(body) <= ANSWER_CAP).map(([path]) => path);
  let running = true;
  let forwardsDuringLoad = 0;
  const parallelForwards = 4;
  const load = Array.from({ length: parallelForwards }, async (_, client) => {
    for (let i = client; running; i += 1) {
      await forwardHostile(setup, maskedPaths[i % maskedPaths.length]!);
      forwardsDuringLoad += 1;
    }
  });
  const underLoad = await tokenizeLatency(setup, setup.tokenizeSamples);
  running = false;
  await Promise.all(load);
  return { cap: ANSWER_CAP, runs: setup.runs, answers, tokenize: { idle: summary(idle), underLoad: summary(underLoad), parallelForwards, forwardsDuringLoad } };
}
