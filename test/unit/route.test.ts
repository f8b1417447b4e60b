import type { AddressInfo } from 'node:net';
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineRoute, expressPath, mountRoutes } from '@folio-vault/api/http/route';
import { impliedErrors, registerRoute } from '@folio-vault/api/http/route-docs';
import { AppError } from '@folio-vault/shared/errors';
import { ZPropertyHeaders } from '@folio-vault/shared/schemas/common';
import { z } from '@folio-vault/shared/schemas/zod';

/**
 * defineRoute(): one definition mounted on a real Express app (validation order, field paths,
 * content type, body limit) and described in a registry (operation, parameters, error statuses).
 */
const ZBody = z.strictObject({ expiration: z.strictObject({ month: z.string().regex(/^\d{2}$/, 'must be two digits') }) });
const handled: unknown[] = [];

const echo = defineRoute({
  method: 'post',
  path: '/things/{thingId}',
  operationId: 'echoThing',
  summary: 'Echo',
  tags: ['Test'],
  headers: ZPropertyHeaders,
  params: z.object({ thingId: z.uuid({ error: 'must be a UUID' }) }),
  body: ZBody,
  bodyLimit: '1kb',
  authorize: (_req, headers) => {
    if (headers['x-property-id'] === '9') throw new AppError('ACCESS_DENIED', 'Not this property.');
  },
  responses: { 200: { description: 'Echo', json: ZBody } },
  errors: [404],
  handler: () => async ({ res, headers, params, body }) => {
    handled.push({ headers, params, body });
    res.json({ property: headers['x-property-id'], thing: params.thingId, month: body.expiration.month });
  },
});

let base: string;
let close: () => void;

beforeAll(async () => {
  const app = express();
  mountRoutes(app as unknown as express.Router, [echo], { verifier: async () => ({ subject: 'x', scopes: new Set(), propertyIds: new Set(), operator: false }) });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = error instanceof AppError ? error.status : ((error as { status?: number }).status ?? 500);
    res.status(status).json(error instanceof AppError ? { errorCode: error.code, fieldErrors: error.fieldErrors } : { type: (error as { type?: string }).type });
  });
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close?.());

const THING = '0190a6f2-7d4c-7a3b-9c1d-2e3f4a5b6c7d';
const post = (path: string, headers: Record<string, string>, body: string) => fetch(`${base}${path}`, { method: 'POST', headers, body });
const json = { 'content-type': 'application/json' };

describe('defineRoute on Express', () => {
  it('hands the parsed values to the handler', async () => {
    const res = await post(`/things/${THING}`, { ...json, 'x-property-id': '007' }, '{"expiration":{"month":"08"}}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ property: '7', thing: THING, month: '08' });
  });

  it('reports every problem of headers, params and body at once, each at its path', async () => {
    const res = await post('/things/not-a-uuid', { ...json, 'x-property-id': 'abc' }, '{"expiration":{"month":"8","day":1},"extra":true}');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      errorCode: 'INVALID_REQUEST',
      fieldErrors: [
        { path: 'X-Property-Id', message: 'must be a positive integer' },
        { path: 'thingId', message: 'must be a UUID' },
        { path: 'expiration.month', message: 'must be two digits' },
        { path: 'expiration.day', message: 'is not a known field' },
        { path: 'extra', message: 'is not a known field' },
      ],
    });
  });

  it('names a missing header and a missing field "is required"', async () => {
    const res = await post(`/things/${THING}`, json, '{"expiration":{}}');
    expect(await res.json()).toEqual({
      errorCode: 'INVALID_REQUEST',
      fieldErrors: [
        { path: 'X-Property-Id', message: 'is required' },
        { path: 'expiration.month', message: 'is required' },
      ],
    });
  });

  it('authorizes on the headers before the body is read: 403 whatever the body holds', async () => {
    const before = handled.length;
    const res = await post(`/things/${THING}`, { 'content-type': 'text/plain', 'x-property-id': '9' }, 'not json at all');
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ errorCode: 'ACCESS_DENIED' });
    expect(handled.length).toBe(before);
  });

  it('answers 415 for a body that is not JSON and 413 above the body limit', async () => {
    const text = await post(`/things/${THING}`, { 'content-type': 'text/plain', 'x-property-id': '1' }, '{}');
    expect(text.status).toBe(415);
    expect(await text.json()).toEqual({ errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
    const large = await post(`/things/${THING}`, { ...json, 'x-property-id': '1' }, `{"expiration":{"month":"${'1'.repeat(2_000)}"}}`);
    expect(large.status).toBe(413);
    expect(await large.json()).toEqual({ errorCode: 'PAYLOAD_TOO_LARGE' });
  });

  it('reports each unknown field at its own path, a name that is not plain by its place', async () => {
    const res = await post(`/things/${THING}`, { ...json, 'x-property-id': '1' }, '{"expiration":{"month":"08","day":1,"4532015112830366":2,"a b":3},"x_12345678":4}');
    expect(await res.json()).toEqual({
      errorCode: 'INVALID_REQUEST',
      fieldErrors: [
        { path: 'expiration.day', message: 'is not a known field' },
        { path: 'expiration.[field 3]', message: 'is not a known field' },
        { path: 'expiration.[field 4]', message: 'is not a known field' },
        { path: '[field 2]', message: 'is not a known field' },
      ],
    });
  });

  it('reads a body after a byte order mark, and refuses bytes that are not UTF-8 at their path', async () => {
    const bom = await post(`/things/${THING}`, { ...json, 'x-property-id': '1' }, '\uFEFF{"expiration":{"month":"08"}}');
    expect(bom.status).toBe(200);
    const bytes = (text: string) => Buffer.from(text, 'latin1');
    const send = (body: Buffer) => fetch(`${base}/things/${THING}`, { method: 'POST', headers: { ...json, 'x-property-id': '1' }, body });
    expect(await (await send(bytes('{"expiration":{"month":"0\xe9"}}'))).json()).toEqual({
      errorCode: 'INVALID_REQUEST',
      fieldErrors: [{ path: 'expiration.month', message: 'is not valid UTF-8' }],
    });
    // A U+FFFD the client sent is text like any other; the byte that is not UTF-8 after it is the one named.
    expect(await (await send(Buffer.concat([bytes('{"expiration":{"month":"\xef\xbf\xbd","x\xc3":1}}')]))).json()).toEqual({
      errorCode: 'INVALID_REQUEST',
      fieldErrors: [{ path: 'expiration', message: 'holds a field name that is not valid UTF-8' }],
    });
    // Outside every string it is not JSON.
    const outside = await send(bytes('{"expiration":\xff}'));
    expect(outside.status).toBe(400);
    expect(await outside.json()).toEqual({ errorCode: 'INVALID_REQUEST', fieldErrors: [{ path: 'body', message: 'is not valid JSON' }] });
  });

  it('mounts only the method and path of the definition', async () => {
    expect(expressPath('/a/{id}/b/{other}')).toBe('/a/:id/b/:other');
    const res = await fetch(`${base}/things/${THING}`);
    expect(res.status).toBe(404);
  });
});

describe('defineRoute in the OpenAPI registry', () => {
  it('describes the operation from the same definition', () => {
    const registry = new OpenAPIRegistry();
    registerRoute(registry, echo);
    const [definition] = registry.definitions;
    expect(definition?.type).toBe('route');
    const route = (definition as { route: { method: string; path: string; operationId: string; security: unknown; responses: Record<string, unknown> } }).route;
    expect([route.method, route.path, route.operationId]).toEqual(['post', '/things/{thingId}', 'echoThing']);
    expect(route.security).toEqual([]);
    expect(Object.keys(route.responses)).toEqual(['200', '400', '404', '413', '415', '500']);
    expect(route.responses['413']).toEqual({ $ref: '#/components/responses/PayloadTooLarge' });
  });

  it('adds the statuses a route answers by its parts', () => {
    expect(impliedErrors({ ...echo, scope: 'read:payment', rateLimited: true }).sort((a, b) => a - b)).toEqual([400, 401, 403, 413, 415, 429, 500, 503]);
    expect(impliedErrors({ method: 'get', path: '/healthz', operationId: 'h', summary: 'h', tags: ['T'], responses: {} })).toEqual([500]);
  });
});
