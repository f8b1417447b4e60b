import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError, toAppError, toErrorBody } from '@folio-vault/shared/errors';
import { connectionsPerProperty, KeyedSemaphore, SHARE_BUSY_DETAILS } from '@folio-vault/shared/db/property-share';

/**
 * The semaphore per property in front of the API's pool (packages/shared/src/db/property-share.ts):
 * at most `limit` permits per property, the rest in arrival order, a wait bounded by the pool-wait
 * budget. The real pool behind it is tested through the API (test/db-bounds.test.ts).
 */
const busy = () => AppError.unavailable(SHARE_BUSY_DETAILS);

afterEach(() => {
  vi.useRealTimers();
});

describe('connectionsPerProperty', () => {
  it('rounds the fraction of the pool down, and gives at least one connection', () => {
    expect([connectionsPerProperty(10, 0.5), connectionsPerProperty(10, 1), connectionsPerProperty(3, 0.5), connectionsPerProperty(1, 0.5), connectionsPerProperty(20, 0.33)]).toEqual([5, 10, 1, 1, 6]);
  });
});

describe('KeyedSemaphore', () => {
  it('grants a property its limit at once, and the next ones in the order they asked as permits come back', async () => {
    const permits = new KeyedSemaphore(2);
    const granted: string[] = [];
    const ask = (name: string) => permits.acquire('1', 60_000, busy).then((release) => (granted.push(name), release));
    const [a, b] = await Promise.all([ask('a'), ask('b')]);
    const waiting = [ask('c'), ask('d'), ask('e')];
    await Promise.resolve();
    expect([granted, permits.usage('1')]).toEqual([['a', 'b'], { held: 2, waiting: 3 }]);
    b();
    const c = await waiting[0]!;
    a();
    const d = await waiting[1]!;
    c();
    d();
    const e = await waiting[2]!;
    e();
    expect([granted, permits.usage('1')]).toEqual([['a', 'b', 'c', 'd', 'e'], { held: 0, waiting: 0 }]);
  });

  it('never makes one property wait for another', async () => {
    const permits = new KeyedSemaphore(1);
    await permits.acquire('1', 60_000, busy);
    const other = await permits.acquire('2', 60_000, busy);
    expect([permits.usage('1'), permits.usage('2')]).toEqual([{ held: 1, waiting: 0 }, { held: 1, waiting: 0 }]);
    other();
  });

  it('answers a request that waited the whole budget 503 with Retry-After, naming the database, and does not let it take a permit later', async () => {
    vi.useFakeTimers();
    const permits = new KeyedSemaphore(1);
    const first = await permits.acquire('1', 2_000, busy);
    const late = permits.acquire('1', 2_000, busy).then(
      () => 'granted',
      (error: unknown) => toAppError(error),
    );
    await vi.advanceTimersByTimeAsync(2_000);
    const answer = await late;
    expect(answer).toBeInstanceOf(AppError);
    const error = answer as AppError;
    expect([error.status, error.retryAfterSeconds, toErrorBody(error, 'r-1').errorCode, error.message]).toEqual([503, 2, 'SERVICE_UNAVAILABLE', SHARE_BUSY_DETAILS]);
    expect(permits.usage('1')).toEqual({ held: 1, waiting: 0 });
    first();
    expect(permits.usage('1')).toEqual({ held: 0, waiting: 0 });
  });

  it('gives a permit back once, however often its release is called', async () => {
    const permits = new KeyedSemaphore(1);
    const release = await permits.acquire('1', 60_000, busy);
    const next = permits.acquire('1', 60_000, busy);
    release();
    release();
    const second = await next;
    expect(permits.usage('1')).toEqual({ held: 1, waiting: 0 });
    second();
    expect(permits.usage('1')).toEqual({ held: 0, waiting: 0 });
  });
});
