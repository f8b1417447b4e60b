import { ZErrorBody } from '@folio-vault/shared/schemas/common';

/** OpenAPI responses for the error statuses a route can answer, all in the contract's error shape. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [status, { description: 'Error', content: { 'application/json': { schema: ZErrorBody } } }]),
  );
}
