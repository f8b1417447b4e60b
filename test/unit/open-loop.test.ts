import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openLoop, type TOpenLoopResult } from '@folio-vault/test-kit/open-loop';

/**
 * The open-loop generator (packages/test-kit/src/open-loop.ts) against a real HTTP server started here, in this
 * process, so the server's and the generator's times are read on the same clock (performance.now()).
 * Only relationships that hold on any machine are asserted: exact counts, and latencies at least a
 * delay the test itself imposed (a stalled server, a stalled generator), never a machine's speed.
 */
type THandler = (index: number, request: IncomingMessage, response: ServerResponse) => void;

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server that hands each request, once its body is read, to `handle` with the index it carries. */
async function startServer(handle: THandler): Promise<{ url: string; received: number[] }> {
  const received: number[] = [];
  server = createServer((request, response) => {
    const index = Number(request.headers['x-index']);
    received.push(index);
    request.resume();
    request.on('end', () => handle(index, request, response));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, received };
}

const answer = (response: ServerResponse, status = 200) => response.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true}');

/** Runs `then` once performance.now() has reached `at` (a timer alone may fire up to 1 ms early). */
function atOrAfter(at: number, then: () => void): void {
  const remaining = at - performance.now();
  if (remaining <= 0) then();
  else setTimeout(() => atOrAfter(at, then), Math.ceil(remaining));
}

const requestOf = (i: number) => ({ method: 'POST' as const, path: '/', headers: { 'x-index': String(i), 'content-type': 'application/json' }, body: `{"i":${i}}` });
const dueAt = (result: TOpenLoopResult, i: number) => result.samples.startMs + i * result.samples.intervalMs;

describe('open-loop generator', () => {
  it('measures from the schedule: requests due while the server stalls wait at least the rest of the stall', async () => {
    const STALL_MS = 200;
    let stallEnd: number | undefined;
    // From the first request numbered 10 or more to arrive, every answer to those waits until the stall ends.
    const { url, received } = await startServer((index, _request, response) => {
      if (index < 10) return answer(response);
      stallEnd ??= performance.now() + STALL_MS;
      atOrAfter(stallEnd, () => answer(response));
    });

    const result = await openLoop({ url, rate: 100, seconds: 1, makeRequest: requestOf });

    expect({ scheduled: result.scheduled, sent: result.sent, ok: result.ok, non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts }).toEqual({
      scheduled: 100,
      sent: 100,
      ok: 100,
      non2xx: 0,
      errors: 0,
      timeouts: 0,
    });
    expect([...received].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    // Request 10 arrived no earlier than its schedule, so the stall ended at least 200 ms after it was due:
    // requests 10 to 29 (one every 10 ms) were all due before the stall ended.
    const dueDuringStall = Array.from({ length: 90 }, (_, k) => k + 10).filter((i) => dueAt(result, i) < stallEnd!);
    expect(dueDuringStall.length).toBeGreaterThanOrEqual(20);
    for (const i of dueDuringStall) expect(result.samples.latencyMs[i]).toBeGreaterThanOrEqual(stallEnd! - dueAt(result, i));
    expect(result.samples.latencyMs[10]).toBeGreaterThanOrEqual(STALL_MS);
    expect(result.latency.max).toBeGreaterThanOrEqual(STALL_MS);
  });

  it('counts a stalled generator: sends due during the stall are late and their latency includes the lateness', async () => {
    const BLOCK_MS = 100;
    let blockEnd = 0;
    const { url } = await startServer((_index, _request, response) => answer(response));

    const result = await openLoop({
      url,
      rate: 100,
      seconds: 1,
      makeRequest: (i) => {
        if (i === 10) {
          // The generator's event loop is blocked, as by a long garbage collection: nothing is sent meanwhile.
          const until = performance.now() + BLOCK_MS;
          while (performance.now() < until);
          blockEnd = performance.now();
        }
        return requestOf(i);
      },
    });

    expect({ sent: result.sent, ok: result.ok, errors: result.errors, timeouts: result.timeouts }).toEqual({ sent: 100, ok: 100, errors: 0, timeouts: 0 });
    // Request 10 was sent no earlier than its schedule, so requests 11 to 19 were due before the block ended.
    const dueDuringBlock = Array.from({ length: 89 }, (_, k) => k + 11).filter((i) => dueAt(result, i) < blockEnd);
    expect(dueDuringBlock.length).toBeGreaterThanOrEqual(9);
    for (const i of dueDuringBlock) {
      expect(result.samples.lateMs[i]).toBeGreaterThanOrEqual(blockEnd - dueAt(result, i));
      expect(result.samples.latencyMs[i]).toBeGreaterThanOrEqual(result.samples.lateMs[i]!);
    }
    expect(result.lateSends).toBe(Array.from(result.samples.lateMs).filter((late) => late > 1).length);
    expect(result.lateSends).toBeGreaterThanOrEqual(9);
    expect(result.maxLateMs).toBeGreaterThanOrEqual(blockEnd - dueAt(result, 11));
    for (let i = 0; i < 100; i += 1) expect(result.samples.latencyMs[i]).toBeGreaterThanOrEqual(result.samples.lateMs[i]!);
  });

  it('counts non-2xx answers, dropped connections and timeouts apart', async () => {
    const { url } = await startServer((index, request, response) => {
      if (index === 5) return; // never answered: a timeout
      if (index === 8) return request.socket.destroy(); // the connection dropped: an error
      answer(response, index % 7 === 3 ? 503 : 201);
    });

    const result = await openLoop({ url, rate: 50, seconds: 1, makeRequest: requestOf, timeoutMs: 500 });

    // 503 for 3, 10, 17, 24, 31, 38 and 45.
    expect({ scheduled: result.scheduled, sent: result.sent, ok: result.ok, non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts }).toEqual({
      scheduled: 50,
      sent: 50,
      ok: 41,
      non2xx: 7,
      errors: 1,
      timeouts: 1,
    });
    expect(Number.isNaN(result.samples.latencyMs[5])).toBe(true);
    expect(Number.isNaN(result.samples.latencyMs[8])).toBe(true);
    expect(Array.from(result.samples.latencyMs).filter((latency) => !Number.isNaN(latency)).length).toBe(48);
  });
});
