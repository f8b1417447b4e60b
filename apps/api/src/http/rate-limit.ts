import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { rateLimit, type RateLimitInfo } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { TRedisClient } from '@folio-vault/shared/connections';
import { AppError } from '@folio-vault/shared/errors';
import type { Logger } from '@folio-vault/shared/logger';
import { ZInt64IdString } from '@folio-vault/shared/schemas/common';
import { within } from '@folio-vault/shared/within';

/**
 * Per-subject and per-property limits on tokenization and on forwards (docs/api.md#abuse-limits: 429
 * RATE_LIMITED with Retry-After), counted in fixed windows in the service's Redis so every API
 * process shares them. Each action counts apart, with the same limits.
 *
 * Keys: `<QUEUE_PREFIX>:rate-limit:<action>-subject:<sha256 of sub>` and
 * `<QUEUE_PREFIX>:rate-limit:<action>-property:<property id>`. The hash tag of QUEUE_PREFIX puts
 * them in the queue's slot on a Redis Cluster, so the limiter is up exactly when the queue it
 * protects is. Nothing of the request body is read: keys never hold card data.
 *
 * Redis down or hung: the request is answered 503 SERVICE_UNAVAILABLE with Retry-After within
 * REDIS_COMMAND_TIMEOUT_MS (fail closed). Passing would let anyone lift the limits by loading
 * Redis, and a tokenization could not be queued on that Redis anyway.
 */
export interface TTokenizeLimits {
  perSubject: number;
  perProperty: number;
  windowMs: number;
}

/** Far below the tokenize wait: a limiter that cannot count must not eat the request's time. */
const REDIS_COMMAND_TIMEOUT_MS = 2_000;

type TRedisReply = boolean | number | string | Array<boolean | number | string>;

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
const isNoScript = (error: unknown) => error instanceof Error && /^NOSCRIPT\b/.test(error.message);

/**
 * rate-limit-redis speaks raw commands. Its SCRIPT LOAD at start is answered here (the SHA1 of the
 * text, which is what Redis answers) and EVALSHA falls back to EVAL on NOSCRIPT: no Redis I/O when
 * the app is built, no failed start-up load cached for ever, and on a cluster every command
 * carries its key, so ioredis routes it to the key's node (a keyless SCRIPT LOAD would land on
 * any node).
 */
function sendCommand(redis: TRedisClient) {
  const scripts = new Map<string, string>();
  const call = (command: string, args: string[]) => within(redis.call(command, ...args), REDIS_COMMAND_TIMEOUT_MS) as Promise<TRedisReply>;
  const send = async (command: string, args: string[]): Promise<TRedisReply> => {
    const name = command.toUpperCase();
    if (name === 'SCRIPT' && args[0]?.toUpperCase() === 'LOAD' && args[1] !== undefined) {
      const sha = sha1(args[1]);
      scripts.set(sha, args[1]);
      return sha;
    }
    if (name !== 'EVALSHA') return call(command, args);
    const [sha = '', ...rest] = args;
    try {
      return await call('EVALSHA', args);
    } catch (error) {
      const script = scripts.get(sha);
      if (!isNoScript(error) || script === undefined) throw error;
      return call('EVAL', [script, ...rest]);
    }
  };
  return async (command: string, ...args: string[]): Promise<TRedisReply> => {
    try {
      return await send(command, args);
    } catch (error) {
      throw AppError.unavailable('Request limits cannot be checked right now; retry shortly.').withCause(error);
    }
  };
}

function limiter(
  redis: TRedisClient,
  keyPrefix: string,
  logger: Logger,
  options: { name: string; limit: number; windowMs: number; key: (req: Request) => string | undefined; details: string },
): RequestHandler {
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    identifier: options.name,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    store: new RedisStore({ sendCommand: sendCommand(redis), prefix: `${keyPrefix}:rate-limit:${options.name}:` }),
    logger,
    skip: (req) => options.key(req) === undefined,
    keyGenerator: (req) => options.key(req)!,
    handler: (req, _res, next) => {
      const info = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit;
      const seconds = info?.resetTime ? Math.ceil((info.resetTime.getTime() - Date.now()) / 1000) : Math.ceil(options.windowMs / 1000);
      next(new AppError('RATE_LIMITED', options.details, { retryAfterSeconds: Math.max(1, seconds) }));
    },
  });
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

/**
 * After authentication, before the body is read. The subject is counted first: a caller over its
 * own limit is refused without spending the property's budget that other callers share.
 */
export function vaultRateLimits(
  redis: TRedisClient,
  keyPrefix: string,
  limits: TTokenizeLimits,
  logger: Logger,
  action: 'tokenize' | 'forward',
): RequestHandler[] {
  const what = action === 'tokenize' ? 'tokenization' : 'forward';
  return [
    limiter(redis, keyPrefix, logger, {
      name: `${action}-subject`,
      limit: limits.perSubject,
      windowMs: limits.windowMs,
      // Hashed: a subject is whatever the token issuer chose (an e-mail address, say), of any length.
      key: (req) => (req.principal ? createHash('sha256').update(req.principal.subject).digest('base64url').slice(0, 22) : undefined),
      details: `Too many ${what} requests for this caller; retry after the time in Retry-After.`,
    }),
    limiter(redis, keyPrefix, logger, {
      name: `${action}-property`,
      limit: limits.perProperty,
      windowMs: limits.windowMs,
      key: allowedProperty,
      details: `Too many ${what} requests for this property; retry after the time in Retry-After.`,
    }),
  ];
}
