import { Router, type RequestHandler } from 'express';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import {
  ZCardTokenMetadata,
  ZTokenIdParams,
  ZTokenizeCardRequest,
  ZTokenizeCardResponse,
  ZTokenizeHeaders,
  ZVaultHeaders,
  type TTokenizationMode,
} from '@folio-vault/shared/vault/schemas';
import { authenticate, forPropertyHeader } from '../auth/authenticate.js';
import type { TJwtVerifier } from '../auth/jwt-verifier.js';
import { SCOPES } from '../auth/principal.js';
import { errorResponses } from '../http/openapi-errors.js';
import { route } from '../http/route.js';
import { auditVaultErrors, recordVaultEvent } from './vault-audit.js';
import type { VaultClient } from './vault-client.js';

/** docs/vault.md. A card body is small; 16 kB leaves room for billing details in any script. */
const CARD_BODY_LIMIT = '16kb';

const modeOf = (header: 'test' | undefined): TTokenizationMode => (header === 'test' ? 'test' : 'live');

export function vaultRoutes(verifier: TJwtVerifier, vault: VaultClient, tokenizeLimits: RequestHandler[]): Router {
  const router = Router();

  router.post(
    '/vault/v1/tokens/card',
    authenticate(verifier, SCOPES.writePayment),
    // Before the body is read: a limited caller costs no parsing (http/rate-limit.ts).
    ...tokenizeLimits,
    ...route({ headers: ZTokenizeHeaders, authorize: forPropertyHeader, body: ZTokenizeCardRequest, bodyLimit: CARD_BODY_LIMIT }, async ({ req, res, headers, body }) => {
      const token = await vault.tokenize(body, {
        propertyId: headers['x-property-id'],
        mode: modeOf(headers['svc-tokenization-mode']),
        requestId: String(req.id),
        idempotencyKey: headers['idempotency-key'],
      });
      await recordVaultEvent(vault.audit, req, { httpStatus: 200, tokenId: token.id });
      res.status(200).json(token);
    }),
  );

  router.get(
    '/vault/v1/tokens/:id',
    authenticate(verifier, SCOPES.readPayment),
    ...route({ headers: ZVaultHeaders, authorize: forPropertyHeader, params: ZTokenIdParams }, async ({ req, res, headers, params }) => {
      const metadata = await vault.read(params.id, {
        propertyId: headers['x-property-id'],
        mode: modeOf(headers['svc-tokenization-mode']),
        requestId: String(req.id),
      });
      await recordVaultEvent(vault.audit, req, { httpStatus: 200, tokenId: params.id });
      res.json(metadata);
    }),
  );

  router.delete(
    '/vault/v1/tokens/:id',
    authenticate(verifier, SCOPES.writePayment),
    ...route({ headers: ZVaultHeaders, authorize: forPropertyHeader, params: ZTokenIdParams }, async ({ req, res, headers, params }) => {
      await vault.delete(params.id, {
        propertyId: headers['x-property-id'],
        mode: modeOf(headers['svc-tokenization-mode']),
        requestId: String(req.id),
      });
      await recordVaultEvent(vault.audit, req, { httpStatus: 204, tokenId: params.id });
      res.status(204).end();
    }),
  );

  // Denied (401/403), rejected and failed vault requests get their audit event here.
  router.use('/vault/v1/tokens', auditVaultErrors(vault.audit));

  return router;
}

export function registerVaultDocs(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'post',
    path: '/vault/v1/tokens/card',
    tags: ['Card vault'],
    summary: 'Tokenize a card',
    description:
      'Validates the card (Luhn, brand, CVV length, expiry), stores it encrypted and answers a token id. ' +
      'SVC-Tokenization-Mode: test selects test mode; absent means live. Scope write:payment.',
    security: [{ bearerAuth: [] }],
    request: { headers: ZTokenizeHeaders, body: { required: true, content: { 'application/json': { schema: ZTokenizeCardRequest } } } },
    responses: {
      200: { description: 'Tokenized', content: { 'application/json': { schema: ZTokenizeCardResponse } } },
      ...errorResponses(400, 401, 403, 409, 413, 415, 429, 503),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/vault/v1/tokens/{id}',
    tags: ['Card vault'],
    summary: 'Token metadata',
    description: 'Metadata only, never the card number. A token is visible only in the mode it was created in. Scope read:payment.',
    security: [{ bearerAuth: [] }],
    request: { headers: ZVaultHeaders, params: ZTokenIdParams },
    responses: {
      200: { description: 'Metadata', content: { 'application/json': { schema: ZCardTokenMetadata } } },
      ...errorResponses(400, 401, 403, 404, 503),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/vault/v1/tokens/{id}',
    tags: ['Card vault'],
    summary: 'Delete a token (crypto-shredding)',
    description: "Destroys the record's data key so the card number cannot be recovered. Deleting twice answers 204 again. Scope write:payment.",
    security: [{ bearerAuth: [] }],
    request: { headers: ZVaultHeaders, params: ZTokenIdParams },
    responses: { 204: { description: 'Deleted' }, ...errorResponses(400, 401, 403, 404, 503) },
  });
}
