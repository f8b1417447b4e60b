// Verifies a bearer JWT (docs/api.md#authentication-and-scopes). The accepted algorithms follow
// from the key type alone, never from the token's header, so `none` and HS/RS confusion cannot get
// through; jku, x5u, jwk and x5c headers are ignored (keys come only from settings).
// test/auth-rfc8725.test.ts holds the cases.

import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import jwt, { type Algorithm, type JwtPayload } from 'jsonwebtoken';
import { JwksClient } from 'jwks-rsa';
import type { TApiConfig } from '@folio-vault/shared/config';
import { AppError } from '@folio-vault/shared/errors';
import type { TPrincipal } from './principal.js';

/** The caller a bearer token names, once verified; rejects with 401 UNAUTHENTICATED otherwise. */
export type TJwtVerifier = (token: string) => Promise<TPrincipal>;

const MAX_TOKEN_LENGTH = 8_192;
const CLOCK_TOLERANCE_S = 30;
type TKeySource = { algorithms: Algorithm[]; key: (header: jwt.JwtHeader) => Promise<string | KeyObject> };

function keySource(config: TApiConfig): TKeySource {
  if (config.JWT_SECRET) {
    // A KeyObject, not the string: given a string, jsonwebtoken first tries to parse it as a PEM
    // public key on every verify.
    const secret = createSecretKey(Buffer.from(config.JWT_SECRET, 'utf8'));
    return { algorithms: ['HS256'], key: async () => secret };
  }
  if (config.JWT_PUBLIC_KEY) {
    const key = createPublicKey(config.JWT_PUBLIC_KEY);
    const algorithms: Algorithm[] = key.asymmetricKeyType === 'ec' ? ['ES256'] : ['RS256'];
    return { algorithms, key: async () => key };
  }
  const client = new JwksClient({ jwksUri: config.JWT_JWKS_URL!, cache: true, cacheMaxAge: 10 * 60_000, timeout: 3_000,
    // An unknown kid triggers a fetch: cap them so unauthenticated callers cannot drive outbound traffic.
    rateLimit: true, jwksRequestsPerMinute: 10 });
  return {
    algorithms: ['RS256', 'ES256'],
    key: async (header) => {
      if (!header.kid) throw new Error('token has no kid');
      return (await client.getSigningKey(header.kid)).getPublicKey();
    },
  };
}

/**
 * RFC 8725 §3.11: only an access token's types — absent, "JWT" or "at+jwt" (RFC 9068), with or
 * without the "application/" prefix (RFC 7515 §4.1.9), any case. Every other type is another kind
 * of JWT (a security event, a logout token, a DPoP proof…) that must not pass for an access token.
 */
function acceptedType(typ: unknown): boolean {
  return typ === undefined || (typeof typ === 'string' && /^(?:application\/)?(?:at\+)?jwt$/i.test(typ));
}

function unauthenticated(reason: string): AppError {
  return new AppError('UNAUTHENTICATED', `The bearer token is not valid: ${reason}.`);
}

/** The operator's claim: every property for the operator's routes, none for a property's. */
const OPERATOR_PROPERTY_IDS = '*';

function toPropertyIds(value: unknown): Set<string> | undefined {
  if (!Array.isArray(value)) return undefined;
  const ids = new Set<string>();
  for (const item of value) {
    if (typeof item === 'number' && Number.isSafeInteger(item) && item >= 1) ids.add(String(item));
    else if (typeof item === 'string' && /^\d{1,19}$/.test(item) && BigInt(item) >= 1n) ids.add(BigInt(item).toString());
    else return undefined;
  }
  return ids;
}

export function createJwtVerifier(config: TApiConfig, clock: () => number = Date.now): TJwtVerifier {
  const source = keySource(config);
  return async (token) => {
    if (token.length > MAX_TOKEN_LENGTH) throw unauthenticated('it is too long');
    let decoded: jwt.Jwt | null;
    try {
      // jws.decode JSON.parses the payload unguarded when the header says typ "JWT": it can throw.
      decoded = jwt.decode(token, { complete: true });
    } catch {
      decoded = null;
    }
    if (!decoded || typeof decoded.payload === 'string') throw unauthenticated('it is malformed');
    if (!source.algorithms.includes(decoded.header.alg as Algorithm)) throw unauthenticated('its algorithm is not accepted');
    if (!acceptedType(decoded.header.typ)) throw unauthenticated('its type is not JWT');
    // RFC 7515 §4.1.11: an extension named in crit must be understood, and this service implements
    // none (b64=false included), so any crit header is refused.
    if ('crit' in decoded.header) throw unauthenticated('it names a critical extension that is not supported');
    let payload: JwtPayload;
    try {
      const key = await source.key(decoded.header);
      payload = jwt.verify(token, key, {
        algorithms: source.algorithms,
        issuer: config.JWT_ISSUER,
        audience: config.JWT_AUDIENCE,
        clockTolerance: CLOCK_TOLERANCE_S,
        clockTimestamp: Math.floor(clock() / 1000),
      }) as JwtPayload;
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'TokenExpiredError') throw unauthenticated('it has expired');
      if (name === 'NotBeforeError') throw unauthenticated('it is not valid yet');
      throw unauthenticated('its signature or claims do not verify');
    }
    if (typeof payload.exp !== 'number') throw unauthenticated('it has no exp claim');
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw unauthenticated('it has no sub claim');
    const claimed: unknown = payload.property_ids ?? [];
    // ["*"] alone marks the operator's token; "*" beside property ids is not a valid claim.
    const operator = Array.isArray(claimed) && claimed.length === 1 && claimed[0] === OPERATOR_PROPERTY_IDS;
    const propertyIds = operator ? new Set<string>() : toPropertyIds(claimed);
    if (!propertyIds) throw unauthenticated('property_ids must be an array of property ids, or ["*"]');
    const scope = typeof payload.scope === 'string' ? payload.scope : '';
    return { subject: payload.sub, scopes: new Set(scope.split(' ').filter(Boolean)), propertyIds, operator };
  };
}
