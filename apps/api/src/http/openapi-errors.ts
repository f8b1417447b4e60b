import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { ERROR_STATUS } from '@folio-vault/shared/errors';
import { ZErrorBody } from '@folio-vault/shared/schemas/common';

/** An OpenAPI header object, written as the document shows it. */
export interface THeaderDoc {
  description: string;
  required: boolean;
  schema: Record<string, unknown>;
}

/** Response headers the service sets, one description each. */
export const HEADERS = {
  retryAfter: (required: boolean): THeaderDoc => ({ description: 'Seconds to wait before trying again.', required, schema: { type: 'string', pattern: '^\\d+$' } }),
  location: { description: 'Where to poll the status (a path on this service).', required: true, schema: { type: 'string', format: 'uri-reference' } },
  wwwAuthenticate: { description: 'The bearer challenge (RFC 6750).', required: true, schema: { type: 'string', pattern: '^Bearer .*error="invalid_token"' } },
  // The limiter's IETF draft-8 fields (http/rate-limit.ts); absent when it did not count the request.
  rateLimit: { description: 'Requests left in the current window (IETF draft-ietf-httpapi-ratelimit-headers-08).', required: false, schema: { type: 'string' } },
  rateLimitPolicy: { description: 'The limit and its window (IETF draft-ietf-httpapi-ratelimit-headers-08).', required: false, schema: { type: 'string' } },
} satisfies Record<string, THeaderDoc | ((required: boolean) => THeaderDoc)>;

/** Every answer carries the request id (echoed when sane, generated otherwise: app.ts). */
export const REQUEST_ID_HEADER = { $ref: '#/components/headers/X-Request-Id' };

interface TErrorDoc {
  name: string;
  description: string;
  headers?: Record<string, THeaderDoc>;
}

/** One reusable response per error status, in the error body of packages/shared/src/errors.ts. */
const ERROR_RESPONSES: Record<number, TErrorDoc> = {
  400: { name: 'BadRequest', description: 'The request is not valid; fieldErrors names each header, path parameter or body field at fault.' },
  401: { name: 'Unauthorized', description: 'No valid bearer token.', headers: { 'WWW-Authenticate': HEADERS.wwwAuthenticate } },
  403: { name: 'Forbidden', description: 'The token lacks the scope of the operation or may not act for X-Property-Id.' },
  404: { name: 'NotFound', description: 'No such entity for this property (and mode); the answer never says which.' },
  409: { name: 'Conflict', description: 'The request conflicts with the state of the entity.', headers: { 'Retry-After': HEADERS.retryAfter(false) } },
  410: { name: 'Gone', description: 'The entity existed and is gone for good (an export past its retention).' },
  413: { name: 'PayloadTooLarge', description: 'The body is larger than the operation accepts.' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not UTF-8 JSON (Content-Type: application/json).' },
  422: { name: 'UnprocessableContent', description: 'The request is valid, but the data it refers to lacks what the operation needs; fieldErrors names each missing item.' },
  429: {
    name: 'TooManyRequests',
    description: 'Over a request limit.',
    headers: { 'Retry-After': HEADERS.retryAfter(true), RateLimit: HEADERS.rateLimit, 'RateLimit-Policy': HEADERS.rateLimitPolicy },
  },
  500: { name: 'InternalError', description: 'An unexpected error; it has been logged, nothing of it is answered.' },
  502: { name: 'BadGateway', description: 'A forward destination could not be reached, failed TLS, redirected or answered more than 1 MB.' },
  503: { name: 'ServiceUnavailable', description: 'A store the operation needs cannot answer right now; retry after Retry-After.', headers: { 'Retry-After': HEADERS.retryAfter(true) } },
  504: { name: 'GatewayTimeout', description: 'A forward destination did not answer within its time-out.' },
};

const codesOf = (status: number) => Object.entries(ERROR_STATUS).filter(([, s]) => s === status).map(([code]) => code);

/** The reusable error responses and the headers they share, registered once. */
export function registerErrorComponents(registry: OpenAPIRegistry): void {
  registry.registerComponent('headers', 'X-Request-Id', {
    description: 'The request id: the X-Request-Id sent, when it is 1-128 characters of [A-Za-z0-9._:-]; a new UUID otherwise.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  });
  registry.register('Error', ZErrorBody);
  for (const [status, doc] of Object.entries(ERROR_RESPONSES)) {
    registry.registerComponent('responses', doc.name, {
      description: `${doc.description} errorCode: ${codesOf(Number(status)).join(', ')}.`,
      headers: { 'X-Request-Id': REQUEST_ID_HEADER, ...doc.headers },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
  }
}

/** A reference to the reusable response of an error status. */
export function errorResponse(status: number): { $ref: string } {
  const doc = ERROR_RESPONSES[status];
  if (!doc) throw new Error(`No error response is described for status ${status}.`);
  return { $ref: `#/components/responses/${doc.name}` };
}
