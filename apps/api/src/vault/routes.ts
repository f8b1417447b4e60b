import { Router } from 'express';
import {
  ZCardTokenMetadata,
  ZTokenIdParams,
  ZTokenizeCardRequest,
  ZTokenizeCardResponse,
  ZTokenizeHeaders,
  ZTokenSearchQuery,
  ZTokenSearchResponse,
  ZVaultHeaders,
} from '@folio-vault/shared/vault/schemas';
import { ZForwardHeaders, ZForwardRequest, ZForwardResponse } from '@folio-vault/shared/vault/forward/schemas';
import { forPropertyHeader } from '../auth/authenticate.js';
import { SCOPES } from '../auth/principal.js';
import { HEADERS } from '../http/openapi-errors.js';
import { defineRoute, mountRoutes, type TRequestLimit, type TRouteDeps } from '../http/route.js';
import { tokenizationModeOf as modeOf } from '@folio-vault/shared/vault/tokenization-mode';
import type { VaultClient } from './vault-client.js';

/** A card body is small; 16 kB leaves room for billing details in any script. */
const CARD_BODY_LIMIT = '16kb';
/** A forward's template body is at most 64 kB (a 400 at `body`); JSON escaping and headers may double it. */
const FORWARD_BODY_LIMIT = '160kb';
const TAGS: ['Card vault'] = ['Card vault'];

export interface TVaultDeps extends TRouteDeps {
  vault: VaultClient;
  /** Rate limits of POST /vault/v1/tokens/card and of forwards (http/rate-limit.ts). */
  tokenizeLimits: TRequestLimit;
  forwardLimits: TRequestLimit;
}

const tokenizeCard = defineRoute({
  method: 'post',
  path: '/vault/v1/tokens/card',
  operationId: 'tokenizeCard',
  summary: 'Tokenize a card',
  description:
    'Validates the card (Luhn, brand, CVV length, expiry), stores it encrypted and answers a token id. ' +
    'SVC-Tokenization-Mode: test selects test mode; absent means live. The same Idempotency-Key with the same card answers the same token ' +
    '(409 IDEMPOTENCY_KEY_REUSED once that token is deleted or expired).',
  tags: TAGS,
  scope: SCOPES.writePayment,
  limits: (deps: TVaultDeps) => deps.tokenizeLimits,
  headers: ZTokenizeHeaders,
  authorize: forPropertyHeader,
  body: ZTokenizeCardRequest,
  bodyLimit: CARD_BODY_LIMIT,
  responses: {
    200: { description: 'Tokenized', json: ZTokenizeCardResponse, headers: { RateLimit: HEADERS.rateLimit, 'RateLimit-Policy': HEADERS.rateLimitPolicy } },
  },
  errors: [409],
  audit: 'token.tokenize',
  handler: ({ vault }) => async ({ req, res, headers, body }) => {
    const token = await vault.tokenize(body, {
      propertyId: headers['x-property-id'],
      mode: modeOf(headers['svc-tokenization-mode']),
      requestId: String(req.id),
      idempotencyKey: headers['idempotency-key'],
    });
    res.status(200).json(token);
    return { audit: { tokenId: token.id } };
  },
});

const readToken = defineRoute({
  method: 'get',
  path: '/vault/v1/tokens/{id}',
  operationId: 'getCardToken',
  summary: 'Token metadata',
  description: 'Metadata only, never the card number. A token is visible only in the mode it was created in.',
  tags: TAGS,
  scope: SCOPES.readPayment,
  headers: ZVaultHeaders,
  authorize: forPropertyHeader,
  params: ZTokenIdParams,
  responses: { 200: { description: 'Metadata', json: ZCardTokenMetadata } },
  errors: [404],
  audit: 'token.read',
  handler: ({ vault }: TVaultDeps) => async ({ req, res, headers, params }) => {
    const metadata = await vault.read(params.id, {
      propertyId: headers['x-property-id'],
      mode: modeOf(headers['svc-tokenization-mode']),
      requestId: String(req.id),
    });
    res.json(metadata);
  },
});

const deleteToken = defineRoute({
  method: 'delete',
  path: '/vault/v1/tokens/{id}',
  operationId: 'deleteCardToken',
  summary: 'Delete a token (crypto-shredding)',
  description: "Destroys the record's data key so the card number cannot be recovered. Deleting twice answers 204 again.",
  tags: TAGS,
  scope: SCOPES.writePayment,
  headers: ZVaultHeaders,
  authorize: forPropertyHeader,
  params: ZTokenIdParams,
  responses: { 204: { description: 'Deleted' } },
  errors: [404],
  audit: 'token.delete',
  handler: ({ vault }: TVaultDeps) => async ({ req, res, headers, params }) => {
    await vault.delete(params.id, {
      propertyId: headers['x-property-id'],
      mode: modeOf(headers['svc-tokenization-mode']),
      requestId: String(req.id),
    });
    res.status(204).end();
  },
});

const searchTokens = defineRoute({
  method: 'get',
  path: '/vault/v1/tokens',
  operationId: 'searchCardTokens',
  summary: 'Find tokens by fingerprint',
  description:
    "The property's current tokens (not deleted, not expired) in the request's mode with this fingerprint, newest first, at most 100: " +
    'a PMS finds the token it already holds for a returning card. Fingerprints are per property.',
  tags: TAGS,
  scope: SCOPES.readPayment,
  headers: ZVaultHeaders,
  authorize: forPropertyHeader,
  query: ZTokenSearchQuery,
  responses: { 200: { description: 'Matching tokens', json: ZTokenSearchResponse } },
  audit: 'token.search',
  handler: ({ vault }: TVaultDeps) => async ({ req, res, headers, query }) => {
    const tokens = await vault.search(query.fingerprint, {
      propertyId: headers['x-property-id'],
      mode: modeOf(headers['svc-tokenization-mode']),
      requestId: String(req.id),
    });
    res.json({ tokens });
  },
});

const forwardToken = defineRoute({
  method: 'post',
  path: '/vault/v1/tokens/{id}/forward',
  operationId: 'forwardCardToken',
  summary: 'Forward a token to a payment gateway',
  description:
    "Sends the template to a configured destination with the stored card substituted for its placeholders; the card number goes to the gateway and never back. " +
    'Idempotency-Key is required and passed on to the gateway as <propertyId>:<key>: the same key and body answer the recorded answer without a second call, ' +
    'and a forward whose earlier attempt may have reached the gateway answers 409 FORWARD_OUTCOME_UNKNOWN. The answer holds what the destination\'s answer allowlist keeps ' +
    '(the status, content-type, date and the headers and members it names; any other body is dropped: body null, dropped true), or without one the whole body; ' +
    'numbers that look like card numbers, and the cardholder name, are masked in it in whatever encoding it carries them. An answer body over FORWARD_MAX_ANSWER_BYTES is 502 FORWARD_ANSWER_TOO_LARGE.',
  tags: TAGS,
  scope: SCOPES.usePayment,
  limits: (deps: TVaultDeps) => deps.forwardLimits,
  headers: ZForwardHeaders,
  authorize: forPropertyHeader,
  params: ZTokenIdParams,
  body: ZForwardRequest,
  bodyLimit: FORWARD_BODY_LIMIT,
  responses: {
    200: { description: "The gateway's answer (whatever its status), masked", json: ZForwardResponse, headers: { RateLimit: HEADERS.rateLimit, 'RateLimit-Policy': HEADERS.rateLimitPolicy } },
  },
  errors: [404, 409, 502, 504],
  audit: 'token.forward',
  handler: ({ vault }: TVaultDeps) => async ({ req, res, headers, params, body }) => {
    const ref = { propertyId: headers['x-property-id'], mode: modeOf(headers['svc-tokenization-mode']), requestId: String(req.id) };
    await vault.checkMode(ref.propertyId, ref.mode);
    // Checked before anything is recorded: the audit trail keeps a configured destination's name,
    // never whatever text a refused request carried there.
    const destination = vault.forwards.check(body, ref.mode);
    const forwarded = await vault.forwards.forward(params.id, body, destination, { ...ref, idempotencyKey: headers['idempotency-key'] });
    const audit = { forward: { destination: destination.name, method: body.method, path: body.path, ...forwarded.gateway } };
    if ('error' in forwarded) return { error: forwarded.error, audit };
    res.status(200).json(forwarded.answer);
    return { audit };
  },
});

export const VAULT_ROUTES = [tokenizeCard, searchTokens, readToken, deleteToken, forwardToken];

export function vaultRoutes(deps: TVaultDeps): Router {
  return mountRoutes(Router(), VAULT_ROUTES, deps);
}
