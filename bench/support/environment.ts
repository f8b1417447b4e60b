import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig, type TAllConfig } from '@folio-vault/shared/config';
import { migrate } from '@folio-vault/shared/db/migrate';
import { roleUrlOf } from '@folio-vault/shared/db/roles';
import { createLogger, type Logger } from '@folio-vault/shared/logger';
import { writeNewComponentSet } from '@folio-vault/shared/vault/keys/components';
import { provisionServices, type TProvisioned } from '@folio-vault/dev-services/provision';

/**
 * Services and settings for a benchmark run: same provisioning as the tests, a fresh database.
 * The service connects as its roles (their URLs are set: it runs with NODE_ENV=production);
 * `ownerUrl` is the database owner's, for the benchmark's own seeding and checks.
 */
export async function benchEnvironment(): Promise<{ config: TAllConfig; ownerUrl: string; logger: Logger; services: TProvisioned; rawEnv: () => Record<string, string> }> {
  const services = await provisionServices({ env: process.env, mode: 'ephemeral', need: { redis: true, postgres: true } });
  const databaseUrl = await createBenchDatabase(services.env.DATABASE_URL ?? process.env.DATABASE_URL!);
  // The services run with NODE_ENV=production, which refuses `local` keys: software keys as split
  // components (the same code as `local`), made for this run. A production API process refuses a
  // set that holds vault keys: it gets a set of its own naming the same job signing key's
  // components (BENCH_API_KEY_COMPONENTS, service-processes.ts).
  const keys = writeNewComponentSet(mkdtempSync(join(tmpdir(), 'fv-bench-keys-')), 2);
  const apiKeys = join(dirname(keys.file), 'api-components.json');
  writeFileSync(apiKeys, JSON.stringify({ jobSigning: (JSON.parse(readFileSync(keys.file, 'utf8')) as { jobSigning: unknown }).jobSigning }));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    REDIS_URL: (services.env.REDIS_URL ?? process.env.REDIS_URL)!,
    DATABASE_URL: databaseUrl,
    API_DATABASE_URL: roleUrlOf(databaseUrl, 'api'),
    WORKER_DATABASE_URL: roleUrlOf(databaseUrl, 'worker'),
    QUEUE_PREFIX: `{bench-${randomBytes(3).toString('hex')}}`,
    JWT_SECRET: randomBytes(48).toString('base64url'),
    VAULT_KEY_PROVIDER: 'components',
    VAULT_KEY_COMPONENTS: keys.file,
    VAULT_TRANSIT_PUBLIC_KEYS: keys.transitPublicKeys!,
    VAULT_JOB_VERIFY_KEYS: keys.jobVerifyKeys!,
    BENCH_API_KEY_COMPONENTS: apiKeys,
    EXPORT_LINK_KEY: randomBytes(32).toString('base64'),
    STORAGE_DIR: `/tmp/fv-bench-${randomBytes(3).toString('hex')}`,
  };
  const config = loadConfig(env);
  // Logs are written as in production (JSON lines) but to /dev/null, so their cost is counted.
  const logger = createLogger({ level: 'info', destination: pino.destination({ dest: '/dev/null', sync: false }) });
  return { config, ownerUrl: databaseUrl, logger, services, rawEnv: () => ({ ...env }) };
}

/** A fresh, migrated database on the given server, for one benchmark run. */
export async function createBenchDatabase(serverUrl: string): Promise<string> {
  const name = `fv_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  return url.toString();
}

/**
 * Hands a benchmark's figures to bench/run.ts: written as JSON to BENCH_RESULT_FILE when the runner
 * set it (each benchmark runs in its own process), ignored when run by hand.
 */
export function writeResult(result: unknown): void {
  const file = process.env.BENCH_RESULT_FILE;
  if (file) writeFileSync(file, JSON.stringify(result, null, 2));
}
