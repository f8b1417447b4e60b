import { z } from 'zod';
import type { TKeyring } from './vault/crypto/keyring.js';
import { parseDestinations, resolveDestinationSecrets, type TForwardDestination, type TResolvedDestination } from './vault/forward/destinations.js';
import { booleanSetting, healthPort, keyringSetting, limitCount, optionalText, port, positiveMs, redisUrl, retrySchedule, singleKeySetting, urlWithProtocols, wholeNumberIn } from './config-fields.js';

/**
 * All settings (docs/api.md#settings), parsed once at start. A bad setting stops the start with one
 * line per problem; secrets are never echoed in those lines. Each process gets the settings of its
 * role (loadConfig's `role`): the API's config has no key-encryption key, the worker's no JWT
 * setting, so code that reached for the other role's secret would not compile.
 */

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/folio_vault';

/** What every process reads. */
const ZSharedSettings = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PORT: port.default(3000),
  REDIS_URL: redisUrl.default(DEFAULT_REDIS_URL),
  DATABASE_URL: urlWithProtocols(['postgres:', 'postgresql:']).default(DEFAULT_DATABASE_URL),
  STORAGE_DRIVER: z.enum(['fs', 'minio']).default('fs'),
  STORAGE_DIR: z.string().min(1).default('./.data/objects'),
  MINIO_ENDPOINT: urlWithProtocols(['http:', 'https:']).optional(),
  MINIO_ACCESS_KEY: optionalText,
  MINIO_SECRET_KEY: optionalText,
  MINIO_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid bucket name (3-63 of a-z 0-9 . -)')
    .default('folio-vault'),
  TOKENIZE_WAIT_MS: positiveMs.default(10_000),
  EXPORT_WAIT_MS: positiveMs.default(25_000),
  EXPORT_CONCURRENCY: wholeNumberIn(1, 32).default(2),
  WORKER_CONCURRENCY: wholeNumberIn(1, 256).default(16),
  // BullMQ's job lock (renewed every half of it while a job runs) and the stalled-job check interval.
  WORKER_LOCK_MS: wholeNumberIn(1000, 3_600_000, 'ms').default(30_000),
  QUEUE_PREFIX: z
    .string()
    .regex(/^\{[A-Za-z0-9._:-]+\}/, 'must start with a Redis Cluster hash tag such as "{folio}"')
    .default('{folio}'),
  METRICS_TOKEN: optionalText.refine((v) => v === undefined || /^\S{16,}$/.test(v), {
    error: 'must be at least 16 characters without spaces',
  }),
  // The worker's /healthz, /readyz and /metrics: unset or 0 = no server, 1-65535 = that port,
  // "ephemeral" = a free port the system picks (parsed as 0; tests). Parsed: undefined = off.
  WORKER_HEALTH_PORT: healthPort,
  WORKER_HEALTH_HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:-]+$/, 'must be a host name or an IP address (such as 127.0.0.1 or 0.0.0.0)')
    .default('127.0.0.1'),
  SHUTDOWN_GRACE_MS: positiveMs.default(20_000),
  // Abuse limits (counted in Redis, shared by every API process). The defaults sit far above what a
  // property's front desk or channel manager sends; they stop card testing and runaway clients.
  TOKENIZE_RATE_LIMIT_PER_PROPERTY: limitCount.default(6000),
  TOKENIZE_RATE_LIMIT_PER_SUBJECT: limitCount.default(3000),
  RATE_LIMIT_WINDOW_MS: wholeNumberIn(1000, 3_600_000, 'ms').default(60_000),
  EXPORT_QUEUE_CAP_PER_PROPERTY: limitCount.default(20),
  // Token lifecycle (docs/vault.md#token-lifecycle). The API seals the CVV into the transit envelope
  // only when it is to be held; the worker holds it that long.
  VAULT_CVV_HOLD_SECONDS: wholeNumberIn(0, 3600).default(600),
  VAULT_SHRED_AFTER_EXPIRY_DAYS: wholeNumberIn(0, 3650).default(30),
  VAULT_SWEEP_SECONDS: wholeNumberIn(1, 86_400).default(300),
  // Tokenize's inserts gathered across a worker's concurrent jobs (apps/worker/src/vault/card-insert-batcher.ts);
  // false inserts each card by its own statement, the pair the tokenize benchmark measures.
  TOKENIZE_INSERT_BATCHING: booleanSetting.default(true),
  // Forward destinations (docs/vault.md#destinations): inline JSON or a file path, checked in
  // crossSettingProblems; the API reads names, modes, paths and methods, the worker also the secrets.
  VAULT_FORWARD_DESTINATIONS: optionalText,
  // Delivery of exports (docs/export.md#download-links, #webhooks, #retention).
  EXPORT_LINK_TTL_SECONDS: wholeNumberIn(1, 604_800).default(900),
  /** Signs the folder driver's download links; the API checks them, a worker signs them for webhooks. */
  EXPORT_LINK_KEY: singleKeySetting(),
  MINIO_PUBLIC_ENDPOINT: urlWithProtocols(['http:', 'https:']).optional(),
  EXPORT_RETENTION_SECONDS: wholeNumberIn(1, 315_360_000).default(259_200),
  NIGHT_AUDIT_RETENTION_DAYS: wholeNumberIn(1, 3650).default(400),
  RETENTION_SWEEP_SECONDS: wholeNumberIn(1, 86_400).default(300),
  WEBHOOK_RETRY_SCHEDULE: retrySchedule.default([5, 60, 300, 1800, 7200, 21_600, 43_200, 86_400]),
  WEBHOOK_ALLOW_INSECURE: booleanSetting.default(false),
  WEBHOOK_ALLOW_PRIVATE: booleanSetting.default(false),
});


/** How the API checks a bearer token (auth/jwt-verifier.ts): one key source, an issuer, an audience. */
const JWT_SETTINGS = {
  JWT_SECRET: optionalText.refine((v) => v === undefined || v.length >= 32, {
    error: 'must be at least 32 characters',
  }),
  JWT_PUBLIC_KEY: optionalText.refine((v) => v === undefined || v.includes('-----BEGIN'), {
    error: 'must be a PEM public key (-----BEGIN PUBLIC KEY-----)',
  }),
  JWT_JWKS_URL: urlWithProtocols(['http:', 'https:']).optional(),
  JWT_ISSUER: z.string().min(1).default('folio-vault'),
  JWT_AUDIENCE: z.string().min(1).default('folio-vault'),
};

/** The keys that open stored cards: only the worker holds them (docs/security.md#key-hierarchy-and-rotation). */
const KEK_SETTINGS = {
  VAULT_KEK_TEST: keyringSetting(),
  VAULT_KEK_LIVE: keyringSetting(),
  VAULT_FINGERPRINT_KEY: singleKeySetting(),
};

/** The key of the envelope a card travels in from the API to the worker. */
const TRANSIT_SETTINGS = {
  VAULT_TRANSIT_KEY: keyringSetting(),
};

/** Every setting: what is checked at start, whatever the role (a bad value stops any process). */
export const ZConfig = ZSharedSettings.extend(JWT_SETTINGS).extend(TRANSIT_SETTINGS).extend(KEK_SETTINGS);

type TParsed = z.output<typeof ZConfig>;
type TJwtSettings = Pick<TParsed, keyof typeof JWT_SETTINGS>;

/**
 * Which process reads the settings. Keys are handed out by need (docs/security.md#key-hierarchy-and-rotation):
 * the API holds the transit key only, never a key-encryption key or the fingerprint key; `all` is `npm start`.
 */
export type TProcessRole = 'api' | 'worker' | 'all';

export interface TVaultKeys {
  VAULT_KEK_TEST: TKeyring;
  VAULT_KEK_LIVE: TKeyring;
  VAULT_FINGERPRINT_KEY: Buffer;
  VAULT_TRANSIT_KEY: TKeyring;
}

/** What any process reads (storage, Redis, PostgreSQL, limits, the worker's health server). */
export type TConfig = Omit<z.output<typeof ZSharedSettings>, 'EXPORT_LINK_KEY'> & {
  /** Present in every loaded config: a start without it is refused (crossSettingProblems). */
  EXPORT_LINK_KEY: Buffer;
  role: TProcessRole;
  /** VAULT_FORWARD_DESTINATIONS parsed: what the API checks a forward against (no secret resolved). */
  forwardDestinations: TForwardDestination[];
};
/** The API's: the JWT settings and the transit key. */
export type TApiConfig = TConfig & TJwtSettings & { VAULT_TRANSIT_KEY: TKeyring; role: 'api' | 'all' };
/** The worker's: every vault key and the destinations' credentials, no JWT setting (it answers no client). */
export type TWorkerConfig = TConfig & TVaultKeys & { role: 'worker' | 'all'; forwardGateways: TResolvedDestination[] };
/** `npm start`'s, both in one process: its role is 'all'. */
export type TAllConfig = TApiConfig & TWorkerConfig;
export type TConfigOf<R extends TProcessRole> = { api: TApiConfig; worker: TWorkerConfig; all: TAllConfig }[R];

const SHARED_NAMES = Object.keys(ZSharedSettings.shape) as Array<keyof TParsed>;
const JWT_NAMES = Object.keys(JWT_SETTINGS) as Array<keyof TParsed>;
const VAULT_KEY_NAMES = ['VAULT_KEK_TEST', 'VAULT_KEK_LIVE', 'VAULT_FINGERPRINT_KEY', 'VAULT_TRANSIT_KEY'] as const;
/**
 * The settings a role keeps; a key of another role is not even read into its config. The one table
 * of who holds which key: the required keys below and the development keys (dev-keys.ts) follow it.
 */
export const NAMES_BY_ROLE: Record<TProcessRole, ReadonlyArray<keyof TParsed>> = {
  api: [...SHARED_NAMES, ...JWT_NAMES, 'VAULT_TRANSIT_KEY'],
  worker: [...SHARED_NAMES, ...VAULT_KEY_NAMES],
  all: [...SHARED_NAMES, ...JWT_NAMES, ...VAULT_KEY_NAMES],
};
/** The keys a role cannot start without (their presence is what makes the role's type true). */
const requiredKeysOf = (role: TProcessRole) => VAULT_KEY_NAMES.filter((name) => NAMES_BY_ROLE[role].includes(name));

/**
 * Checks across settings. They run on the raw environment, next to the per-setting schema, so a
 * bad PORT does not hide a missing key: every problem gets its line in one go.
 */
function crossSettingProblems(env: Record<string, string | undefined>, role: TProcessRole, parsed?: TParsed): string[] {
  const problems: string[] = [];
  const jwtSources = [env.JWT_SECRET, env.JWT_PUBLIC_KEY, env.JWT_JWKS_URL].filter(Boolean).length;
  if (jwtSources === 0 && role !== 'worker') problems.push('JWT_SECRET: one of JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL is required');
  if (jwtSources > 1) problems.push('JWT_SECRET: set only one of JWT_SECRET, JWT_PUBLIC_KEY and JWT_JWKS_URL');
  for (const name of [...requiredKeysOf(role), 'EXPORT_LINK_KEY' as const]) {
    if (!env[name]) problems.push(`${name}: is required`);
  }
  if (env.STORAGE_DRIVER === 'minio') {
    for (const name of ['MINIO_ENDPOINT', 'MINIO_ACCESS_KEY', 'MINIO_SECRET_KEY'] as const) {
      if (!env[name]) problems.push(`${name}: is required when STORAGE_DRIVER=minio`);
    }
  }
  if (parsed?.VAULT_KEK_TEST && parsed.VAULT_KEK_LIVE) {
    for (const id of parsed.VAULT_KEK_TEST.keys.keys()) {
      if (parsed.VAULT_KEK_LIVE.keys.has(id)) {
        problems.push(`VAULT_KEK_LIVE: key id "${id}" is also a test key id; test and live keys must be apart`);
      }
    }
  }
  return problems;
}

/**
 * The worker's keys, as CardVault takes them. An API config is a type error here; the check stays
 * for what the compiler cannot see (a cast, plain JavaScript).
 */
export function vaultKeys(config: TWorkerConfig): TVaultKeys {
  const { VAULT_KEK_TEST, VAULT_KEK_LIVE, VAULT_FINGERPRINT_KEY, VAULT_TRANSIT_KEY } = config;
  if (!VAULT_KEK_TEST || !VAULT_KEK_LIVE || !VAULT_FINGERPRINT_KEY || !VAULT_TRANSIT_KEY) {
    throw new Error(`vault keys are not loaded in a ${config.role} process`);
  }
  return { VAULT_KEK_TEST, VAULT_KEK_LIVE, VAULT_FINGERPRINT_KEY, VAULT_TRANSIT_KEY };
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid settings:\n${problems.map((line) => `  ${line}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * The settings of `role` from `env`, or a ConfigError with one line per problem. Every setting is
 * checked whatever the role; the config keeps only the role's (NAMES_BY_ROLE), and the keys its
 * type promises are there: crossSettingProblems has refused a start without them.
 */
export function loadConfig<R extends TProcessRole = 'all'>(env: NodeJS.ProcessEnv = process.env, role: R = 'all' as R): TConfigOf<R> {
  // An empty value means unset, as it does in most .env files and compose files.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
  const result = ZConfig.safeParse(present);
  const forward = forwardSettings(present, role);
  const problems = [
    ...(result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.') || 'settings'}: ${issue.message}`)),
    ...crossSettingProblems(present, role, result.success ? result.data : undefined),
    ...forward.problems,
  ];
  if (problems.length > 0 || !result.success) throw new ConfigError([...new Set(problems)]);
  const parsed = result.data;
  const kept = Object.fromEntries(NAMES_BY_ROLE[role].map((name) => [name, parsed[name]]));
  const gateways = role === 'api' ? {} : { forwardGateways: forward.gateways };
  return { ...kept, role, forwardDestinations: forward.destinations, ...gateways } as TConfigOf<R>;
}

/**
 * VAULT_FORWARD_DESTINATIONS for `role`: every process checks the list; only a worker resolves the
 * destinations' `env:NAME` credentials and TLS files (the API never holds a gateway's key).
 */
function forwardSettings(env: Record<string, string | undefined>, role: TProcessRole) {
  const parsed = parseDestinations(env.VAULT_FORWARD_DESTINATIONS, { production: env.NODE_ENV === 'production' });
  if (role === 'api' || parsed.problems.length > 0) return { ...parsed, gateways: [] };
  const secrets = resolveDestinationSecrets(parsed.destinations, env);
  return { destinations: parsed.destinations, gateways: secrets.resolved, problems: secrets.problems };
}
