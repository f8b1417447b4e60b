import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import { errorResponse, REQUEST_ID_HEADER, type THeaderDoc } from './openapi-errors.js';
import type { TRouteSpec } from './route.js';

/** A success answer of a route: JSON described by a zod schema, or another content type. */
export interface TResponseDoc {
  description: string;
  json?: z.ZodType;
  /** Another content type, or several that share a schema (a file that is a PDF or an XML). */
  content?: { type: string | string[]; schema: Record<string, unknown> };
  headers?: Record<string, THeaderDoc>;
}

/**
 * The error statuses a route answers by its parts alone: any route 500; an authenticated one 401,
 * 403 and 503 (its token cannot be checked, or a store it needs does not answer); a limited one
 * 429; one that reads headers, path parameters or a body 400; a JSON body 413 and 415.
 */
export function impliedErrors(route: TRouteSpec): number[] {
  const statuses = [500];
  if (route.scope) statuses.push(401, 403, 503);
  if (route.rateLimited) statuses.push(429);
  if (route.headers || route.params || route.query || route.body) statuses.push(400);
  if (route.body) statuses.push(413, 415);
  return statuses;
}

function successResponse(doc: TResponseDoc) {
  const content = doc.json
    ? { 'application/json': { schema: doc.json } }
    : doc.content
      ? Object.fromEntries([doc.content.type].flat().map((type) => [type, { schema: doc.content!.schema }]))
      : undefined;
  return { description: doc.description, headers: { 'X-Request-Id': REQUEST_ID_HEADER, ...doc.headers }, ...(content ? { content } : {}) };
}

/** Describes one route in the registry, from the same definition Express mounts. */
export function registerRoute(registry: OpenAPIRegistry, route: TRouteSpec): void {
  const errors = [...new Set([...impliedErrors(route), ...(route.errors ?? [])])].sort((a, b) => a - b);
  const scopeLine = route.scope ? `Scope ${route.scope}.` : 'No authentication.';
  registry.registerPath({
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    description: route.description ? `${route.description} ${scopeLine}` : scopeLine,
    tags: route.tags,
    // OpenAPI 3.1 lets a bearer scheme list the roles it needs: here the token's scope.
    // A route that admits a signed link also works with no scheme at all (the empty requirement).
    security: route.scope ? [{ bearerAuth: [route.scope] }, ...(route.signedLink ? [{}] : [])] : [],
    request: {
      headers: route.headers,
      params: route.params,
      ...(route.query ? { query: route.query } : {}),
      body: route.body ? { required: true, content: { 'application/json': { schema: route.body } } } : undefined,
    },
    responses: {
      ...Object.fromEntries(Object.entries(route.responses).map(([status, doc]) => [status, successResponse(doc)])),
      ...Object.fromEntries(errors.map((status) => [status, errorResponse(status)])),
    },
  });
}
