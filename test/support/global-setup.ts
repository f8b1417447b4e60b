// Real services for the whole run (docs/operations.md#tests): URLs from the environment, else
// Docker via testcontainers, else local redis-server / PostgreSQL started in a temp folder. A
// template database is migrated once; each test file clones it (test/support/world.ts).

import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate } from '@folio-vault/shared/db/migrate';
import { provisionServices } from '@folio-vault/dev-services/provision';

export const TEMPLATE_DB = 'folio_vault_template';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    postgresUrl: string;
    templateDb: string;
    /** Every database a test creates starts with it: teardown drops this run's, never another checkout's running at the same time. */
    databasePrefix: string;
  }
}

export default async function setup(project: TestProject) {
  const services = await provisionServices({
    env: process.env,
    mode: 'ephemeral',
    need: { redis: true, postgres: true },
    log: (line) => console.warn(`[test services] ${line}`),
  });
  const redisUrl = services.env.REDIS_URL ?? process.env.REDIS_URL!;
  const postgresUrl = services.env.DATABASE_URL ?? process.env.DATABASE_URL!;

  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  const templateDb = `${TEMPLATE_DB}_${process.pid}`;
  await admin.query(`DROP DATABASE IF EXISTS ${templateDb}`);
  await admin.query(`CREATE DATABASE ${templateDb}`);
  await admin.end();
  const templateUrl = new URL(postgresUrl);
  templateUrl.pathname = `/${templateDb}`;
  await migrate(templateUrl.toString());

  project.provide('redisUrl', redisUrl);
  project.provide('postgresUrl', postgresUrl);
  project.provide('templateDb', templateDb);
  const databasePrefix = `fvt_${process.pid}_`;
  project.provide('databasePrefix', databasePrefix);

  return async () => {
    const cleanup = new pg.Client({ connectionString: postgresUrl });
    await cleanup.connect().then(
      async () => {
        const dbs = await cleanup.query<{ datname: string }>(
          `SELECT datname FROM pg_database WHERE starts_with(datname, $1) OR datname = $2`,
          [databasePrefix, templateDb],
        );
        for (const { datname } of dbs.rows) await cleanup.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => undefined);
        await cleanup.end();
      },
      () => undefined,
    );
    await services.stop();
  };
}
