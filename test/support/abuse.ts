// What the abuse-limit tests share (test/body-limits, rate-limits, export-cap and error-answers):
// the error shape every refusal must have, the Retry-After rule, and a log of the error answers a
// file saw, which each file finally scans for internals (stacks, SQL, driver messages, paths).

import request from 'supertest';
import { expect } from 'vitest';
import { cardBody } from '@folio-vault/test-kit/cards';
import type { TWorld } from './world.js';

export const TOKENIZE = '/vault/v1/tokens/card';
export const EXPORT = '/fiscal-document/v1/folios/export';
export const STATUS = '/fiscal-document/v1/folios/exports';
export const ERROR_KEYS = ['id', 'timestamp', 'errorCode', 'errorDetails', 'fieldErrors'];

// The figures of these files go to stdout like the other tests' (the lint rule is for service code).
// eslint-disable-next-line no-console
export const report = (line: string) => console.log(line);

/** Every answer a file counts, and the error answers among them. */
export class AnswerLog {
  requests = 0;
  limited = 0;
  readonly errors: Array<{ what: string; res: request.Response }> = [];

  seen(what: string, res: request.Response): request.Response {
    this.requests += 1;
    if (res.status === 429) this.limited += 1;
    if (res.status >= 400) this.errors.push({ what, res });
    return res;
  }
}

/** One test-mode tokenization by `sub` for `property`, counted in `log`. */
export async function tokenizeAs(
  world: TWorld,
  log: AnswerLog,
  sub: string,
  property: number,
  options: { url?: string; properties?: number[] } = {},
): Promise<request.Response> {
  const token = world.token({ sub, properties: options.properties ?? [property], scope: 'write:payment' });
  const res = await request(options.url ?? world.url)
    .post(TOKENIZE)
    .set('Authorization', `Bearer ${token}`)
    .set('X-Property-Id', String(property))
    .set('SVC-Tokenization-Mode', 'test')
    .send(cardBody());
  return log.seen(`tokenize ${sub}@${property}`, res);
}

export function expectError(res: request.Response, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.errorCode).toBe(code);
  expect(res.body.id).toBe(res.headers['x-request-id']);
  expect(Number.isNaN(Date.parse(res.body.timestamp))).toBe(false);
  expect(typeof res.body.errorDetails).toBe('string');
  for (const key of Object.keys(res.body)) expect(ERROR_KEYS).toContain(key);
}

export function expectRetryAfter(res: request.Response, max: number): number {
  const seconds = Number(res.headers['retry-after']);
  expect(Number.isInteger(seconds), `Retry-After: ${res.headers['retry-after']}`).toBe(true);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(max);
  return seconds;
}

const INTERNALS = [
  /\bat [\w.<>]+ \(/, // stack frame
  /\.(ts|js|mjs|cjs):\d+/,
  /node_modules|\/work\/|\/tmp\//,
  /\b(SELECT|INSERT|UPDATE|DELETE)\b.*\b(FROM|INTO|SET)\b/i,
  /relation|syntax error|duplicate key|violates/i,
  /\b\w*Error:/,
  /ECONN|ETIMEDOUT|NOSCRIPT|ioredis|bullmq|Unexpected token|position \d+/i,
  /stack/i,
];

/** The error answers of `log` carry the contract's fields only, and nothing of the service's insides. */
export function expectNoInternals(log: AnswerLog, file: string): void {
  for (const { what, res } of log.errors) {
    const text = JSON.stringify(res.body);
    for (const key of Object.keys(res.body)) expect(ERROR_KEYS, what).toContain(key);
    for (const pattern of INTERNALS) expect(text, `${what}: ${text}`).not.toMatch(pattern);
  }
  report(`${file} error answers: ${log.errors.length} checked for internals, statuses ${[...new Set(log.errors.map((a) => a.res.status))].sort().join(' ')}`);
}
