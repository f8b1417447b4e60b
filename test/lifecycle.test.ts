import { Queue } from 'bullmq';
import { createJwtVerifier } from '@folio-vault/api/auth/jwt-verifier';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@folio-vault/dev-services/process-utils';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { startWorker } from '@folio-vault/worker/worker';
import { cardBody } from '@folio-vault/test-kit/cards';
import { spawnTs, waitForOutput, type TSpawned } from '@folio-vault/test-kit/processes';
import { killGroup } from './support/faults.js';
import { createWorld, type TWorld } from './support/world.js';

/** The processes as an operator runs them: separate API and worker, signals, the token command. */
let world: TWorld;

beforeAll(async () => {
  world = await createWorld({ worker: false });
});
afterAll(async () => world?.close());

// A service a test started is stopped even when the test fails before it does (its process group:
// tsx's child and the render processes too), so no worker outlives its test.
const started: TSpawned[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map(killGroup));
});
const service = (script: string, env: Record<string, string>) => {
  const spawned = spawnTs(script, [], env, { group: true });
  started.push(spawned);
  return spawned;
};

const tokenize = (url: string, token: string) =>
  request(url).post('/vault/v1/tokens/card').set('Authorization', `Bearer ${token}`).set('X-Property-Id', '1').set('SVC-Tokenization-Mode', 'test').send(cardBody());

describe('npm run start:worker and start:api as separate processes', () => {
  it('a worker process serves the API, and both stop cleanly on SIGTERM', async () => {
    const worker = service('apps/worker/src/main.ts', world.env);
    await waitForOutput(worker, /worker ready/);
    const res = await tokenize(world.url, world.token());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toMatch(/"msg":"stopped"/);

    const port = await freePort();
    const api = service('apps/api/src/main.ts', { ...world.env, PORT: String(port) });
    await waitForOutput(api, /api listening/);
    expect((await request(`http://127.0.0.1:${port}`).get('/healthz')).status).toBe(200);
    api.child.kill('SIGTERM');
    expect(await api.exited).toBe(0);
  });

  it('refuses to start in production without keys or with local ones, one line per problem, each process what it needs', async () => {
    const env = { NODE_ENV: 'production', DATABASE_URL: world.env.DATABASE_URL!, REDIS_URL: world.env.REDIS_URL!, PORT: 'not-a-port' };
    const api = service('apps/api/src/main.ts', env);
    const worker = service('apps/worker/src/main.ts', env);
    expect(await api.exited).toBe(1);
    expect(await worker.exited).toBe(1);
    const linesFor = (output: string, setting: string) => output.split('\n').filter((line) => line.includes(`setting ${setting}:`));
    // The API needs a JWT key, the workers' public transit keys and the link key (it checks download
    // links), and never asks for a vault secret or a key provider.
    for (const setting of ['PORT', 'JWT_SECRET', 'VAULT_TRANSIT_PUBLIC_KEYS', 'EXPORT_LINK_KEY']) expect(linesFor(api.output(), setting), setting).toHaveLength(1);
    for (const setting of ['VAULT_KEY_PROVIDER', 'VAULT_KEK_TEST', 'VAULT_FINGERPRINT_KEY', 'VAULT_TRANSIT_KEY']) expect(linesFor(api.output(), setting), setting).toHaveLength(0);
    // The worker needs a key provider other than `local` and the link key (webhooks carry signed links), and no JWT key.
    for (const setting of ['PORT', 'VAULT_KEY_PROVIDER', 'EXPORT_LINK_KEY']) expect(linesFor(worker.output(), setting), setting).toHaveLength(1);
    expect(worker.output()).toContain('setting VAULT_KEY_PROVIDER: local keeps the vault keys in clear in settings; NODE_ENV=production needs pkcs11 or components');
    for (const setting of ['JWT_SECRET', 'VAULT_TRANSIT_PUBLIC_KEYS']) expect(linesFor(worker.output(), setting), setting).toHaveLength(0);
  });
});

describe('graceful shutdown of the API', () => {
  it('finishes a request in flight, then refuses new connections', async () => {
    const own = await createWorld({ worker: false });
    const queue = new Queue(QUEUE_NAMES.vault, { connection: own.redis, prefix: own.config.QUEUE_PREFIX });
    try {
      const inFlight = tokenize(own.url, own.token()).then((res) => res);
      // Wait until the request's job is queued (no worker yet), then start closing.
      for (let i = 0; i < 200 && (await queue.getWaitingCount()) === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
      expect(await queue.getWaitingCount()).toBe(1);
      const closing = own.api.close();
      const worker = await startWorker(own.config, own.logger, { warmRenderProcesses: false });
      const res = await inFlight;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await closing;
      await worker.close();
      await expect(request(own.url).get('/healthz')).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await queue.close();
      own.api.close = async () => undefined;
      await own.close();
    }
  });
});

describe('npm run token', () => {
  it('prints one signed development JWT and nothing else on stdout', async () => {
    const secret = world.config.JWT_SECRET!;
    const run = spawnTs('scripts/token.ts', ['--property', '1', '--property', '42', '--scope', 'read:payment admin', '--ttl', '120', '--sub', 'night-auditor'], { JWT_SECRET: secret });
    let stdout = '';
    run.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    expect(await run.exited).toBe(0);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const claims = jwt.verify(lines[0]!, secret, { algorithms: ['HS256'], issuer: 'folio-vault', audience: 'folio-vault' }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: 'night-auditor', scope: 'read:payment admin', property_ids: [1, 42] });
    expect(claims.exp! - claims.iat!).toBe(120);
    // And the service's verifier accepts it.
    const principal = await createJwtVerifier(world.config)(lines[0]!);
    expect([...principal.propertyIds]).toEqual(['1', '42']);
    expect([...principal.scopes]).toEqual(['read:payment', 'admin']);
  });

  it('refuses a bad --property with exit code 2 and no token', async () => {
    const run = spawnTs('scripts/token.ts', ['--property', 'abc'], { JWT_SECRET: world.config.JWT_SECRET! });
    let stdout = '';
    run.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    expect(await run.exited).toBe(2);
    expect(stdout).toBe('');
    expect(run.output()).toContain('--property must be a positive integer');
  });
});
