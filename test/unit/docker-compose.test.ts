import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, loadConfig, type TProcessRole } from '@folio-vault/shared/config';
import { parseKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { publicKeysSetting } from '@folio-vault/shared/vault/crypto/transit';
import { jobVerifyKeysSetting, softwareJobSigner } from '@folio-vault/shared/vault/job-signature';

/**
 * docker-compose.yml and the `.env` recipe of docs/operations.md#docker, checked without Docker:
 * each service built from the repository's image gets the environment compose would give it (its
 * `environment` with the `<<` merges, `${…}` filled from the `.env` the recipe writes, sample
 * values standing in for the generated keys) and the real settings loader of its role, with the
 * image's NODE_ENV=production, must accept it. A setting production comes to require breaks this
 * test until the compose file and the recipe set it.
 */
const root = join(import.meta.dirname, '..', '..');

/** The names the recipe writes into `.env` (its `echo "NAME=…"` lines). */
function envRecipeNames(): string[] {
  const operations = readFileSync(join(root, 'docs/operations.md'), 'utf8');
  const blocks = [...operations.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const recipe = blocks.filter((block) => /\}\s*>\s*\.env\b/.test(block));
  expect(recipe).toHaveLength(1);
  return [...recipe[0]!.matchAll(/echo "([A-Z][A-Z0-9_]*)=/g)].map((match) => match[1]!);
}

/** What each generated value looks like, as the recipe's command makes it. */
function sampleValue(name: string): string {
  const samples: Record<string, () => string> = {
    JWT_SECRET: () => randomBytes(48).toString('base64url'),
    EXPORT_LINK_KEY: () => randomBytes(32).toString('base64'),
    VAULT_TRANSIT_PUBLIC_KEYS: () => publicKeysSetting(parseKeyring(`transit-1:${randomBytes(32).toString('base64')}`)),
    VAULT_JOB_VERIFY_KEYS: () => jobVerifyKeysSetting(softwareJobSigner('folio-job-signing-1', randomBytes(32))),
  };
  const make = samples[name];
  if (!make) throw new Error(`the .env recipe writes ${name}: give this test a sample value for it`);
  return make();
}

/**
 * Compose's interpolation: `$$`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?message}`
 * and `${VAR?message}` (the `:` forms treat an empty value as unset). A required variable that is
 * unset is a problem, as `docker compose up` stops on it.
 */
function interpolate(value: string, vars: Record<string, string>, problems: string[]): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g, (whole, name: string | undefined, colon: string, op: string, arg: string) => {
    if (whole === '$$') return '$';
    const raw = vars[name!];
    const unset = raw === undefined || (colon === ':' && raw === '');
    if (!op) return raw ?? '';
    if (op === '-') return unset ? arg : raw!;
    if (unset) problems.push(`${name} is unset: ${arg}`);
    return raw ?? '';
  });
}

interface TComposeService {
  build?: unknown;
  image?: string;
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
}

const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, TComposeService> };
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');

/** The compiled migration command (packages/shared/src/db/migrate-command.ts): the one service given the owner's URL. */
const MIGRATE_COMMAND = 'packages/shared/dist/db/migrate-command.js';
const runsMigrations = (service: TComposeService) => service.command?.includes(MIGRATE_COMMAND) ?? false;

/** The services that run the repository's image as an API or a worker, and the role each runs (from its command). */
function appServices(): Array<{ name: string; role: TProcessRole; service: TComposeService }> {
  return Object.entries(compose.services)
    .filter(([, service]) => service.build !== undefined && !runsMigrations(service))
    .map(([name, service]) => {
      const entry = service.command?.find((part) => /apps\/(api|worker)\/dist\/main\.js$/.test(part));
      const role = entry?.match(/apps\/(api|worker)\//)?.[1] as TProcessRole | undefined;
      if (!role) throw new Error(`${name}: its command names neither apps/api nor apps/worker`);
      return { name, role, service };
    });
}

describe('docker-compose.yml and the .env recipe', () => {
  const names = envRecipeNames();
  const dotEnv = Object.fromEntries(names.map((name) => [name, sampleValue(name)]));

  it('runs an API and a worker from the repository image, with NODE_ENV=production from the image as well', () => {
    expect(appServices().map(({ name, role }) => `${name}: ${role}`)).toEqual(['api: api', 'worker: worker']);
    expect(dockerfile).toMatch(/^ENV NODE_ENV=production$/m);
  });

  it.each(appServices())('$name: the production settings loader of its role accepts its environment', ({ role, service }) => {
    const problems: string[] = [];
    const env = Object.fromEntries(
      Object.entries(service.environment ?? {}).map(([name, value]) => [name, interpolate(String(value ?? ''), dotEnv, problems)]),
    );
    expect(problems).toEqual([]);
    expect(env.NODE_ENV).toBe('production');
    let configProblems: string[] = [];
    try {
      loadConfig({ NODE_ENV: 'production', ...env }, role);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      configProblems = error.problems;
    }
    expect(configProblems).toEqual([]);
  });

  it('gives the owner\'s DATABASE_URL to the migrate service alone, which the API and the workers wait for, each connecting as its role', () => {
    const migrating = Object.entries(compose.services).filter(([, service]) => runsMigrations(service));
    expect(migrating.map(([name, service]) => [name, service.environment?.NODE_ENV, Boolean(service.environment?.DATABASE_URL)])).toEqual([['migrate', 'production', true]]);
    const withOwner = Object.entries(compose.services).filter(([, service]) => service.environment?.DATABASE_URL !== undefined).map(([name]) => name);
    expect(withOwner).toEqual(['migrate']);
    const urls = appServices().map(({ name, service }) => [name, service.environment?.API_DATABASE_URL, service.environment?.WORKER_DATABASE_URL]);
    expect(urls).toEqual([
      ['api', expect.stringMatching(/^postgres:\/\/folio_vault_api:/), undefined],
      ['worker', undefined, expect.stringMatching(/^postgres:\/\/folio_vault_worker:/)],
    ]);
    const dependsOn = (name: string) => Object.keys((compose.services[name] as { depends_on?: Record<string, unknown> }).depends_on ?? {});
    for (const { name } of appServices()) expect(dependsOn(name), name).toContain('db-passwords');
    expect(dependsOn('db-passwords')).toEqual(['migrate']);
  });

  it('the .env recipe writes only what compose reads', () => {
    const read = new Set(JSON.stringify(compose).match(/\$\{[A-Za-z_][A-Za-z0-9_]*/g)!.map((match) => match.slice(2)));
    expect(names.filter((name) => !read.has(name))).toEqual([]);
  });
});
