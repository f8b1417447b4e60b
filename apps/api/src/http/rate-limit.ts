// Per-subject and per-property limits on tokenization and on forwards, and per-property limits on
// night-audit starts and ledger imports (docs/api.md#abuse-limits: 429 RATE_LIMITED with
// Retry-After), counted in fixed windows in the service's Redis so every API process shares them.
// Each action counts apart; tokenize and forward with the same limits.
//
// Keys: `<QUEUE_PREFIX>:rate-limit:<action>-subject:<sha256 of sub>` and
// `<QUEUE_PREFIX>:rate-limit:<action>-property:<property id>`. The hash tag of QUEUE_PREFIX puts
// them in the queue's slot on a Redis Cluster, so the limiter is up exactly when the queue it
// protects is, and one script may count both. Nothing of the request body is read: keys never hold
// card data.
//
// Both counters are counted by one Lua script. The subject is counted first, and a caller over its
// own limit is refused without spending the property's budget that other callers share. Answers
// carry IETF draft-8 `RateLimit` and `RateLimit-Policy` fields, one item per counter counted.
//
// Redis down or hung: the request is answered 503 SERVICE_UNAVAILABLE with Retry-After within
// REDIS_COMMAND_TIMEOUT_MS (fail closed). Passing would let anyone lift the limits by loading
// Redis, and a tokenization could not be queued on that Redis anyway.

import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { TRequestLimit } from './route.js';
import type { TRedisClient } from '@folio-vault/shared/connections';
import { AppError } from '@folio-vault/shared/errors';
import { ZInt64IdString } from '@folio-vault/shared/schemas/common';
import { within } from '@folio-vault/shared/within';

/** Requests a subject and a property may make in one window (TOKENIZE_RATE_LIMIT_PER_*, RATE_LIMIT_WINDOW_MS). */
export interface TTokenizeLimits {
  perSubject: number;
  perProperty: number;
  windowMs: number;
}

/** Far below the tokenize wait: a limiter that cannot count must not eat the request's time. */
const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/**
 * KEYS: the counters, in order; ARGV[1]: the window (ms); ARGV[1 + i]: the limit of KEYS[i].
 * Each counter is incremented and given the window as its time to live when it has none (a fixed
 * window from its first hit); counting stops after the first counter over its limit. Answers
 * hits and milliseconds left, two numbers per counter counted.
 */
const COUNT_SCRIPT = `
local window = tonumber(ARGV[1])
local answer = {}
for i, key in ipairs(KEYS) do
  local hits = redis.call('INCR', key)
  local ttl = redis.call('PTTL', key)
  if ttl <= 0 then
    redis.call('PEXPIRE', key, window)
    ttl = window
  end
  answer[#answer + 1] = hits
  answer[#answer + 1] = ttl
  if hits > tonumber(ARGV[i + 1]) then break end
end
return answer`;
const COMMAND = 'folioVaultRateLimit';

type TCounting = (numberOfKeys: number, ...keysThenArgs: Array<string | number>) => Promise<number[]>;

/**
 * The script as a command of `redis` (ioredis sends EVALSHA and falls back to EVAL once on
 * NOSCRIPT, so a Redis restarted empty needs nothing; on a cluster it goes to the keys' node).
 */
function countingOf(redis: TRedisClient): TCounting {
  const client = redis as TRedisClient & Record<string, unknown>;
  if (typeof client[COMMAND] !== 'function') redis.defineCommand(COMMAND, { lua: COUNT_SCRIPT });
  return (client[COMMAND] as TCounting).bind(redis);
}

interface TCounter {
  /** The item name in the RateLimit fields, and the key's middle part. */
  name: string;
  limit: number;
  /** The counter's id for this request; undefined: not counted. */
  id: (req: Request) => string | undefined;
  details: string;
}

/**
 * The property the caller may act for, as a canonical id; undefined otherwise (the route answers
 * 400 or 403 next). Counting an id the caller may not use would let one tenant spend another
 * property's budget with requests that are refused anyway.
 */
function allowedProperty(req: Request): string | undefined {
  const parsed = ZInt64IdString.safeParse(req.get('x-property-id'));
  return parsed.success && req.principal?.propertyIds.has(parsed.data) ? parsed.data : undefined;
}

/** Hashed: a subject is whatever the token issuer chose (an e-mail address, say), of any length. */
function subjectOf(req: Request): string | undefined {
  return req.principal ? createHash('sha256').update(req.principal.subject).digest('base64url').slice(0, 22) : undefined;
}

/** The policy's partition key: not the id itself (a subject's hash, a property id), a digest of it. */
function partitionKey(id: string): string {
  return Buffer.from(createHash('sha256').update(id).digest('hex').slice(0, 12)).toString('base64');
}

function announce(res: Response, counter: TCounter, id: string, hits: number, resetSeconds: number, windowMs: number): void {
  res.append('RateLimit', `"${counter.name}"; r=${Math.max(counter.limit - hits, 0)}; t=${resetSeconds}`);
  res.append('RateLimit-Policy', `"${counter.name}"; q=${counter.limit}; w=${Math.ceil(windowMs / 1000)}; pk=:${partitionKey(id)}:`);
}

/**
 * After authentication, before the body is read: the subject, then the property, counted in one
 * round trip; 429 with Retry-After for the first counter over its limit.
 */
export function vaultRateLimits(redis: TRedisClient, keyPrefix: string, limits: TTokenizeLimits, action: 'tokenize' | 'forward'): TRequestLimit {
  const what = action === 'tokenize' ? 'tokenization' : 'forward';
  return countedLimits(redis, keyPrefix, limits.windowMs, [
    { name: `${action}-subject`, limit: limits.perSubject, id: subjectOf, details: `Too many ${what} requests for this caller; retry after the time in Retry-After.` },
    { name: `${action}-property`, limit: limits.perProperty, id: allowedProperty, details: `Too many ${what} requests for this property; retry after the time in Retry-After.` },
  ]);
}

/**
 * Actions limited per property only, all callers together, each on a counter of its own: a night
 * audit's start costs a selection and a flow of jobs, and one property's burst of starts must not
 * take the API's connections from the others (docs/night-audit.md#how-many-at-once); an import
 * costs its body's parsing (docs/ledger.md#import). Counted after authentication, before the body is read.
 */
const PROPERTY_LIMITED = {
  'night-audit': 'Too many night-audit starts for this property; retry after the time in Retry-After.',
  import: 'Too many ledger imports for this property; retry after the time in Retry-After.',
} as const;

/** `perProperty` requests of `action` per property in a window of `windowMs` (NIGHT_AUDIT_RATE_LIMIT_PER_PROPERTY, IMPORT_RATE_LIMIT_PER_PROPERTY). */
export function propertyRateLimit(redis: TRedisClient, keyPrefix: string, action: keyof typeof PROPERTY_LIMITED, limits: { perProperty: number; windowMs: number }): TRequestLimit {
  return countedLimits(redis, keyPrefix, limits.windowMs, [{ name: `${action}-property`, limit: limits.perProperty, id: allowedProperty, details: PROPERTY_LIMITED[action] }]);
}

/** The counters of a request, in order, in one round trip; 429 with Retry-After for the first over its limit. */
function countedLimits(redis: TRedisClient, keyPrefix: string, windowMs: number, counters: TCounter[]): TRequestLimit {
  const count = countingOf(redis);
  return async (req, res) => {
    const counted = counters.flatMap((counter) => {
      const id = counter.id(req);
      return id === undefined ? [] : [{ counter, id }];
    });
    if (counted.length === 0) return;
    const keys = counted.map(({ counter, id }) => `${keyPrefix}:rate-limit:${counter.name}:${id}`);
    let answer: number[];
    try {
      answer = await within(count(keys.length, ...keys, windowMs, ...counted.map(({ counter }) => counter.limit)), REDIS_COMMAND_TIMEOUT_MS);
    } catch (error) {
      throw AppError.unavailable('Request limits cannot be checked right now; retry shortly.').withCause(error);
    }
    // Two numbers per counter counted: hits, then milliseconds left in its window.
    for (const [index, { counter, id }] of counted.entries()) {
      if (2 * index >= answer.length) break;
      const hits = Number(answer[2 * index]);
      const resetSeconds = Math.max(0, Math.ceil(Number(answer[2 * index + 1]) / 1000));
      announce(res, counter, id, hits, resetSeconds, windowMs);
      if (hits > counter.limit) throw new AppError('RATE_LIMITED', counter.details, { retryAfterSeconds: Math.max(1, resetSeconds) });
    }
  };
}
