import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import request from 'supertest';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '@folio-vault/dev-services/process-utils';
import { provisionServices, type TProvisioned } from '@folio-vault/dev-services/provision';
import { createRedis } from '@folio-vault/shared/connections';
import { roleUrlOf } from '@folio-vault/shared/db/roles';
import { writeNewComponentSet } from '@folio-vault/shared/vault/keys/components';
import { cardBody, futureYear } from '@folio-vault/test-kit/cards';
import { PROPERTY_1, SOURCE_ID, ledgerFolios, ledgerTransactions } from './support/ledger-fixture.js';
import { ROOT, childProcesses, spawnNode, waitForOutput, type TSpawned } from '@folio-vault/test-kit/processes';
import { testDatabaseName, testKeys } from './support/world.js';
import { binaryBody } from './support/binary-body.js';

/**
 * The service as production runs it (Dockerfile): `npm run build`, then the compiled API and a
 * compiled worker started with plain `node` (no tsx, no TypeScript loader), NODE_ENV=production,
 * keys by need, S3 storage, against the suite's Redis and PostgreSQL and an S3 server. The database
 * is new: the compiled migration command creates it and applies every migration as the schema's
 * owner, then the API and the worker start with their own roles' URLs only, as production runs
 * them (docs/operations.md#database-roles). The build writes the workspaces' dist/ folders in place
 * (tsc -b: only what changed since the last build). No OTEL_* is set: tracing is off, and the
 * processes, render processes included, load no tracing code (docs/operations.md#tracing).
 */
const run = promisify(execFile);
const MIGRATIONS = readdirSync(join(ROOT, 'packages/shared/src/db/migrations')).filter((file) => file.endsWith('.sql')).sort();
/** The worker's render pool size (EXPORT_CONCURRENCY); every process starts with the worker. */
const RENDER_PROCESSES = 2;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let s3: TProvisioned | undefined;
let api: TSpawned;
let worker: TSpawned;
let apiUrl: string;
let databaseUrl: string;
let queuePrefix: string;
let token: string;
let dir: string;
let migrated: TSpawned;
/** Where each service process lists the modules it loaded, at exit (support/record-modules.mjs). */
let modulesDir: string;

beforeAll(async () => {
  const started = performance.now();
  await run('npm', ['run', '-s', 'build'], { cwd: ROOT, maxBuffer: 16 << 20 });
  console.warn(`compiled-start: npm run build took ${((performance.now() - started) / 1000).toFixed(1)} s`);

  dir = await mkdtemp(join(tmpdir(), 'fv-compiled-'));
  modulesDir = mkdtempSync(join(dir, 'modules-'));
  s3 = await provisionServices({ env: process.env, mode: 'ephemeral', need: { s3: true } });
  const database = new URL(inject('postgresUrl'));
  database.pathname = `/${testDatabaseName()}`;
  databaseUrl = database.toString();
  const keys = testKeys();
  const common = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    REDIS_URL: inject('redisUrl'),
    QUEUE_PREFIX: (queuePrefix = `{fvt-${randomBytes(4).toString('hex')}}`),
    STORAGE_DRIVER: 'minio',
    MINIO_ENDPOINT: s3.env.MINIO_ENDPOINT ?? process.env.MINIO_ENDPOINT!,
    MINIO_ACCESS_KEY: s3.env.MINIO_ACCESS_KEY ?? process.env.MINIO_ACCESS_KEY!,
    MINIO_SECRET_KEY: s3.env.MINIO_SECRET_KEY ?? process.env.MINIO_SECRET_KEY!,
    MINIO_BUCKET: `fvt-${randomBytes(4).toString('hex')}`,
    EXPORT_LINK_KEY: keys.EXPORT_LINK_KEY!,
    NODE_OPTIONS: `--import=${join(ROOT, 'test/support/record-modules.mjs')}`,
    LOADED_MODULES_DIR: modulesDir,
  };
  // Production keeps no key in the environment: the worker's are split components (two custodians),
  // and the API's job signing key is a set of its own.
  const components = writeNewComponentSet(mkdtempSync(join(tmpdir(), 'fvt-components-')), 2, { for: 'worker' });
  const apiComponents = writeNewComponentSet(mkdtempSync(join(tmpdir(), 'fvt-components-')), 2, { for: 'api' });
  const port = await freePort();
  apiUrl = `http://127.0.0.1:${port}`;
  // The migrations first, as their own step with the owner's URL (docker-compose.yml's migrate service).
  migrated = spawnNode(['packages/shared/dist/db/migrate-command.js'], { NODE_ENV: 'production', DATABASE_URL: databaseUrl });
  expect(await migrated.exited).toBe(0);
  worker = spawnNode(['apps/worker/dist/main.js'], {
    ...common,
    WORKER_DATABASE_URL: roleUrlOf(databaseUrl, 'worker'),
    VAULT_KEY_PROVIDER: 'components',
    VAULT_KEY_COMPONENTS: components.file,
    VAULT_JOB_VERIFY_KEYS: apiComponents.jobVerifyKeys!,
    EXPORT_CONCURRENCY: String(RENDER_PROCESSES),
  });
  await waitForOutput(worker, /"msg":"worker ready"/, 60_000);
  api = spawnNode(['apps/api/dist/main.js'], {
    ...common,
    API_DATABASE_URL: roleUrlOf(databaseUrl, 'api'),
    PORT: String(port),
    JWT_SECRET: keys.JWT_SECRET!,
    VAULT_TRANSIT_PUBLIC_KEYS: components.transitPublicKeys!,
    VAULT_KEY_PROVIDER: 'components',
    VAULT_KEY_COMPONENTS: apiComponents.file,
  });
  await waitForOutput(api, /"msg":"api listening"/, 60_000);
  token = jwt.sign({ scope: 'read:payment write:payment', property_ids: [PROPERTY_1.id] }, keys.JWT_SECRET!, {
    algorithm: 'HS256', expiresIn: 300, subject: 'compiled-start', issuer: 'folio-vault', audience: 'folio-vault',
  });
}, 240_000);

afterAll(async () => {
  for (const spawned of [api, worker]) {
    if (spawned && spawned.child.exitCode === null && spawned.child.signalCode === null) {
      spawned.kill('SIGKILL');
      await spawned.exited;
    }
  }
  await s3?.stop();
  if (queuePrefix) {
    // The suite's Redis is shared: leave it without this file's queue keys (per master on a cluster).
    const redis = createRedis(inject('redisUrl'), 'worker', { maxRetriesPerRequest: 3 });
    for (const node of redis instanceof Cluster ? redis.nodes('master') : [redis]) {
      const stream = node.scanStream({ match: `${queuePrefix}*`, count: 500 });
      for await (const keys of stream as AsyncIterable<string[]>) if (keys.length) await node.del(...keys);
    }
    redis.disconnect();
  }
  if (dir) await rm(dir, { recursive: true, force: true });
  if (databaseUrl) {
    const admin = new pg.Client({ connectionString: inject('postgresUrl') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`);
    await admin.end();
  }
});

describe('the compiled service under plain node', () => {
  it('was built to JavaScript and started from it, with the migrations applied by the compiled code', () => {
    for (const file of ['packages/shared/dist/bootstrap.js', 'apps/api/dist/main.js', 'apps/worker/dist/main.js', 'apps/worker/dist/exports/render-child.js']) {
      expect(existsSync(join(ROOT, file)), file).toBe(true);
    }
    expect(MIGRATIONS).toEqual(readdirSync(join(ROOT, 'packages/shared/dist/db/migrations')).sort());
    // Development tooling stays out of what production loads: no compiled module names it.
    const compiled = ['packages/shared/dist', 'apps/api/dist', 'apps/worker/dist'].flatMap((folder) =>
      readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js')).map((file) => join(ROOT, folder, file)),
    );
    expect(compiled.filter((file) => /['"](@folio-vault\/(dev-services|test-kit)\/[^'"]*|testcontainers|s3rver)['"]/.test(readFileSync(file, 'utf8')))).toEqual([]);
    expect(migrated.output()).toBe(
      [`db:migrate: database ${new URL(databaseUrl).pathname.slice(1)} created`, ...MIGRATIONS.map((file) => `db:migrate: applied migration ${file}`), `db:migrate: ${MIGRATIONS.length} applied; no migration pending`, '']
        .join('\n'),
    );
    for (const started of [worker, api]) expect(started.output()).not.toMatch(/applied migration|pending/);
  });

  it('answers /readyz 200 with every store', async () => {
    const res = await request(apiUrl).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { redis: 'ok', postgres: 'ok', storage: 'ok', keys: 'ok' } });
  });

  it('tokenizes a public test card through the compiled worker', async () => {
    const res = await request(apiUrl)
      .post('/vault/v1/tokens/card')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Property-Id', '1')
      .set('SVC-Tokenization-Mode', 'test')
      .send(cardBody());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      card_brand: 'VISA',
      last4: '1111',
      expiration: { month: '08', year: futureYear() },
      test_mode: true,
    });
  });

  it('exports a folio as PDF, rendered by compiled render processes with the packaged fonts', async () => {
    const imported = await request(apiUrl)
      .post('/accounting/v1.0/import')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Property-Id', '1')
      .send({ property: PROPERTY_1, folios: ledgerFolios(), transactions: ledgerTransactions() });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body).toEqual({ property: 1, recipients: 0, reservations: 0, users: 0, folios: 2, transactions: 27 });

    const res = await request(apiUrl)
      .post('/fiscal-document/v1/folios/export')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Property-Id', '1')
      .send({ sourceKind: 'RESERVATION', sourceId: SOURCE_ID })
      .buffer(true)
      .parse(binaryBody);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const pdf = res.body as Buffer;
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-length']).toBe(String(pdf.length));
    expect(res.headers['x-export-id']).toMatch(UUID);
    expect(res.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="folio-RESERVATION-${SOURCE_ID}-\\d{8}\\.pdf"$`));
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const file = join(dir, 'folio.pdf');
    await writeFile(file, pdf);
    const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { maxBuffer: 16 << 20 });
    // Latin, Cyrillic, Greek and CJK: each needs its font file from the worker's npm packages.
    for (const text of [PROPERTY_1.name, 'Tasa turística', 'Spa ритуал', 'Sala Ωμέγα', '朝食 Breakfast']) expect(stdout).toContain(text);

    const status = await request(apiUrl)
      .get(`/fiscal-document/v1/folios/exports/${res.headers['x-export-id']}`)
      .set('Authorization', `Bearer ${token}`)
      .set('X-Property-Id', '1');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ exportId: res.headers['x-export-id'], status: 'completed', progress: 100, size: pdf.length, sha256: createHash('sha256').update(pdf).digest('hex') });

    // The render processes are compiled JavaScript under plain node too: no tsx loader. Each can
    // collect its garbage on demand and knows the RSS past which the pool replaces it (320 MB by
    // default); those the worker starts with are told to draw the warm-up document before it takes jobs.
    const renderer = [process.execPath, '--expose-gc', join(ROOT, 'apps/worker/dist/exports/render-child.js'), '--rss-limit=320000000', '--warm-up'];
    expect(childProcesses(worker.child.pid!).map((child) => child.args)).toEqual(Array.from({ length: RENDER_PROCESSES }, () => renderer));
  });

  it('stops both processes cleanly on SIGTERM', async () => {
    api.kill('SIGTERM');
    worker.kill('SIGTERM');
    expect(await api.exited).toBe(0);
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toMatch(/"msg":"stopped"/);
  });

  it('loaded no OpenTelemetry SDK, exporter or instrumentation, nor bullmq-otel, with tracing off', () => {
    const loaded = readdirSync(modulesDir).map((file) => readFileSync(join(modulesDir, file), 'utf8').split('\n'));
    // The API, the worker and the worker's render processes; each loaded pg or React.
    expect(loaded.length).toBe(2 + RENDER_PROCESSES);
    expect(loaded.every((modules) => modules.some((file) => /node_modules\/(pg|react)\//.test(file)))).toBe(true);
    const tracing = loaded.flat().filter((file) => /node_modules\/(@opentelemetry\/(?!api\/)|bullmq-otel\/|require-in-the-middle\/|import-in-the-middle\/)/.test(file));
    expect(tracing).toEqual([]);
  });
});
