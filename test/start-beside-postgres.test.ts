import { chmodSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startPostgresServer } from '@folio-vault/dev-services/postgres-server';
import { freePort } from '@folio-vault/dev-services/process-utils';
import { provisionServices } from '@folio-vault/dev-services/provision';
import type { TRunningService } from '@folio-vault/dev-services/redis-server';
import { spawnTs } from '@folio-vault/test-kit/processes';
import { testKeys } from './support/world.js';

/**
 * `npm start` on a machine where Debian's `postgresql` package already runs a cluster that asks
 * every login for a password: a real PostgreSQL started here with scram-sha-256 and a password, on
 * a free port, stands for it. With DATABASE_URL unset (the default pointed at that cluster), the
 * start runs a PostgreSQL of its own in the data folder on another port and says so in one line;
 * with DATABASE_URL set to a login it refuses, the start stops with one line saying what to set.
 */
let dir: string;
let port: number;
let cluster: TRunningService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fv-beside-postgres-'));
  // PostgreSQL runs as its own user when the tests run as root and must get into the folder.
  chmodSync(dir, 0o755);
  port = await freePort();
  cluster = await startPostgresServer({ dir: join(dir, 'debian'), port, durable: false, password: 'debian-secret' });
});
afterAll(async () => {
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm start beside a PostgreSQL that asks for a password', () => {
  it('with DATABASE_URL unset, runs its own in the data folder on a free port, saying so in one line', { timeout: 120_000 }, async () => {
    const dataDir = join(dir, 'data');
    const lines: string[] = [];
    const services = await provisionServices({
      env: {},
      mode: 'persistent',
      dataDir,
      need: { postgres: true },
      log: (line) => lines.push(line),
      defaultDatabaseUrl: `postgres://postgres@127.0.0.1:${port}/folio_vault`,
    });
    let ownPort: string;
    try {
      ownPort = new URL(services.env.DATABASE_URL!).port;
      expect(ownPort).not.toBe(String(port));
      expect(lines).toEqual([
        `PostgreSQL at 127.0.0.1:${port} refuses the default login, user postgres without a password (it asks for a password): ` +
          `running our own in ${join(dataDir, 'postgres')} on port ${ownPort} instead (DATABASE_URL=postgres://postgres@127.0.0.1:${ownPort}/folio_vault ` +
          `for the other commands); to use the one at 127.0.0.1:${port}, set DATABASE_URL to a login it accepts`,
        `services: postgres from local PostgreSQL on port ${ownPort}`,
      ]);
      // The service gets that server, same database name, and it lets the login in without a password.
      expect(services.env.DATABASE_URL).toBe(`postgres://postgres@127.0.0.1:${ownPort}/folio_vault`);
      const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${ownPort}/postgres` });
      await client.connect();
      try {
        const { rows } = await client.query<{ data_directory: string }>("SELECT current_setting('data_directory') AS data_directory");
        expect(rows[0]!.data_directory).toBe(realpathSync(join(dataDir, 'postgres')));
      } finally {
        await client.end();
      }
    } finally {
      await services.stop();
    }
    expect(lines.at(-1)).toBe(`stopped local PostgreSQL on port ${ownPort}`);

    // The next start runs it again on the same port (the URL set for the other commands still holds).
    const again = await provisionServices({ env: {}, mode: 'persistent', dataDir, need: { postgres: true }, defaultDatabaseUrl: `postgres://postgres@127.0.0.1:${port}/folio_vault` });
    await again.stop();
    expect(again.env.DATABASE_URL).toBe(`postgres://postgres@127.0.0.1:${ownPort}/folio_vault`);
  });

  it('with DATABASE_URL set, uses a login it accepts, and stops on one it refuses with one line saying what to set (exit 2)', { timeout: 60_000 }, async () => {
    const dataDir = join(dir, 'data');
    const accepted = await provisionServices({ env: { DATABASE_URL: `postgres://postgres:debian-secret@127.0.0.1:${port}/folio_vault` }, mode: 'persistent', dataDir, need: { postgres: true } });
    expect([accepted.sources, accepted.env]).toEqual([{ postgres: 'DATABASE_URL' }, {}]);
    await accepted.stop();

    // A wrong password: the server's reason; the password itself is never shown.
    await expect(
      provisionServices({ env: { DATABASE_URL: `postgres://postgres:not-it@127.0.0.1:${port}/folio_vault` }, mode: 'persistent', dataDir, need: { postgres: true } }),
    ).rejects.toMatchObject({
      problems: [
        `DATABASE_URL: PostgreSQL at 127.0.0.1:${port} refuses its login, user postgres with its password (password authentication failed for user "postgres"): ` +
          `set a user and password it accepts (postgres://USER:PASSWORD@127.0.0.1:${port}/folio_vault), or leave DATABASE_URL unset for a PostgreSQL of our own in ${join(dataDir, 'postgres')}`,
      ],
    });

    // npm start itself: the one line, as a bad setting's, and exit code 2, before anything else starts.
    const start = spawnTs('scripts/start.ts', ['--data-dir', dataDir], {
      ...testKeys(),
      REDIS_URL: inject('redisUrl'),
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/folio_vault`,
    }, { direct: true });
    expect(await start.exited).toBe(2);
    expect(start.output().trim().split('\n').filter((line) => line.startsWith('folio-vault all: setting'))).toEqual([
      `folio-vault all: setting DATABASE_URL: PostgreSQL at 127.0.0.1:${port} refuses its login, user postgres without a password (it asks for a password): ` +
        `set a user and password it accepts (postgres://USER:PASSWORD@127.0.0.1:${port}/folio_vault), or leave DATABASE_URL unset for a PostgreSQL of our own in ${join(dataDir, 'postgres')}`,
    ]);
  });
});
