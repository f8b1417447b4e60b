/**
 * An open-loop load generator: requests leave at a fixed arrival rate, on a schedule computed
 * before the run (request i is due at start + i / rate), whether or not earlier requests have been
 * answered.
 *
 * Why open loop: a closed loop (autocannon's N connections, each waiting for its answer before
 * sending the next) slows down with the server. When the server stalls, the clients stop sending,
 * so the requests that would have arrived during the stall are never sent and never measured: the
 * queueing delay real callers would see is hidden ("coordinated omission"). Real callers (hotels'
 * booking engines) do not wait for each other; an open loop sends like they do.
 *
 * How latency is measured: from the request's SCHEDULED send time to the end of its answer (the
 * last byte of the body read), not from when it was actually sent. If the generator itself is late
 * (its event loop blocked, a garbage collection, the machine busy) the delay is counted in the
 * latency, as a caller would have suffered it; how late each send was is counted too ("late sends":
 * more than 1 ms after its schedule), so a late generator shows instead of passing for a slow server.
 * The undici Pool allows many connections (512 by default, no pipelining), so requests never wait
 * for a connection unless that many are already open; such waits are counted too.
 *
 * Timeouts run from the actual send; a request not answered by then is aborted and counted as a
 * timeout, not as a latency. Latency figures are over the answered requests (any status).
 */
import { Pool } from 'undici';

export interface TOpenLoopRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface TLatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface TOpenLoopResult {
  rate: number;
  seconds: number;
  /** Requests on the schedule: rate × seconds, rounded. */
  scheduled: number;
  sent: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** ms, from each request's schedule to the end of its answer, over answered requests. */
  latency: TLatencySummary;
  /** 2xx answers per second, from the first scheduled send to the last answer. */
  achievedRate: number;
  /** Sends more than LATE_MS after their schedule, and the latest of all (ms). */
  lateSends: number;
  maxLateMs: number;
  /** Most requests waiting for an answer at once; sends that found every connection busy. */
  peakInFlight: number;
  connectionWaits: number;
  /** CPU time of this process during the run, ms: the generator's own cost (and whatever else the process runs). */
  processCpuMs: number;
  /** Per request i (due at startMs + i × intervalMs, performance.now() clock): lateness, latency (NaN unanswered). */
  samples: { startMs: number; intervalMs: number; lateMs: Float64Array; latencyMs: Float64Array };
}

/** A send later than this after its schedule is counted as late (timers fire at 1 ms granularity). */
export const LATE_MS = 1;

/** Nearest-rank percentiles, as bench/support/stats.ts's summary (kept here so this module stands alone). */
export function summarize(samples: ArrayLike<number>): TLatencySummary {
  const sorted = Float64Array.from(samples).sort();
  if (sorted.length === 0) return { p50: NaN, p90: NaN, p99: NaN, max: NaN, mean: NaN };
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { p50: at(50), p90: at(90), p99: at(99), max: sorted[sorted.length - 1]!, mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

interface TCounts {
  sent: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  peakInFlight: number;
  connectionWaits: number;
}

function resultOf(rate: number, seconds: number, counts: TCounts, lastAnswer: number, processCpuMs: number, samples: TOpenLoopResult['samples']): TOpenLoopResult {
  const { startMs, lateMs, latencyMs } = samples;
  return {
    rate,
    seconds,
    scheduled: lateMs.length,
    sent: counts.sent,
    ok: counts.ok,
    non2xx: counts.non2xx,
    errors: counts.errors,
    timeouts: counts.timeouts,
    latency: summarize(latencyMs.filter((value) => !Number.isNaN(value))),
    achievedRate: lastAnswer > startMs ? counts.ok / ((lastAnswer - startMs) / 1000) : 0,
    lateSends: lateMs.filter((value) => value > LATE_MS).length,
    maxLateMs: lateMs.reduce((a, b) => Math.max(a, b), 0),
    peakInFlight: counts.peakInFlight,
    connectionWaits: counts.connectionWaits,
    processCpuMs,
    samples,
  };
}

export interface TScheduleOptions {
  rate: number;
  seconds: number;
  timeoutMs?: number;
  /** Concurrency above which a send is counted as waiting for a connection. */
  maxConnections?: number;
  /** Sends request i; resolves with the answer's status once the answer is complete. */
  send: (i: number, signal: AbortSignal) => Promise<number>;
}

/**
 * The schedule itself, for anything that answers (HTTP below, a bare queue round trip in
 * bench/baselines/bare-bullmq.ts): sends every due request, sleeps until the next one is due, and waits at
 * the end for every answer (or its timeout).
 */
export async function runSchedule({ rate, seconds, timeoutMs = 10_000, maxConnections = Infinity, send }: TScheduleOptions): Promise<TOpenLoopResult> {
  const total = Math.round(rate * seconds);
  const intervalMs = 1000 / rate;
  const lateMs = new Float64Array(total);
  const latencyMs = new Float64Array(total).fill(NaN);
  const counts = { sent: 0, ok: 0, non2xx: 0, errors: 0, timeouts: 0, inFlight: 0, peakInFlight: 0, connectionWaits: 0 };
  let lastAnswer = 0;
  const cpuBefore = process.cpuUsage();
  // The first request is due a little after now, so setting up the loop is not counted as lateness.
  const startMs = performance.now() + 2;
  const dueAt = (i: number) => startMs + i * intervalMs;

  await new Promise<void>((done) => {
    let next = 0;
    const finishIfDone = () => {
      if (next === total && counts.inFlight === 0) done();
    };
    const fire = (i: number) => {
      const sentAt = performance.now();
      lateMs[i] = sentAt - dueAt(i);
      if (counts.inFlight >= maxConnections) counts.connectionWaits += 1;
      counts.sent += 1;
      counts.inFlight += 1;
      counts.peakInFlight = Math.max(counts.peakInFlight, counts.inFlight);
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      let answer: Promise<number>;
      try {
        answer = send(i, controller.signal);
      } catch (error) {
        answer = Promise.reject(error);
      }
      answer
        .then(
          (status) => {
            const end = performance.now();
            latencyMs[i] = end - dueAt(i);
            lastAnswer = Math.max(lastAnswer, end);
            if (status >= 200 && status < 300) counts.ok += 1;
            else counts.non2xx += 1;
          },
          () => {
            if (timedOut) counts.timeouts += 1;
            else counts.errors += 1;
          },
        )
        .finally(() => {
          clearTimeout(timer);
          counts.inFlight -= 1;
          finishIfDone();
        });
    };
    const tick = () => {
      // Everything due by now goes out at once: after a stall the generator catches up, as callers would.
      while (next < total && dueAt(next) <= performance.now()) fire(next++);
      if (next < total) setTimeout(tick, Math.max(0, Math.ceil(dueAt(next) - performance.now())));
      else finishIfDone();
    };
    setTimeout(tick, 1);
  });

  const cpu = process.cpuUsage(cpuBefore);
  return resultOf(rate, seconds, counts, lastAnswer, (cpu.user + cpu.system) / 1000, { startMs, intervalMs, lateMs, latencyMs });
}

export interface TOpenLoopOptions {
  /** The server's origin, e.g. http://127.0.0.1:3000. */
  url: string;
  rate: number;
  seconds: number;
  /** Request i of the schedule (a fresh body per request, say). */
  makeRequest: (i: number) => TOpenLoopRequest;
  maxConnections?: number;
  timeoutMs?: number;
}

/** HTTP requests on an open-loop schedule through one undici Pool, closed at the end. */
export async function openLoop({ url, rate, seconds, makeRequest, maxConnections = 512, timeoutMs = 10_000 }: TOpenLoopOptions): Promise<TOpenLoopResult> {
  const pool = new Pool(url, { connections: maxConnections, pipelining: 1 });
  try {
    return await runSchedule({
      rate,
      seconds,
      timeoutMs,
      maxConnections,
      send: async (i, signal) => {
        const { method = 'GET', path, headers, body } = makeRequest(i);
        const answer = await pool.request({ method, path, headers, body, signal });
        // The answer ends with its last byte: read it all.
        await answer.body.text();
        return answer.statusCode;
      },
    });
  } finally {
    await pool.destroy();
  }
}

/** The figures without the per-request samples, for printing and for the JSON result. */
export function figuresOf(result: TOpenLoopResult): Omit<TOpenLoopResult, 'samples'> {
  const { samples: _samples, ...figures } = result;
  return figures;
}
