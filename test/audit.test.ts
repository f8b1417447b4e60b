import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog, type TAuditRow } from '@folio-vault/shared/vault/audit-log';
import { cardBody, futureYear, generatedPan } from '@folio-vault/test-kit/cards';
import { findCvvs, findPans } from './support/secret-scan.js';
import { createWorld, type TWorld } from './support/world.js';

// Tests print their figures.
// eslint-disable-next-line no-console
const report = (line: string) => console.log(line);

/**
 * Audit events of the vault (PCI DSS 10.2): token reads, deletions, tokenizations and denied
 * access, each with who, what, when and how it ended, and no card data in any of them.
 */
let world: TWorld;
let audit: AuditLog;
const pans = [generatedPan('4', 16), generatedPan('52', 16)];
const CVV = '739';
const started = new Date();

beforeAll(async () => {
  // Behind a proxy on 127.0.0.1 (docs/production.md#behind-a-tls-proxy); no other peer is trusted.
  world = await createWorld({ env: { TRUST_PROXY: '127.0.0.1' } });
  audit = new AuditLog(world.pool);
});
afterAll(async () => world?.close());

/** Sends a vault request with its own X-Request-Id; answers the response and the one event it left. */
async function call<R>(build: (requestId: string) => PromiseLike<R>): Promise<{ res: R; event: TAuditRow }> {
  const requestId = randomUUID();
  const res = await build(requestId);
  // Written once the answer is out: the row may land a moment after the answer.
  let events = await audit.recent({ requestId });
  for (let tries = 0; events.length === 0 && tries < 50; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    events = await audit.recent({ requestId });
  }
  expect(events, JSON.stringify(res)).toHaveLength(1);
  return { res, event: events[0]! };
}

const vault = (method: 'post' | 'get' | 'delete', path: string, requestId: string, bearer: string | undefined, headers: Record<string, string> = {}) => {
  const req = request(world.url)[method](path).set('X-Request-Id', requestId).set('X-Property-Id', '1').set('SVC-Tokenization-Mode', 'test').set(headers);
  if (bearer) req.set('Authorization', `Bearer ${bearer}`);
  return req;
};
const card = (pan: string) => cardBody({ card_number: pan, cvv: CVV, card_brand: undefined, expiration: { month: '05', year: futureYear(1) } });

describe('audit events', () => {
  let tokenId: string;

  it('tokenization: who, what, when, outcome, request id', async () => {
    const bearer = world.token({ sub: 'clerk-17' });
    const { res, event } = await call((id) => vault('post', '/vault/v1/tokens/card', id, bearer).send(card(pans[0]!)));
    expect(res.status).toBe(200);
    tokenId = res.body.id;
    expect(event).toMatchObject({
      subject: 'clerk-17',
      action: 'token.tokenize',
      outcome: 'success',
      error_code: null,
      http_status: 200,
      token_id: tokenId,
      property_id: '1',
      mode: 'test',
      request_id: res.headers['x-request-id'],
      client_address: expect.stringMatching(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/),
    });
    expect(event.occurred_at.getTime()).toBeGreaterThanOrEqual(started.getTime() - 1000);
    expect(event.occurred_at.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("an Idempotency-Key replay has an event of its own; a subject holding a card number is masked in the event", async () => {
    const bearer = world.token({ sub: `clerk ${pans[0]}` });
    const key = randomUUID();
    const first = await call((id) => vault('post', '/vault/v1/tokens/card', id, bearer, { 'Idempotency-Key': key }).send(card(pans[0]!)));
    const replay = await call((id) => vault('post', '/vault/v1/tokens/card', id, bearer, { 'Idempotency-Key': key }).send(card(pans[0]!)));
    expect([first.res.status, replay.res.status]).toEqual([200, 200]);
    expect(replay.res.body.id).toBe(first.res.body.id);
    const masked = `clerk ${pans[0]!.slice(0, 6)}******${pans[0]!.slice(-4)}`;
    for (const { res, event } of [first, replay]) {
      expect(event).toMatchObject({
        subject: masked, action: 'token.tokenize', outcome: 'success', http_status: 200, token_id: first.res.body.id,
        request_id: res.headers['x-request-id'], property_id: '1', mode: 'test',
      });
    }
    expect(findPans(JSON.stringify([first.event, replay.event]), pans)).toEqual([]);
  });

  it('token reads, found and not found', async () => {
    const bearer = world.token({ sub: 'night-auditor', scope: 'read:payment' });
    const found = await call((id) => vault('get', `/vault/v1/tokens/${tokenId}`, id, bearer));
    expect(found.res.status).toBe(200);
    expect(found.event).toMatchObject({ subject: 'night-auditor', action: 'token.read', outcome: 'success', token_id: tokenId, http_status: 200 });
    const unknown = randomUUID();
    const missing = await call((id) => vault('get', `/vault/v1/tokens/${unknown}`, id, bearer));
    expect(missing.res.status).toBe(404);
    expect(missing.event).toMatchObject({ action: 'token.read', outcome: 'not_found', error_code: 'ENTITY_NOT_FOUND', token_id: unknown });
    // The other mode's view of the same token is a not-found too, and says which mode was asked.
    const live = await call((id) => vault('get', `/vault/v1/tokens/${tokenId}`, id, bearer).unset('SVC-Tokenization-Mode'));
    expect(live.event).toMatchObject({ outcome: 'not_found', mode: 'live', token_id: tokenId });
  });

  it('deletion, then a read of the deleted token', async () => {
    const bearer = world.token({ sub: 'front-desk' });
    const deleted = await call((id) => vault('delete', `/vault/v1/tokens/${tokenId}`, id, bearer));
    expect(deleted.res.status).toBe(204);
    expect(deleted.event).toMatchObject({ subject: 'front-desk', action: 'token.delete', outcome: 'success', http_status: 204, token_id: tokenId });
    const after = await call((id) => vault('get', `/vault/v1/tokens/${tokenId}`, id, bearer));
    expect(after.event).toMatchObject({ action: 'token.read', outcome: 'not_found' });
  });

  it('denied access: no token, a bad token, a missing scope, another property', async () => {
    const none = await call((id) => vault('get', `/vault/v1/tokens/${tokenId}`, id, undefined));
    expect(none.res.status).toBe(401);
    expect(none.event).toMatchObject({ subject: null, action: 'token.read', outcome: 'denied', error_code: 'UNAUTHENTICATED', http_status: 401, token_id: tokenId });

    const forged = world.token({ sub: 'mallory' }).replace(/.{4}$/, 'AAAA');
    const bad = await call((id) => vault('delete', `/vault/v1/tokens/${tokenId}`, id, forged));
    expect(bad.res.status).toBe(401);
    // The claims of a token that does not verify are not evidence: no subject.
    expect(bad.event).toMatchObject({ subject: null, action: 'token.delete', outcome: 'denied', error_code: 'UNAUTHENTICATED' });

    const readOnly = world.token({ sub: 'reporting', scope: 'read:payment' });
    const scope = await call((id) => vault('post', '/vault/v1/tokens/card', id, readOnly).send(card(pans[1]!)));
    expect(scope.res.status).toBe(403);
    expect(scope.event).toMatchObject({ subject: 'reporting', action: 'token.tokenize', outcome: 'denied', error_code: 'ACCESS_DENIED', http_status: 403 });

    const otherProperty = world.token({ sub: 'clerk-17', properties: [2] });
    const property = await call((id) => vault('delete', `/vault/v1/tokens/${tokenId}`, id, otherProperty));
    expect(property.res.status).toBe(403);
    expect(property.event).toMatchObject({ subject: 'clerk-17', action: 'token.delete', outcome: 'denied', error_code: 'ACCESS_DENIED', property_id: '1' });
  });

  it('rejected requests carrying card data leave an event without it', async () => {
    const bearer = world.token({ sub: 'clerk-17' });
    const invalid = await call((id) => vault('post', '/vault/v1/tokens/card', id, bearer).send({ ...card(pans[1]!), expiration: { month: '13', year: '2001' }, pin: '0000' }));
    expect(invalid.res.status).toBe(400);
    expect(invalid.event).toMatchObject({ action: 'token.tokenize', outcome: 'rejected', error_code: 'INVALID_REQUEST', token_id: null });
    // A PAN where a token id or a property id goes is not recorded as one.
    const panAsId = await call((id) => vault('get', `/vault/v1/tokens/${pans[1]}`, id, bearer));
    expect(panAsId.res.status).toBe(400);
    expect(panAsId.event).toMatchObject({ action: 'token.read', outcome: 'rejected', token_id: null });
    // A PAN is a valid int64, so the property check answers (403): the id is still not kept.
    const panAsProperty = await call((id) => vault('get', `/vault/v1/tokens/${randomUUID()}`, id, bearer, { 'X-Property-Id': pans[1]! }));
    expect(panAsProperty.res.status).toBe(403);
    expect(panAsProperty.event).toMatchObject({ outcome: 'denied', property_id: null });
    const tooLarge = await call((id) => vault('post', '/vault/v1/tokens/card', id, bearer).send({ ...card(pans[1]!), cardholder_name: 'x'.repeat(20_000) }));
    expect(tooLarge.event).toMatchObject({ outcome: 'rejected', error_code: 'PAYLOAD_TOO_LARGE', http_status: 413 });
  });

  it('no card data anywhere in the audit table', async () => {
    const dump = (await world.pool.query<{ row: string }>('SELECT row_to_json(e)::text AS row FROM audit.vault_events e ORDER BY id')).rows.map((r) => r.row);
    const text = dump.join('\n');
    const panHits = findPans(text, pans);
    const cvvHits = findCvvs(text, [CVV]);
    report(`audit: ${dump.length} events, ${panHits.length} PAN hits, ${cvvHits.length} CVV hits over ${text.length} bytes`);
    expect(dump.length).toBeGreaterThanOrEqual(14);
    expect(panHits).toEqual([]);
    expect(cvvHits).toEqual([]);
    expect(text).not.toMatch(/Sara Ryder|cardholder|card_number|"cvv"/i);
  });

  it('events are append-only', async () => {
    await expect(world.pool.query(`UPDATE audit.vault_events SET outcome = 'success'`)).rejects.toThrow(/append-only/);
    await expect(world.pool.query('DELETE FROM audit.vault_events')).rejects.toThrow(/append-only/);
  });

  it('records the client a trusted proxy names (X-Forwarded-For), and the peer itself when the peer is not a trusted proxy', async () => {
    const bearer = world.token({ sub: 'behind-the-proxy' });
    // From 127.0.0.1, the trusted proxy: the nearest address it names that it does not trust is the client.
    const proxied = await call((id) =>
      vault('get', `/vault/v1/tokens/${randomUUID()}`, id, bearer, { 'X-Forwarded-For': '198.51.100.23, 203.0.113.7' }),
    );
    expect([proxied.res.status, proxied.event.client_address]).toEqual([404, '203.0.113.7']);
    // From 127.0.0.2, which is no proxy of TRUST_PROXY: its header is not believed.
    const direct = await call(
      (id) =>
        new Promise<{ status?: number }>((resolve, reject) => {
          const req = httpRequest(`${world.url}/vault/v1/tokens/${randomUUID()}`, {
            localAddress: '127.0.0.2',
            headers: { 'X-Request-Id': id, 'X-Property-Id': '1', 'SVC-Tokenization-Mode': 'test', Authorization: `Bearer ${bearer}`, 'X-Forwarded-For': '203.0.113.7' },
          });
          req.once('response', (res) => res.resume().once('end', () => resolve({ status: res.statusCode })));
          req.once('error', reject);
          req.end();
        }),
    );
    expect([direct.res.status, direct.event.client_address]).toEqual([404, '::ffff:127.0.0.2']);
  });

  it('other routes leave no vault event', async () => {
    const before = (await audit.recent({ limit: 1000 })).length;
    await request(world.url).get('/healthz');
    await request(world.url).post('/accounting/v1.0/folios/transactions').set('Authorization', 'Bearer nope').send({});
    expect((await audit.recent({ limit: 1000 })).length).toBe(before);
  });
});
