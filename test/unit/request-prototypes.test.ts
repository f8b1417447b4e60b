import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServer } from '@folio-vault/api/http/request-prototypes';

/**
 * createAppServer() (a kept performance measure): requests and responses are born with the
 * Express app's prototypes, so Express's own Object.setPrototypeOf on each of them changes nothing
 * (apps/api/src/http/request-prototypes.ts says why that matters), and Express works through it as
 * through `app.listen`.
 */
function testApp() {
  const app = express();
  app.use(express.json());
  app.get('/things', (req, res) => {
    res.set('X-Ip', req.ip ?? '').json({ query: req.query, path: req.path, method: req.method });
  });
  app.post('/things', (req, res) => {
    res.status(201).json({ got: req.body as unknown });
  });
  return app;
}

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The prototypes each request and response had when the server handed them out, before Express. */
function recordPrototypes(server: Server): Array<{ req: object | null; res: object | null }> {
  const seen: Array<{ req: object | null; res: object | null }> = [];
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ req: Object.getPrototypeOf(req) as object | null, res: Object.getPrototypeOf(res) as object | null });
  });
  return seen;
}

describe('the API server', () => {
  const app = testApp();
  const server = createAppServer(app);
  const seen = recordPrototypes(server);
  // One keep-alive connection: the second and third requests arrive on a socket already used.
  const agent = new Agent({ connections: 1 });
  let base: string;

  beforeAll(async () => {
    base = await listening(server);
  });
  afterAll(async () => {
    await agent.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('creates every request and response with the app prototypes, before Express sees them', async () => {
    for (let i = 0; i < 3; i += 1) {
      const answer = await request(`${base}/things?n=${i}`, { dispatcher: agent });
      expect(answer.statusCode).toBe(200);
      await answer.body.text();
    }
    expect(seen).toHaveLength(3);
    for (const { req, res } of seen) {
      expect(req).toBe(app.request);
      expect(res).toBe(app.response);
    }
  });

  it('serves Express as app.listen does: query, path, ip, JSON in and out, status, HEAD, 404', async () => {
    const get = await request(`${base}/things?colour=blue&size=2`, { dispatcher: agent });
    expect(get.statusCode).toBe(200);
    expect(get.headers['x-ip']).toBe('127.0.0.1');
    expect(await get.body.json()).toEqual({ query: { colour: 'blue', size: '2' }, path: '/things', method: 'GET' });

    const post = await request(`${base}/things`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
    expect(post.statusCode).toBe(201);
    expect(await post.body.json()).toEqual({ got: { a: [1, 2] } });

    const head = await request(`${base}/things`, { method: 'HEAD', dispatcher: agent });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(await head.body.text()).toBe('');

    const missing = await request(`${base}/nothing`, { dispatcher: agent });
    expect(missing.statusCode).toBe(404);
    await missing.body.text();
  });
});

describe("Node's own server, for comparison", () => {
  it('hands Express requests and responses with http prototypes, which Express then changes', async () => {
    const app = testApp();
    const server = createServer(app);
    const seen = recordPrototypes(server);
    const base = await listening(server);
    try {
      const answer = await request(`${base}/things`);
      await answer.body.text();
      expect(seen).toEqual([{ req: IncomingMessage.prototype, res: ServerResponse.prototype }]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
