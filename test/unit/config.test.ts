import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, LOCAL_KEY_NAMES, loadConfig } from '@folio-vault/shared/config';
import { withDevKeys } from '@folio-vault/shared/dev-keys';
import { parseKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { formatKeyring, publicKeyring } from '@folio-vault/shared/vault/crypto/transit';
import { jobVerifyKeysSetting, softwareJobSigner } from '@folio-vault/shared/vault/job-signature';

const KEY_NAMES = ['JWT_SECRET', 'VAULT_KEK_TEST', 'VAULT_KEK_LIVE', 'VAULT_FINGERPRINT_KEY', 'VAULT_TRANSIT_KEY', 'VAULT_JOB_SIGNING_KEY', 'EXPORT_LINK_KEY'] as const;

/** The public transit keyring setting of a private one, as `npm run keys:public` prints it. */
const publicOf = (transitKey: string) => formatKeyring(publicKeyring(parseKeyring(transitKey)));
/** The public job keys setting of a job signing key, as `npm run keys:public` prints it. */
const verifyKeysOf = (signingKey: string) => {
  const ring = parseKeyring(signingKey);
  return jobVerifyKeysSetting(softwareJobSigner(ring.activeId, ring.keys.get(ring.activeId)!));
};

function requiredKeys(): Record<string, string> {
  const transit = `transit-1:${randomBytes(32).toString('base64')}`;
  const signing = `job-signing-1:${randomBytes(32).toString('base64')}`;
  return {
    JWT_SECRET: randomBytes(48).toString('base64url'),
    VAULT_KEK_TEST: `test-kek-1:${randomBytes(32).toString('base64')}`,
    VAULT_KEK_LIVE: `live-kek-1:${randomBytes(32).toString('base64')}`,
    VAULT_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
    VAULT_TRANSIT_KEY: transit,
    VAULT_TRANSIT_PUBLIC_KEYS: publicOf(transit),
    VAULT_JOB_SIGNING_KEY: signing,
    VAULT_JOB_VERIFY_KEYS: verifyKeysOf(signing),
    EXPORT_LINK_KEY: randomBytes(32).toString('base64'),
  };
}

/** Each process's own database URL, as production requires them. */
const ROLE_URLS = {
  API_DATABASE_URL: 'postgres://folio_vault_api:api-password@db.internal:5432/folio_vault',
  WORKER_DATABASE_URL: 'postgres://folio_vault_worker:worker-password@db.internal:5432/folio_vault',
};

/** `env` without the `local` provider's cleartext keys, which production refuses beside components. */
const withoutLocalKeys = (env: Record<string, string>) => Object.fromEntries(Object.entries(env).filter(([name]) => !(LOCAL_KEY_NAMES as string[]).includes(name)));

/** The problem lines loadConfig throws for env, or [] when it loads. */
function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

const tempDirs: string[] = [];
function tempFile(name = 'dev-keys.json'): string {
  const dir = mkdtempSync(join(tmpdir(), 'fv-dev-keys-'));
  tempDirs.push(dir);
  return join(dir, 'nested', name);
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe('loadConfig — defaults', () => {
  it('fills every default from an env that has only the required keys', () => {
    const config = loadConfig(requiredKeys());
    expect(config.PORT).toBe(3000);
    expect(config.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(config.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/folio_vault');
    expect(config.QUEUE_PREFIX).toBe('{folio}');
    expect(config.EXPORT_WAIT_MS).toBe(25_000);
    expect(config.WORKER_LOCK_MS).toBe(30_000);
    expect(config.STORAGE_DRIVER).toBe('fs');
    expect(config.STORAGE_DIR).toBe('./.data/objects');
    expect(config.NODE_ENV).toBe('development');
    expect(config.EXPORT_LINK_TTL_SECONDS).toBe(900);
    expect(config.EXPORT_LINK_KEY.length).toBe(32);
    expect(config.MINIO_PUBLIC_ENDPOINT).toBeUndefined();
    expect(config.EXPORT_RETENTION_SECONDS).toBe(259_200);
    expect(config.NIGHT_AUDIT_RETENTION_DAYS).toBe(400);
    expect(config.RETENTION_SWEEP_SECONDS).toBe(300);
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([5, 60, 300, 1800, 7200, 21_600, 43_200, 86_400]);
    expect([config.WEBHOOK_ALLOW_INSECURE, config.WEBHOOK_ALLOW_PRIVATE]).toEqual([false, false]);
    expect(config.PERFORMANCE_MEASURES_OFF).toEqual([]);
  });

  it('reads the kinds of work a worker takes (WORKER_QUEUES), all by default', () => {
    expect(loadConfig(requiredKeys()).WORKER_QUEUES).toEqual(['vault', 'vault-forward', 'folio-export', 'night-audit', 'webhooks']);
    expect(loadConfig({ ...requiredKeys(), WORKER_QUEUES: ' night-audit , night-audit' }).WORKER_QUEUES).toEqual(['night-audit']);
  });

  it('reads the performance measures to switch off, each once', () => {
    const config = loadConfig({ ...requiredKeys(), PERFORMANCE_MEASURES_OFF: 'hpke-native , hpke-native,' });
    expect(config.PERFORMANCE_MEASURES_OFF).toEqual(['hpke-native']);
  });

  it('parses the keys into keyrings and a 32-byte fingerprint key', () => {
    const env = requiredKeys();
    const config = loadConfig(env);
    expect(config.VAULT_KEK_TEST!.activeId).toBe('test-kek-1');
    expect(config.VAULT_KEK_LIVE!.activeId).toBe('live-kek-1');
    expect(config.VAULT_TRANSIT_KEY!.activeId).toBe('transit-1');
    expect(config.VAULT_FINGERPRINT_KEY!.length).toBe(32);
    expect(config.JWT_SECRET).toBe(env.JWT_SECRET);
  });

  it('takes valid values over the defaults', () => {
    const config = loadConfig({
      ...requiredKeys(),
      PORT: '8080',
      REDIS_URL: 'rediss://cache.internal:6380',
      DATABASE_URL: 'postgresql://app@db.internal/folio',
      QUEUE_PREFIX: '{folio-eu}',
      EXPORT_WAIT_MS: '5000',
    });
    expect(config.PORT).toBe(8080);
    expect(config.REDIS_URL).toBe('rediss://cache.internal:6380');
    expect(config.DATABASE_URL).toBe('postgresql://app@db.internal/folio');
    expect(config.QUEUE_PREFIX).toBe('{folio-eu}');
    expect(config.EXPORT_WAIT_MS).toBe(5000);
  });

  it('accepts STORAGE_DRIVER=minio with its endpoint and credentials', () => {
    const config = loadConfig({
      ...requiredKeys(),
      STORAGE_DRIVER: 'minio',
      MINIO_ENDPOINT: 'http://127.0.0.1:9000',
      MINIO_ACCESS_KEY: 'access',
      MINIO_SECRET_KEY: 'secret-value',
    });
    expect(config.STORAGE_DRIVER).toBe('minio');
    expect(config.MINIO_BUCKET).toBe('folio-vault');
  });
});

describe('loadConfig — one clear line per bad setting', () => {
  const shortKek = `test-kek-1:${randomBytes(16).toString('base64')}`;
  const shortJwt = 'too-short-secret-0123456789';
  const cases: Array<[string, Record<string, string>, string, RegExp]> = [
    ['PORT=abc', { PORT: 'abc' }, 'PORT', /number/],
    ['PORT=70000', { PORT: '70000' }, 'PORT', /65535/],
    ['PORT=0', { PORT: '0' }, 'PORT', /65535/],
    ['PORT=80.5', { PORT: '80.5' }, 'PORT', /integer/],
    ['REDIS_URL=http://x', { REDIS_URL: 'http://x' }, 'REDIS_URL', /redis:\/\//],
    ['REDIS_URL not a URL', { REDIS_URL: 'localhost:6379' }, 'REDIS_URL', /redis:\/\//],
    ['DATABASE_URL=mysql://x', { DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', /postgres:\/\//],
    ['STORAGE_DRIVER=s3', { STORAGE_DRIVER: 's3' }, 'STORAGE_DRIVER', /fs.*minio/],
    ['QUEUE_PREFIX without braces', { QUEUE_PREFIX: 'folio' }, 'QUEUE_PREFIX', /hash tag/],
    ['VAULT_KEK_TEST with a short key', { VAULT_KEK_TEST: shortKek }, 'VAULT_KEK_TEST', /32 bytes/],
    ['VAULT_KEK_TEST with no key id', { VAULT_KEK_TEST: randomBytes(32).toString('base64') }, 'VAULT_KEK_TEST', /keyId:base64Key/],
    ['VAULT_FINGERPRINT_KEY with a short key', { VAULT_FINGERPRINT_KEY: randomBytes(16).toString('base64') }, 'VAULT_FINGERPRINT_KEY', /32 bytes/],
    ['JWT_SECRET shorter than 32 characters', { JWT_SECRET: shortJwt }, 'JWT_SECRET', /at least 32/],
    ['JWT_SECRET and JWT_JWKS_URL at once', { JWT_JWKS_URL: 'https://issuer.example/jwks.json' }, 'JWT_SECRET', /only one/],
    [
      'JWT_SECRET and JWT_PUBLIC_KEY at once',
      { JWT_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----' },
      'JWT_SECRET',
      /only one/,
    ],
    [
      'STORAGE_DRIVER=minio without MINIO_ENDPOINT',
      { STORAGE_DRIVER: 'minio', MINIO_ACCESS_KEY: 'access', MINIO_SECRET_KEY: 'secret-value' },
      'MINIO_ENDPOINT',
      /STORAGE_DRIVER=minio/,
    ],
    ['EXPORT_WAIT_MS=abc', { EXPORT_WAIT_MS: 'abc' }, 'EXPORT_WAIT_MS', /number/],
    ['WORKER_LOCK_MS=500', { WORKER_LOCK_MS: '500' }, 'WORKER_LOCK_MS', /1000-3600000 ms/],
    ['WORKER_LOCK_MS=abc', { WORKER_LOCK_MS: 'abc' }, 'WORKER_LOCK_MS', /milliseconds/],
    ['NODE_ENV=staging', { NODE_ENV: 'staging' }, 'NODE_ENV', /development|production/],
    ['EXPORT_LINK_TTL_SECONDS=0', { EXPORT_LINK_TTL_SECONDS: '0' }, 'EXPORT_LINK_TTL_SECONDS', /1-604800/],
    ['EXPORT_LINK_TTL_SECONDS=abc', { EXPORT_LINK_TTL_SECONDS: 'abc' }, 'EXPORT_LINK_TTL_SECONDS', /number/],
    ['EXPORT_LINK_KEY with a short key', { EXPORT_LINK_KEY: randomBytes(16).toString('base64') }, 'EXPORT_LINK_KEY', /32 bytes/],
    ['MINIO_PUBLIC_ENDPOINT=ftp://x', { MINIO_PUBLIC_ENDPOINT: 'ftp://files.example' }, 'MINIO_PUBLIC_ENDPOINT', /http/],
    ['EXPORT_RETENTION_SECONDS=0', { EXPORT_RETENTION_SECONDS: '0' }, 'EXPORT_RETENTION_SECONDS', /1-315360000/],
    ['NIGHT_AUDIT_RETENTION_DAYS=0', { NIGHT_AUDIT_RETENTION_DAYS: '0' }, 'NIGHT_AUDIT_RETENTION_DAYS', /1-3650/],
    ['RETENTION_SWEEP_SECONDS=1.5', { RETENTION_SWEEP_SECONDS: '1.5' }, 'RETENTION_SWEEP_SECONDS', /integer|whole/],
    ['WEBHOOK_RETRY_SCHEDULE=abc', { WEBHOOK_RETRY_SCHEDULE: 'abc' }, 'WEBHOOK_RETRY_SCHEDULE', /whole numbers of seconds/],
    ['WEBHOOK_RETRY_SCHEDULE=5,0', { WEBHOOK_RETRY_SCHEDULE: '5,0' }, 'WEBHOOK_RETRY_SCHEDULE', /1-604800/],
    ['WEBHOOK_ALLOW_PRIVATE=maybe', { WEBHOOK_ALLOW_PRIVATE: 'maybe' }, 'WEBHOOK_ALLOW_PRIVATE', /true or false/],
    ['WEBHOOK_ALLOW_INSECURE=on', { WEBHOOK_ALLOW_INSECURE: 'on' }, 'WEBHOOK_ALLOW_INSECURE', /true or false/],
    ['WORKER_QUEUES=night-audit,exports', { WORKER_QUEUES: 'night-audit,exports' }, 'WORKER_QUEUES', /one or more of vault, vault-forward, folio-export, night-audit, webhooks, comma-separated \(not exports\)/],
    ['WORKER_QUEUES=,', { WORKER_QUEUES: ',' }, 'WORKER_QUEUES', /one or more of vault/],
    ['NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY=0', { NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY: '0' }, 'NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY', /1-100/],
    ['API_DATABASE_URL=mysql://x', { API_DATABASE_URL: 'mysql://x' }, 'API_DATABASE_URL', /postgres:\/\//],
    ['WORKER_DATABASE_URL=redis://x', { WORKER_DATABASE_URL: 'redis://x' }, 'WORKER_DATABASE_URL', /postgres:\/\//],
    ['PG_POOL_SIZE=0', { PG_POOL_SIZE: '0' }, 'PG_POOL_SIZE', /1-500/],
    ['DB_SHARE_PER_PROPERTY=0', { DB_SHARE_PER_PROPERTY: '0' }, 'DB_SHARE_PER_PROPERTY', /more than 0 and at most 1/],
    ['DB_SHARE_PER_PROPERTY=1.5', { DB_SHARE_PER_PROPERTY: '1.5' }, 'DB_SHARE_PER_PROPERTY', /more than 0 and at most 1/],
    ['DB_SHARE_PER_PROPERTY=half', { DB_SHARE_PER_PROPERTY: 'half' }, 'DB_SHARE_PER_PROPERTY', /must be a number/],
    ['TRUST_PROXY=0', { TRUST_PROXY: '0' }, 'TRUST_PROXY', /^TRUST_PROXY: a hop count must be 1-32$/],
    ['TRUST_PROXY=10.0.0.0/33', { TRUST_PROXY: '10.0.0.5,10.0.0.0/33' }, 'TRUST_PROXY', /addresses and networks such as 10\.0\.0\.5,10\.1\.0\.0\/16 \(not "10\.0\.0\.0\/33"\)/],
    ['TRUST_PROXY=proxy.internal', { TRUST_PROXY: 'proxy.internal' }, 'TRUST_PROXY', /\(not "proxy\.internal"\)/],
    ['REDIS_SENTINELS without a port', { REDIS_SENTINELS: 'sentinel-1:26379,sentinel-2', REDIS_SENTINEL_NAME: 'folio' }, 'REDIS_SENTINELS', /^REDIS_SENTINELS: must be host:port,host:port,… \(not "sentinel-2"\)$/],
    ['REDIS_SENTINELS without REDIS_SENTINEL_NAME', { REDIS_SENTINELS: 'sentinel-1:26379' }, 'REDIS_SENTINEL_NAME', /^REDIS_SENTINEL_NAME: is required with REDIS_SENTINELS$/],
    ['REDIS_SENTINEL_NAME without REDIS_SENTINELS', { REDIS_SENTINEL_NAME: 'folio' }, 'REDIS_SENTINELS', /^REDIS_SENTINELS: is required with REDIS_SENTINEL_NAME$/],
    ['REDIS_SENTINEL_NAME=my master', { REDIS_SENTINELS: 'sentinel-1:26379', REDIS_SENTINEL_NAME: 'my master' }, 'REDIS_SENTINEL_NAME', /must be a master name/],
    ['REDIS_SENTINELS with a Cluster', { REDIS_SENTINELS: 'sentinel-1:26379', REDIS_SENTINEL_NAME: 'folio', REDIS_URL: 'redis+cluster://a:7000,b:7001' }, 'REDIS_SENTINELS', /a Redis Cluster \(redis\+cluster:\/\/\) has no Sentinel/],
    ['FLEET_WORKER_PROCESSES=0', { FLEET_WORKER_PROCESSES: '0' }, 'FLEET_WORKER_PROCESSES', /1-1000/],
    ['PERFORMANCE_MEASURES_OFF=caching', { PERFORMANCE_MEASURES_OFF: 'hpke-native,caching' }, 'PERFORMANCE_MEASURES_OFF', /must name performance measures among [a-z-]+(, [a-z-]+)* \(not caching\)/],
  ];

  it.each(cases)('%s', (_name, overrides, setting, message) => {
    const problems = problemsOf({ ...requiredKeys(), ...overrides });
    expect(problems).toHaveLength(1);
    const [line] = problems;
    expect(line).not.toContain('\n');
    expect(line!.startsWith(`${setting}: `), line).toBe(true);
    expect(line).toMatch(message);
  });

  it('answers one line for each of several bad settings at once', () => {
    const problems = problemsOf({
      ...requiredKeys(),
      PORT: 'abc',
      REDIS_URL: 'http://x',
      DATABASE_URL: 'mysql://x',
      STORAGE_DRIVER: 's3',
      QUEUE_PREFIX: 'folio',
      JWT_SECRET: 'short',
    });
    expect(problems).toHaveLength(6);
    expect(problems.map((line) => line.split(':')[0]).sort()).toEqual(
      ['DATABASE_URL', 'JWT_SECRET', 'PORT', 'QUEUE_PREFIX', 'REDIS_URL', 'STORAGE_DRIVER'],
    );
  });

  it('puts every problem line into the ConfigError message', () => {
    let error: unknown;
    try {
      loadConfig({ ...requiredKeys(), PORT: 'abc', QUEUE_PREFIX: 'folio' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.name).toBe('ConfigError');
    for (const line of configError.problems) expect(configError.message).toContain(line);
  });

  it('never writes a secret value into the problem lines', () => {
    const secrets = {
      JWT_SECRET: 'hunter2-not-long-enough-secret',
      VAULT_KEK_TEST: shortKek,
      VAULT_KEK_LIVE: `live-kek-1:${randomBytes(31).toString('base64')}`,
      VAULT_FINGERPRINT_KEY: randomBytes(20).toString('base64'),
      // Written the wrong way round: the key sits where the key id belongs.
      VAULT_TRANSIT_KEY: `${randomBytes(32).toString('base64')}:transit-1`,
      DATABASE_URL: 'mysql://app:s3cr3t-db-password@db/folio',
    };
    let error: unknown;
    try {
      loadConfig({ ...requiredKeys(), ...secrets, MINIO_SECRET_KEY: 'minio-secret-value' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message } = error as ConfigError;
    expect(problems.length).toBe(Object.keys(secrets).length);
    for (const value of [...Object.values(secrets), 'minio-secret-value', 's3cr3t-db-password']) {
      const material = value.includes(':') && !value.startsWith('mysql') ? value.split(':').find((part) => part.length > 20)! : value;
      expect(message).not.toContain(material);
      for (const line of problems) expect(line).not.toContain(material);
    }
  });

  it('refuses the same key id in the test and the live keyring', () => {
    const keys = requiredKeys();
    const problems = problemsOf({ ...keys, VAULT_KEK_LIVE: `test-kek-1:${randomBytes(32).toString('base64')}` });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^VAULT_KEK_LIVE: .*test-kek-1/);
  });
});

describe('loadConfig — production refuses to start without keys', () => {
  it('lists each missing key on its own line', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      'JWT_SECRET: one of JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL is required',
      'VAULT_KEY_PROVIDER: local keeps the vault keys in clear in settings; NODE_ENV=production needs pkcs11 or components',
      'EXPORT_LINK_KEY: is required',
      'API_DATABASE_URL: is required with NODE_ENV=production',
      'WORKER_DATABASE_URL: is required with NODE_ENV=production',
    ]);
  });

  it('refuses the local provider even with every local key set', () => {
    expect(problemsOf({ ...requiredKeys(), ...ROLE_URLS, NODE_ENV: 'production' })).toEqual([
      'VAULT_KEY_PROVIDER: local keeps the vault keys in clear in settings; NODE_ENV=production needs pkcs11 or components',
    ]);
  });

  it("names each setting the chosen provider needs, and no local key", () => {
    const base = { NODE_ENV: 'production', ...ROLE_URLS, JWT_SECRET: randomBytes(48).toString('base64url'), EXPORT_LINK_KEY: randomBytes(32).toString('base64') };
    expect(problemsOf({ ...base, VAULT_KEY_PROVIDER: 'pkcs11' })).toEqual([
      'PKCS11_MODULE: is required with VAULT_KEY_PROVIDER=pkcs11',
      'PKCS11_TOKEN_LABEL: is required with VAULT_KEY_PROVIDER=pkcs11',
      'PKCS11_PIN_FILE: is required with VAULT_KEY_PROVIDER=pkcs11',
    ]);
    expect(problemsOf({ ...base, VAULT_KEY_PROVIDER: 'components' })).toEqual(['VAULT_KEY_COMPONENTS: is required with VAULT_KEY_PROVIDER=components']);
    expect(problemsOf({ ...base, VAULT_KEY_PROVIDER: 'hsm' })[0]).toMatch(/^VAULT_KEY_PROVIDER: .*local.*components.*pkcs11/);
  });

  it('treats empty values as missing', () => {
    const problems = problemsOf({ NODE_ENV: 'production', VAULT_KEY_PROVIDER: 'components', VAULT_KEY_COMPONENTS: ' ', JWT_SECRET: ' ', EXPORT_LINK_KEY: '', API_DATABASE_URL: ' ' });
    expect(problems.map((line) => line.split(':')[0])).toEqual(['JWT_SECRET', 'VAULT_KEY_COMPONENTS', 'EXPORT_LINK_KEY', 'API_DATABASE_URL', 'WORKER_DATABASE_URL']);
  });

  it('reads PKCS11_KEY_LABELS as any part of the labels, the rest default, and refuses what is not JSON of labels', () => {
    const env = { ...requiredKeys(), VAULT_KEY_PROVIDER: 'pkcs11', PKCS11_MODULE: '/lib.so', PKCS11_TOKEN_LABEL: 't', PKCS11_PIN_FILE: '/pin' };
    expect(loadConfig(env, 'worker').PKCS11_KEY_LABELS).toEqual({
      kekTest: ['folio-kek-test-1'], kekLive: ['folio-kek-live-1'], fingerprint: 'folio-fingerprint-1', transit: ['folio-transit-1'], jobSigning: 'folio-job-signing-1',
    });
    expect(loadConfig({ ...env, PKCS11_KEY_LABELS: '{"kekTest": ["t-2", "t-1"], "transit": "tr-9", "jobSigning": "js-2"}' }, 'worker').PKCS11_KEY_LABELS).toEqual({
      kekTest: ['t-2', 't-1'], kekLive: ['folio-kek-live-1'], fingerprint: 'folio-fingerprint-1', transit: ['tr-9'], jobSigning: 'js-2',
    });
    expect(problemsOf({ ...env, PKCS11_KEY_LABELS: 'kekTest=t-2' })).toEqual(['PKCS11_KEY_LABELS: must be JSON, e.g. {"kekTest": ["folio-kek-test-2", "folio-kek-test-1"]}']);
    expect(problemsOf({ ...env, PKCS11_KEY_LABELS: '{"kekTest": []}' })[0]).toMatch(/^PKCS11_KEY_LABELS: kekTest/);
    expect(problemsOf({ ...env, PKCS11_KEY_LABELS: '{"kek": ["x"]}' })[0]).toMatch(/^PKCS11_KEY_LABELS: /);
  });

  it('withDevKeys leaves a production env untouched and writes no file', () => {
    const file = tempFile();
    const env = { NODE_ENV: 'production' };
    const lines: string[] = [];
    const result = withDevKeys(env, { file, log: (line) => lines.push(line) });
    expect(result).toBe(env);
    expect(result).toEqual({ NODE_ENV: 'production' });
    expect(existsSync(file)).toBe(false);
    expect(lines).toEqual([]);
    expect(() => loadConfig(result)).toThrow(ConfigError);
  });
});

describe('loadConfig — production refuses development switches', () => {
  const keys = requiredKeys();
  const production = {
    NODE_ENV: 'production',
    ...ROLE_URLS,
    JWT_SECRET: keys.JWT_SECRET!,
    EXPORT_LINK_KEY: keys.EXPORT_LINK_KEY!,
    VAULT_TRANSIT_PUBLIC_KEYS: keys.VAULT_TRANSIT_PUBLIC_KEYS!,
    VAULT_JOB_VERIFY_KEYS: keys.VAULT_JOB_VERIFY_KEYS!,
    VAULT_KEY_PROVIDER: 'components',
    VAULT_KEY_COMPONENTS: '/keys/components.json',
  };
  const pkcs11 = { VAULT_KEY_PROVIDER: 'pkcs11', PKCS11_MODULE: '/lib.so', PKCS11_TOKEN_LABEL: 't', PKCS11_PIN_FILE: '/pin' };
  const problemsAs = (env: NodeJS.ProcessEnv, role: 'api' | 'worker' | 'all') => {
    try {
      loadConfig(env, role);
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };

  it('starts with components or pkcs11 and no switch', () => {
    expect(problemsOf(production)).toEqual([]);
    expect(problemsOf({ ...production, ...pkcs11 })).toEqual([]);
    expect(problemsOf({ ...production, WEBHOOK_ALLOW_INSECURE: 'false', WEBHOOK_ALLOW_PRIVATE: 'no' })).toEqual([]);
    expect(problemsOf({ ...production, JWT_SECRET: '', JWT_JWKS_URL: 'https://idp.example/jwks' })).toEqual([]);
  });

  it('refuses each cleartext vault key beside pkcs11 or components, in every role, with one line naming it', () => {
    // Every setting of the local-key list: a key added to it is refused too.
    expect(LOCAL_KEY_NAMES).toEqual(expect.arrayContaining(['VAULT_KEK_TEST', 'VAULT_KEK_LIVE', 'VAULT_FINGERPRINT_KEY', 'VAULT_TRANSIT_KEY']));
    for (const [provider, custody] of [['components', {}], ['pkcs11', pkcs11]] as const) {
      for (const name of LOCAL_KEY_NAMES) {
        for (const role of ['api', 'worker', 'all'] as const) {
          expect(problemsAs({ ...production, ...custody, [name]: keys[name] ?? 'a-cleartext-key' }, role), `${name} with ${provider} (${role})`).toEqual([
            `${name}: a vault key in clear beside VAULT_KEY_PROVIDER=${provider}; NODE_ENV=production refuses it`,
          ]);
        }
      }
    }
  });

  it('refuses the webhook switches and a JWKS over http, one line each, every problem at once', () => {
    expect(problemsOf({ ...production, WEBHOOK_ALLOW_INSECURE: 'true' })).toEqual(['WEBHOOK_ALLOW_INSECURE: a development switch; NODE_ENV=production refuses it']);
    expect(problemsOf({ ...production, WEBHOOK_ALLOW_PRIVATE: 'yes' })).toEqual(['WEBHOOK_ALLOW_PRIVATE: a development switch; NODE_ENV=production refuses it']);
    expect(problemsAs({ ...production, JWT_SECRET: '', JWT_JWKS_URL: 'http://idp.example/jwks' }, 'api')).toEqual([
      'JWT_JWKS_URL: must be an https:// URL under NODE_ENV=production',
    ]);
    const all = { ...production, JWT_SECRET: '', JWT_JWKS_URL: 'HTTP://idp.example/jwks', WEBHOOK_ALLOW_INSECURE: '1', WEBHOOK_ALLOW_PRIVATE: 'true', VAULT_KEK_LIVE: keys.VAULT_KEK_LIVE, PORT: 'x' };
    expect(problemsOf(all)).toEqual([
      'PORT: must be a number',
      'VAULT_KEK_LIVE: a vault key in clear beside VAULT_KEY_PROVIDER=components; NODE_ENV=production refuses it',
      'WEBHOOK_ALLOW_INSECURE: a development switch; NODE_ENV=production refuses it',
      'WEBHOOK_ALLOW_PRIVATE: a development switch; NODE_ENV=production refuses it',
      'JWT_JWKS_URL: must be an https:// URL under NODE_ENV=production',
    ]);
    // The value of a refused key is never in its line.
    expect(problemsOf(all).join('\n')).not.toContain(keys.VAULT_KEK_LIVE!.split(':')[1]);
  });

  it('accepts every switch outside production', () => {
    const development = { ...production, NODE_ENV: 'development', JWT_SECRET: '', JWT_JWKS_URL: 'http://127.0.0.1:9/jwks', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', ...keys };
    const config = loadConfig({ ...development, JWT_SECRET: '' }, 'all');
    expect([config.WEBHOOK_ALLOW_INSECURE, config.WEBHOOK_ALLOW_PRIVATE, config.JWT_JWKS_URL]).toEqual([true, true, 'http://127.0.0.1:9/jwks']);
  });

  it('a worker with pkcs11 or components does not read a cleartext key set beside them', () => {
    for (const custody of [pkcs11, { VAULT_KEY_PROVIDER: 'components', VAULT_KEY_COMPONENTS: '/keys/components.json' }]) {
      const config = loadConfig({ ...keys, ...custody }, 'worker');
      expect(config.VAULT_KEY_PROVIDER).toBe(custody.VAULT_KEY_PROVIDER);
      expect(Object.keys(config).filter((name) => (LOCAL_KEY_NAMES as string[]).includes(name))).toEqual([]);
      expect(loadConfig({ ...keys, ...custody }, 'all').VAULT_KEK_TEST).toBeUndefined();
    }
    // The local provider reads them, as before.
    expect(loadConfig(keys, 'worker').VAULT_KEK_TEST!.activeId).toBe('test-kek-1');
  });
});

describe('withDevKeys — development', () => {
  it('generates every missing key into a 0600 file and says so', () => {
    const file = tempFile();
    const lines: string[] = [];
    const env = withDevKeys({ NODE_ENV: 'development' }, { file, log: (line) => lines.push(line) });
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(Object.keys(stored).sort()).toEqual([...KEY_NAMES].sort());
    for (const name of KEY_NAMES) expect(env[name]).toBe(stored[name]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('generated into');
    expect(lines[0]).toContain(file);
    for (const name of KEY_NAMES) expect(lines[0]).not.toContain(stored[name]!);
    // The generated keys make a valid configuration.
    const config = loadConfig(env);
    expect(config.VAULT_FINGERPRINT_KEY!.length).toBe(32);
  });

  it('also generates when NODE_ENV is not set', () => {
    const file = tempFile();
    const env = withDevKeys({}, { file });
    expect(() => loadConfig(env)).not.toThrow();
  });

  it('reuses the same keys on the second call', () => {
    const file = tempFile();
    const first = withDevKeys({ NODE_ENV: 'development' }, { file });
    const before = readFileSync(file, 'utf8');
    const lines: string[] = [];
    const second = withDevKeys({ NODE_ENV: 'development' }, { file, log: (line) => lines.push(line) });
    for (const name of KEY_NAMES) expect(second[name]).toBe(first[name]);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(lines[0]).toContain('read from');
  });

  it('does not override keys already in the environment, nor store them', () => {
    const file = tempFile();
    const own = requiredKeys();
    const env = withDevKeys({ NODE_ENV: 'development', VAULT_KEK_TEST: own.VAULT_KEK_TEST, JWT_SECRET: own.JWT_SECRET }, { file });
    expect(env.VAULT_KEK_TEST).toBe(own.VAULT_KEK_TEST);
    expect(env.JWT_SECRET).toBe(own.JWT_SECRET);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(Object.keys(stored).sort()).toEqual(['EXPORT_LINK_KEY', 'VAULT_FINGERPRINT_KEY', 'VAULT_JOB_SIGNING_KEY', 'VAULT_KEK_LIVE', 'VAULT_TRANSIT_KEY']);
    expect(readFileSync(file, 'utf8')).not.toContain(own.VAULT_KEK_TEST);
  });

  it('keeps an env key over one stored in the file', () => {
    const file = tempFile();
    const first = withDevKeys({ NODE_ENV: 'development' }, { file });
    const own = requiredKeys().VAULT_TRANSIT_KEY;
    const second = withDevKeys({ NODE_ENV: 'development', VAULT_TRANSIT_KEY: own }, { file });
    expect(second.VAULT_TRANSIT_KEY).toBe(own);
    expect(second.VAULT_KEK_LIVE).toBe(first.VAULT_KEK_LIVE);
  });

  it('adds no JWT_SECRET when JWT_PUBLIC_KEY is set', () => {
    const file = tempFile();
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const env = withDevKeys({ NODE_ENV: 'development', JWT_PUBLIC_KEY: pem }, { file });
    expect(env.JWT_SECRET).toBeUndefined();
    expect(env.JWT_PUBLIC_KEY).toBe(pem);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(stored.JWT_SECRET).toBeUndefined();
    const config = loadConfig(env);
    expect(config.JWT_SECRET).toBeUndefined();
    expect(config.JWT_PUBLIC_KEY).toBe(pem);
  });

  it('adds no JWT_SECRET when JWT_JWKS_URL is set', () => {
    const env = withDevKeys({ NODE_ENV: 'development', JWT_JWKS_URL: 'https://issuer.example/jwks.json' }, { file: tempFile() });
    expect(env.JWT_SECRET).toBeUndefined();
    expect(() => loadConfig(env)).not.toThrow();
  });

  it('writes no file and logs nothing when every key is already set', () => {
    const file = tempFile();
    const lines: string[] = [];
    const keys = { NODE_ENV: 'development', ...requiredKeys() };
    const env = withDevKeys(keys, { file, log: (line) => lines.push(line) });
    expect(env).toEqual(keys);
    expect(existsSync(file)).toBe(false);
    expect(lines).toEqual([]);
  });

  it('does not change the env object it was given', () => {
    const input = { NODE_ENV: 'development' };
    withDevKeys(input, { file: tempFile() });
    expect(input).toEqual({ NODE_ENV: 'development' });
  });

  it('fills in a key that is missing from an older file and keeps the others', () => {
    const file = tempFile('older.json');
    const first = withDevKeys({ NODE_ENV: 'development' }, { file });
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    delete stored.VAULT_TRANSIT_KEY;
    writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
    const second = withDevKeys({ NODE_ENV: 'development' }, { file });
    expect(second.VAULT_KEK_TEST).toBe(first.VAULT_KEK_TEST);
    expect(second.VAULT_TRANSIT_KEY).toBeDefined();
    expect(second.VAULT_TRANSIT_KEY).not.toBe(first.VAULT_TRANSIT_KEY);
    expect(JSON.parse(readFileSync(file, 'utf8')).VAULT_TRANSIT_KEY).toBe(second.VAULT_TRANSIT_KEY);
  });

  it("hands each role only its keys, and both share the file's transit and job signing keys", () => {
    const file = tempFile('roles.json');
    const api = withDevKeys({ NODE_ENV: 'development' }, { file, role: 'api' });
    const worker = withDevKeys({ NODE_ENV: 'development' }, { file, role: 'worker' });
    // The link key too: the API checks download links, a worker signs the ones its webhooks carry.
    expect(KEY_NAMES.filter((name) => api[name])).toEqual(['JWT_SECRET', 'VAULT_JOB_SIGNING_KEY', 'EXPORT_LINK_KEY']);
    expect(KEY_NAMES.filter((name) => worker[name])).toEqual(['VAULT_KEK_TEST', 'VAULT_KEK_LIVE', 'VAULT_FINGERPRINT_KEY', 'VAULT_TRANSIT_KEY', 'EXPORT_LINK_KEY']);
    // The API seals to the public half of the worker's transit key, and holds no private one; the
    // worker checks jobs with the public half of the API's signing key, and cannot sign one.
    expect(api.VAULT_TRANSIT_PUBLIC_KEYS).toBe(publicOf(worker.VAULT_TRANSIT_KEY!));
    expect(worker.VAULT_TRANSIT_PUBLIC_KEYS).toBeUndefined();
    expect(worker.VAULT_JOB_VERIFY_KEYS).toBe(verifyKeysOf(api.VAULT_JOB_SIGNING_KEY!));
    expect(api.VAULT_JOB_VERIFY_KEYS).toBeUndefined();
    expect(worker.EXPORT_LINK_KEY).toBe(api.EXPORT_LINK_KEY);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object).sort()).toEqual([...KEY_NAMES].sort());
    expect(() => loadConfig(api, 'api')).not.toThrow();
    expect(() => loadConfig(worker, 'worker')).not.toThrow();
  });
});

describe('loadConfig — database roles', () => {
  it('outside production derives each role URL from DATABASE_URL (its user the role, no password) and keeps the owner URL to migrate with', () => {
    const config = loadConfig({ ...requiredKeys(), DATABASE_URL: 'postgres://owner:owner-password@db.internal:6432/folio?sslmode=require' });
    expect([config.DATABASE_URL, config.API_DATABASE_URL, config.WORKER_DATABASE_URL]).toEqual([
      'postgres://owner:owner-password@db.internal:6432/folio?sslmode=require',
      'postgres://folio_vault_api@db.internal:6432/folio?sslmode=require',
      'postgres://folio_vault_worker@db.internal:6432/folio?sslmode=require',
    ]);
    const defaults = loadConfig(requiredKeys());
    expect([defaults.DATABASE_URL, defaults.API_DATABASE_URL, defaults.WORKER_DATABASE_URL]).toEqual([
      'postgres://postgres@127.0.0.1:5432/folio_vault',
      'postgres://folio_vault_api@127.0.0.1:5432/folio_vault',
      'postgres://folio_vault_worker@127.0.0.1:5432/folio_vault',
    ]);
  });

  it('gives each role its own URL only: the API never holds the workers\' URL, nor a worker the API\'s', () => {
    const env = { ...requiredKeys(), ...ROLE_URLS, DATABASE_URL: 'postgres://owner@db.internal/folio_vault' };
    const api = loadConfig(env, 'api');
    const worker = loadConfig(env, 'worker');
    expect([api.API_DATABASE_URL, 'WORKER_DATABASE_URL' in api]).toEqual([ROLE_URLS.API_DATABASE_URL, false]);
    expect([worker.WORKER_DATABASE_URL, 'API_DATABASE_URL' in worker, 'DB_SHARE_PER_PROPERTY' in worker]).toEqual([ROLE_URLS.WORKER_DATABASE_URL, false, false]);
  });

  it('migrates with no default owner URL when the process is given its role URL, or runs in production', () => {
    expect(loadConfig({ ...requiredKeys(), API_DATABASE_URL: ROLE_URLS.API_DATABASE_URL }, 'api').DATABASE_URL).toBeUndefined();
    const production = { ...withoutLocalKeys(requiredKeys()), ...ROLE_URLS, NODE_ENV: 'production', VAULT_KEY_PROVIDER: 'components', VAULT_KEY_COMPONENTS: '/keys/components.json' };
    expect(loadConfig(production, 'api').DATABASE_URL).toBeUndefined();
    expect(loadConfig({ ...production, DATABASE_URL: 'postgres://owner@db.internal/folio_vault' }, 'worker').DATABASE_URL).toBe('postgres://owner@db.internal/folio_vault');
  });

  it('in production requires the URL of each role the process runs, and derives none', () => {
    const production = { ...withoutLocalKeys(requiredKeys()), NODE_ENV: 'production', VAULT_KEY_PROVIDER: 'components', VAULT_KEY_COMPONENTS: '/keys/components.json' };
    const problems = (role: 'api' | 'worker' | 'all') => {
      try {
        loadConfig({ ...production, DATABASE_URL: 'postgres://owner@db.internal/folio_vault' }, role);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    expect(problems('api')).toEqual(['API_DATABASE_URL: is required with NODE_ENV=production']);
    expect(problems('worker')).toEqual(['WORKER_DATABASE_URL: is required with NODE_ENV=production']);
    expect(problems('all')).toEqual(['API_DATABASE_URL: is required with NODE_ENV=production', 'WORKER_DATABASE_URL: is required with NODE_ENV=production']);
  });

  it('reads a property\'s share of the API pool as a fraction, half by default', () => {
    expect([loadConfig(requiredKeys()).PG_POOL_SIZE, loadConfig(requiredKeys()).DB_SHARE_PER_PROPERTY]).toEqual([10, 0.5]);
    expect(loadConfig({ ...requiredKeys(), DB_SHARE_PER_PROPERTY: '0.25', PG_POOL_SIZE: '40' }, 'api')).toMatchObject({ DB_SHARE_PER_PROPERTY: 0.25, PG_POOL_SIZE: 40 });
  });
});

describe('loadConfig — running on several machines', () => {
  it('reads TRUST_PROXY as off, a hop count, or the proxies\' addresses and networks', () => {
    const trust = (value?: string) => loadConfig({ ...requiredKeys(), ...(value === undefined ? {} : { TRUST_PROXY: value }) }).TRUST_PROXY;
    expect(trust()).toBe(false);
    expect(trust('false')).toBe(false);
    expect(trust('2')).toBe(2);
    expect(trust('10.0.0.5, 10.1.0.0/16,::1,fd00::/8,loopback')).toEqual(['10.0.0.5', '10.1.0.0/16', '::1', 'fd00::/8', 'loopback']);
  });

  it('reads the Sentinels as host and port, an IPv6 address without its brackets', () => {
    const config = loadConfig({ ...requiredKeys(), REDIS_SENTINELS: 'sentinel-1:26379, [fd00::7]:26380', REDIS_SENTINEL_NAME: 'folio' });
    expect([config.REDIS_SENTINELS, config.REDIS_SENTINEL_NAME]).toEqual([[{ host: 'sentinel-1', port: 26379 }, { host: 'fd00::7', port: 26380 }], 'folio']);
  });

  it('sums the fleet\'s PostgreSQL connections: each API its pool and probe, each worker min(WORKER_CONCURRENCY, 20) and its health probe', () => {
    const budget = (env: Record<string, string>, role: 'api' | 'worker' = 'api') =>
      loadConfig({ ...requiredKeys(), ...env }, role).connectionBudget;
    expect(budget({})).toEqual({ perApi: 11, perWorker: 16, apis: 1, workers: 1, total: 27 });
    // The same sum in every process of the fleet given the same settings, whichever role it is.
    const fleet = { FLEET_API_PROCESSES: '2', FLEET_WORKER_PROCESSES: '3', PG_POOL_SIZE: '15', WORKER_CONCURRENCY: '64', WORKER_HEALTH_PORT: '9464' };
    expect(budget(fleet)).toEqual({ perApi: 16, perWorker: 21, apis: 2, workers: 3, total: 95 });
    expect(budget(fleet, 'worker')).toEqual(budget(fleet));
  });
});

describe('problems across settings are reported with the others', () => {
  it('a bad PORT does not hide missing keys: one line each', () => {
    let problems: string[] = [];
    try {
      loadConfig({ NODE_ENV: 'production', PORT: 'abc' });
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    for (const setting of ['PORT', 'JWT_SECRET', 'VAULT_KEY_PROVIDER', 'EXPORT_LINK_KEY']) {
      expect(problems.filter((line) => line.startsWith(`${setting}:`)), setting).toHaveLength(1);
    }
  });

  it('an empty value counts as unset', () => {
    expect(() => loadConfig({ PORT: '' })).toThrow(ConfigError);
    let problems: string[] = [];
    try {
      loadConfig({ PORT: '', JWT_SECRET: '' });
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems.some((line) => line.startsWith('PORT:'))).toBe(false);
  });
});

describe('keys by process role', () => {
  it('the API keeps the public transit keys and its job signing key only, even when the environment holds every key', () => {
    const config = loadConfig(requiredKeys(), 'api');
    expect(config.role).toBe('api');
    expect(config.VAULT_TRANSIT_PUBLIC_KEYS!.activeId).toBe('transit-1');
    expect(config.VAULT_JOB_SIGNING_KEY!.activeId).toBe('job-signing-1');
    // The API's config type has no vault secret: reading one does not compile, and at run time it is not there.
    // @ts-expect-error VAULT_KEK_TEST is not a setting of the API
    expect(config.VAULT_KEK_TEST).toBeUndefined();
    // @ts-expect-error VAULT_FINGERPRINT_KEY is not a setting of the API
    expect(config.VAULT_FINGERPRINT_KEY).toBeUndefined();
    // @ts-expect-error VAULT_TRANSIT_KEY (the private keys) is not a setting of the API
    expect(config.VAULT_TRANSIT_KEY).toBeUndefined();
    // @ts-expect-error VAULT_JOB_VERIFY_KEYS is the workers'
    expect(config.VAULT_JOB_VERIFY_KEYS).toBeUndefined();
    expect(Object.keys(config).filter((name) => /^(VAULT_KEK|VAULT_FINGERPRINT|VAULT_TRANSIT_KEY$)/.test(name))).toEqual([]);
  });

  it('the worker keeps the public job keys and no job signing key', () => {
    const config = loadConfig(requiredKeys(), 'worker');
    expect(config.VAULT_JOB_VERIFY_KEYS!.activeId).toBe('job-signing-1');
    // @ts-expect-error VAULT_JOB_SIGNING_KEY is not a setting of the worker
    expect(config.VAULT_JOB_SIGNING_KEY).toBeUndefined();
    const { VAULT_JOB_VERIFY_KEYS: _verify, ...env } = requiredKeys();
    expect(() => loadConfig(env, 'worker')).toThrow(/VAULT_JOB_VERIFY_KEYS: is required/);
    // `npm start` (role all) checks with its own provider's signing key.
    expect(loadConfig(env, 'all').VAULT_JOB_VERIFY_KEYS).toBeUndefined();
  });

  it('production refuses a local job signing key for the API as it refuses local vault keys for the worker', () => {
    const { VAULT_KEK_TEST: _t, VAULT_KEK_LIVE: _l, VAULT_FINGERPRINT_KEY: _f, VAULT_TRANSIT_KEY: _p, ...apiEnv } = requiredKeys();
    let problems: string[] = [];
    try {
      loadConfig({ ...apiEnv, ...ROLE_URLS, NODE_ENV: 'production' }, 'api');
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems).toEqual(['VAULT_KEY_PROVIDER: local keeps the vault keys in clear in settings; NODE_ENV=production needs pkcs11 or components']);
  });

  it('the API starts with the public transit keys and no vault secret; the worker does not', () => {
    const { VAULT_KEK_TEST: _t, VAULT_KEK_LIVE: _l, VAULT_FINGERPRINT_KEY: _f, VAULT_TRANSIT_KEY: _p, ...apiEnv } = requiredKeys();
    expect(loadConfig(apiEnv, 'api').role).toBe('api');
    let problems: string[] = [];
    try {
      loadConfig(apiEnv, 'worker');
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems).toEqual(['VAULT_KEK_TEST', 'VAULT_KEK_LIVE', 'VAULT_FINGERPRINT_KEY', 'VAULT_TRANSIT_KEY'].map((name) => `${name}: is required with VAULT_KEY_PROVIDER=local`));
  });

  it('the API does not start without the public transit keys', () => {
    const { VAULT_TRANSIT_PUBLIC_KEYS: _public, ...env } = requiredKeys();
    expect(() => loadConfig(env, 'api')).toThrow(/VAULT_TRANSIT_PUBLIC_KEYS: is required/);
    // `npm start` (role all) derives them from its own worker's keys.
    expect(loadConfig(env, 'all').VAULT_TRANSIT_PUBLIC_KEYS).toBeUndefined();
  });

  it('the worker needs no JWT setting', () => {
    const { JWT_SECRET: _secret, ...workerEnv } = requiredKeys();
    const config = loadConfig(workerEnv, 'worker');
    expect(config.VAULT_KEK_LIVE!.activeId).toBe('live-kek-1');
    expect(config.VAULT_KEY_PROVIDER).toBe('local');
  });

  it('the worker keeps no JWT setting and no public transit key list, even when the environment holds them', () => {
    const config = loadConfig(requiredKeys(), 'worker');
    expect(config.role).toBe('worker');
    expect(config.VAULT_KEK_TEST!.activeId).toBe('test-kek-1');
    // @ts-expect-error JWT_SECRET is not a setting of the worker
    expect(config.JWT_SECRET).toBeUndefined();
    expect(Object.keys(config).filter((name) => name.startsWith('JWT_') || name === 'VAULT_TRANSIT_PUBLIC_KEYS')).toEqual([]);
  });

  it('a bad setting of the other role still stops the start: every setting is checked, whatever the role', () => {
    const { VAULT_KEK_TEST: _t, VAULT_KEK_LIVE: _l, VAULT_FINGERPRINT_KEY: _f, ...apiEnv } = requiredKeys();
    let problems: string[] = [];
    try {
      loadConfig({ ...apiEnv, VAULT_KEK_TEST: 'not-a-keyring' }, 'api');
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^VAULT_KEK_TEST: /);
  });
});
