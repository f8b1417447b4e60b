import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { createJwtVerifier, VERIFIED_TOKEN_TTL_MS } from '@folio-vault/api/auth/jwt-verifier';
import type { TApiConfig } from '@folio-vault/shared/config';

const SECRET = randomBytes(48).toString('base64url');
const config = { JWT_SECRET: SECRET, JWT_ISSUER: 'folio-vault', JWT_AUDIENCE: 'folio-vault' } as TApiConfig;
const START = Date.UTC(2026, 10, 24, 8, 0, 0);

/** A token issued at START (the test's clock), valid `seconds`. */
function token(seconds: number, claims: Record<string, unknown> = {}, secret = SECRET): string {
  const iat = START / 1000;
  return jwt.sign({ scope: 'write:payment', property_ids: [1], iat, exp: iat + seconds, ...claims }, secret, {
    algorithm: 'HS256', subject: 'pms-1', issuer: 'folio-vault', audience: 'folio-vault',
  });
}

/** A verifier on a clock the test moves. */
function verifierAt() {
  const clock = { now: START };
  return { clock, verify: createJwtVerifier(config, () => clock.now) };
}

describe('verified bearer tokens are remembered, never past their time', () => {
  it('answers the same principal for the same token without checking it again', async () => {
    const { verify } = verifierAt();
    const bearer = token(3600);
    const first = await verify(bearer);
    expect(first).toEqual({ subject: 'pms-1', scopes: new Set(['write:payment']), propertyIds: new Set(['1']) });
    expect(await verify(bearer)).toBe(first);
  });

  it(`checks the token again after ${VERIFIED_TOKEN_TTL_MS / 1000} s`, async () => {
    const { clock, verify } = verifierAt();
    const bearer = token(3600);
    const first = await verify(bearer);
    clock.now += VERIFIED_TOKEN_TTL_MS - 1;
    expect(await verify(bearer)).toBe(first);
    clock.now += 1;
    const again = await verify(bearer);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it('refuses a remembered token once its exp and the 30 s tolerance have passed', async () => {
    const { clock, verify } = verifierAt();
    const bearer = token(10);
    await verify(bearer);
    clock.now += 39_999;
    expect((await verify(bearer)).subject).toBe('pms-1');
    clock.now += 1;
    await expect(verify(bearer)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'The bearer token is not valid: it has expired.' });
  });

  it('never remembers a refusal: a token signed with another key is refused every time', async () => {
    const { verify } = verifierAt();
    const forged = token(3600, {}, randomBytes(48).toString('base64url'));
    for (let i = 0; i < 2; i += 1) {
      await expect(verify(forged)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'The bearer token is not valid: its signature or claims do not verify.' });
    }
  });

  it('keeps tokens apart: another token of the same subject is checked on its own', async () => {
    const { verify } = verifierAt();
    const reader = await verify(token(3600, { scope: 'read:payment', property_ids: [7] }));
    const writer = await verify(token(3600));
    expect([...reader.scopes]).toEqual(['read:payment']);
    expect([...reader.propertyIds]).toEqual(['7']);
    expect([...writer.scopes]).toEqual(['write:payment']);
  });
});
