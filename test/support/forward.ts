// What the forward tests through the whole service share (test/forward*.test.ts): the
// VAULT_FORWARD_DESTINATIONS setting, tokenize and forward requests, and the audit row of a
// request.

import { randomUUID } from 'node:crypto';
import net from 'node:net';
import request from 'supertest';
import { expect } from 'vitest';
import { AuditLog, type TAuditRow } from '@folio-vault/shared/vault/audit-log';
import type { TWorld } from './world.js';

export const FORWARD_SCOPE = 'use:payment read:payment write:payment';

export interface TDestinationEntry {
  name: string;
  url: string;
  modes?: Array<'test' | 'live'>;
  paths?: string[];
  methods?: string[];
  headers?: Record<string, string>;
  timeoutMs?: number;
  ca?: string;
  cert?: string;
  key?: string;
  allowInsecure?: boolean;
  answer?: { headers?: string[]; json?: string[]; form?: string[] };
}

/** Inline JSON for VAULT_FORWARD_DESTINATIONS; each entry takes test tokens on POST /v1/charges unless it says otherwise. */
export function destinationsSetting(entries: TDestinationEntry[]): string {
  return JSON.stringify(entries.map((entry) => ({ modes: ['test'], paths: ['/v1/charges'], methods: ['POST'], ...entry })));
}

export interface TCallOptions {
  /** Bearer token; the world's token with FORWARD_SCOPE for properties 1 and 2 when absent. */
  bearer?: string;
  property?: string;
  /** Sends SVC-Tokenization-Mode: test unless false. */
  test?: boolean;
}

const bearerOf = (world: TWorld, options: TCallOptions) =>
  options.bearer ?? world.token({ properties: [1, 2], scope: FORWARD_SCOPE });

/** Tokenizes `body` and answers the token id (the tokenization must succeed). */
export async function tokenize(world: TWorld, body: Record<string, unknown>, options: TCallOptions = {}): Promise<string> {
  const req = request(world.url)
    .post('/vault/v1/tokens/card')
    .set('Authorization', `Bearer ${bearerOf(world, options)}`)
    .set('X-Property-Id', options.property ?? '1');
  if (options.test !== false) req.set('SVC-Tokenization-Mode', 'test');
  const res = await req.send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as string;
}

export interface TForwardOptions extends TCallOptions {
  /** The Idempotency-Key; a new one when absent, none at all when null. */
  key?: string | null;
  requestId?: string;
}

/** POST /vault/v1/tokens/{id}/forward with `body` as the JSON request. */
export function forward(world: TWorld, tokenId: string, body: Record<string, unknown>, options: TForwardOptions = {}): request.Test {
  const req = request(world.url)
    .post(`/vault/v1/tokens/${tokenId}/forward`)
    .set('Authorization', `Bearer ${bearerOf(world, options)}`)
    .set('X-Property-Id', options.property ?? '1');
  if (options.test !== false) req.set('SVC-Tokenization-Mode', 'test');
  if (options.key !== null) req.set('Idempotency-Key', options.key ?? randomUUID());
  if (options.requestId) req.set('X-Request-Id', options.requestId);
  return req.send(body);
}

export function getToken(world: TWorld, tokenId: string, options: TCallOptions = {}): request.Test {
  return tokenRequest(world, 'get', tokenId, options);
}

export function deleteToken(world: TWorld, tokenId: string, options: TCallOptions = {}): request.Test {
  return tokenRequest(world, 'delete', tokenId, options);
}

function tokenRequest(world: TWorld, method: 'get' | 'delete', tokenId: string, options: TCallOptions): request.Test {
  const req = request(world.url)[method](`/vault/v1/tokens/${tokenId}`)
    .set('Authorization', `Bearer ${bearerOf(world, options)}`)
    .set('X-Property-Id', options.property ?? '1');
  if (options.test !== false) req.set('SVC-Tokenization-Mode', 'test');
  return req;
}

/**
 * The one audit row of a request. It is written before the answer, but the write is bounded and
 * the answer does not wait past that: polled for up to 10 s.
 */
export async function auditRowOf(world: TWorld, requestId: string): Promise<TAuditRow> {
  const audit = new AuditLog(world.pool);
  const deadline = Date.now() + 10_000;
  let rows = await audit.recent({ requestId });
  while (rows.length === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    rows = await audit.recent({ requestId });
  }
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

/** A TCP port on 127.0.0.1 nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

