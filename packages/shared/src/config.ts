import { z } from 'zod';
import type { TKeyring } from './vault/crypto/keyring.js';
import { parseDestinations, resolveDestinationSecrets, type TForwardDestination, type TResolvedDestination } from './vault/forward/destinations.js';
import { booleanSetting, healthPort, otlpHeaders, keyLabelsSetting, keyringSetting, limitCount, measureList, optionalText, port, positiveMs, redisUrl, retrySchedule, sentinelList, singleKeySetting, trustProxySetting, urlWithProtocols, wholeNumberIn, workerQueueList } from './config-fields.js';
import { WORKER_QUEUE_GROUP_NAMES } from './queues.js';
import { PERFORMANCE_MEASURE_NAMES } from './performance-measures.js';
import { DATABASE_ROLES, roleUrlOf } from './db/roles.js';
import { connectionBudgetOf, type TConnectionBudget } from './connection-budget.js';
import { isRedisClusterUrl } from './redis-url.js';

// All settings, parsed once at start. A bad setting stops the start with one line per problem;
// secrets are never echoed in those lines. Each process gets the settings of its role (loadConfig's
// `role`): the API's config has no key-encryption key, the worker's no JWT setting, so code that
// reached for the other role's secret would not compile.
//
// Each setting carries its documentation: `readBy` (the process that uses it) and `description`,
// plus `accepts` when the schema is not a number range or a list of values. docs/settings.md is
// rendered from them with `npm run docs:settings` (scripts/settings-doc.ts), and a unit test fails
// when the page and the schema differ.

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/folio_vault';

const BOOLEAN_VALUES = '`true` or `false` (also `1`/`0`, `yes`/`no`)';

/**
 * Running on several machines (docs/production.md): the proxy in front of the API, Redis behind
 * Sentinel, and how many processes share the PostgreSQL server (the connection budget each process
 * logs at start, deployment-checks.ts). Every role keeps them.
 */
const DEPLOYMENT_SETTINGS = {
  TRUST_PROXY: trustProxySetting.meta({
    readBy: 'api',
    accepts: '`false`, a hop count 1–32, or a comma-separated list of addresses, networks (CIDR) and `loopback`, `linklocal`, `uniquelocal`',
    description:
      'The proxies in front of the API whose `X-Forwarded-For` (and `X-Forwarded-Proto`) it believes: Express\'s `trust proxy`. The client ' +
      'address it yields is what audit rows record (`client_address`). Unset: off, the peer address is the client\'s. Prefer the ' +
      'proxies\' addresses to a hop count, which holds only when no request can reach the API but through them ' +
      '([production.md](production.md#behind-a-tls-proxy)).',
  }),
  REDIS_SENTINELS: sentinelList.meta({
    readBy: 'both',
    accepts: '`host:port,host:port,…`',
    description:
      'Redis Sentinels that know the master `REDIS_SENTINEL_NAME`: every connection finds the master through them and follows a ' +
      'failover. `REDIS_URL` then gives only the password, user and database (and TLS with `rediss://`), not the host ' +
      '([production.md](production.md#redis)).',
  }),
  REDIS_SENTINEL_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be a master name of 1-64 of A-Z a-z 0-9 . _ -')
    .optional()
    .meta({ readBy: 'both', accepts: 'a master name (`A-Za-z0-9._-`)', description: 'The master the Sentinels of `REDIS_SENTINELS` monitor (`sentinel monitor <name> …`).' }),
  FLEET_API_PROCESSES: wholeNumberIn(1, 1000).default(1).meta({
    readBy: 'both',
    description:
      'API processes that share the PostgreSQL server, for the connection budget every process logs at start (a warning when the ' +
      'fleet needs more than `max_connections` leaves). Give every process the same value ([production.md](production.md#postgresql)).',
  }),
  FLEET_WORKER_PROCESSES: wholeNumberIn(1, 1000).default(1).meta({
    readBy: 'both',
    description: 'Worker processes that share the PostgreSQL server, for the same budget. Give every process the same value.',
  }),
};

/**
 * Tracing (docs/operations.md#tracing): the OpenTelemetry settings of their standard names, off unless
 * a collector is named. Every process reads them before anything else (tracing/start.ts), and with
 * tracing off loads none of the tracing code; a bad value stops the start with its one line here.
 */
const TRACING_SETTINGS = {
  OTEL_EXPORTER_OTLP_ENDPOINT: urlWithProtocols(['http:', 'https:'])
    .optional()
    .meta({
      readBy: 'both',
      accepts: '`http://` or `https://` URL',
      description:
        'The OTLP/HTTP collector\'s base URL: spans go to its `/v1/traces`. Tracing is on when this or ' +
        '`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (and `OTEL_SDK_DISABLED` is not `true`); unset, no tracing code is loaded ' +
        '([operations.md](operations.md#tracing)).',
    }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: urlWithProtocols(['http:', 'https:'])
    .optional()
    .meta({ readBy: 'both', accepts: '`http://` or `https://` URL', description: 'The full URL spans are sent to, used as it is; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`.' }),
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(['http/protobuf', 'http/json'], { error: 'must be http/protobuf or http/json (gRPC is not supported)' })
    .default('http/protobuf')
    .meta({ readBy: 'both', description: 'How spans are encoded over OTLP/HTTP.' }),
  OTEL_EXPORTER_OTLP_HEADERS: otlpHeaders.meta({
    readBy: 'both',
    accepts: '`name=value,name=value` (values percent-encoded)',
    description: 'Headers sent with every export (a collector\'s API key, say); never logged.',
  }),
  OTEL_SERVICE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._/-]{1,128}$/, 'must be 1-128 of A-Z a-z 0-9 . _ / -')
    .optional()
    .meta({
      readBy: 'both',
      accepts: '1–128 of `A-Za-z0-9._/-`',
      description: 'The `service.name` of the process\'s spans; unset: `folio-vault-api`, `folio-vault-worker` or `folio-vault` (`npm start`). A worker\'s render processes take the worker\'s.',
    }),
  OTEL_TRACES_SAMPLER: z
    .enum(['parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio', 'always_on', 'always_off', 'traceidratio'])
    .default('parentbased_always_on')
    .meta({
      readBy: 'both',
      description:
        'Which traces are recorded. A trace starts at the API\'s request (or at a job nobody traced): the ratio samplers keep ' +
        '`OTEL_TRACES_SAMPLER_ARG` of them, and a job\'s spans follow the decision made for the request that added it.',
    }),
  OTEL_TRACES_SAMPLER_ARG: z.coerce
    .number({ error: 'must be a number from 0 to 1' })
    .min(0, 'must be a number from 0 to 1')
    .max(1, 'must be a number from 0 to 1')
    .default(1)
    .meta({ readBy: 'both', accepts: 'a fraction from 0 to 1', description: 'The ratio of the `traceidratio` samplers.' }),
  OTEL_BSP_SCHEDULE_DELAY: wholeNumberIn(1, 60_000, 'ms').default(5000).meta({
    readBy: 'both',
    description: 'How long finished spans wait to be sent together; they are sent at once when 512 wait, and at shutdown.',
  }),
  OTEL_SDK_DISABLED: booleanSetting.default(false).meta({
    accepts: BOOLEAN_VALUES,
    readBy: 'both',
    description: '`true` keeps tracing off whatever the other `OTEL_*` settings say.',
  }),
};

/** What every process reads. */
const ZSharedSettings = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development').meta({
    readBy: 'both',
    description:
      '`production` refuses to start without real keys (none is generated), marks the queue dashboard\'s cookie `Secure` and refuses ' +
      'the development switches: the `local` key provider, a cleartext vault key beside `pkcs11` or `components`, ' +
      '`WEBHOOK_ALLOW_INSECURE`, `WEBHOOK_ALLOW_PRIVATE`, an `http://` `JWT_JWKS_URL` and forward destinations with `allowInsecure` ' +
      '([operations.md](operations.md#production-refuses-development-switches)). Logs are human-readable only outside `production` and `test`.',
  }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').meta({
    readBy: 'both',
    description:
      'The pino level. Logs go to stdout: JSON lines, or human-readable ones (pino-pretty) when stdout is a terminal and ' +
      '`NODE_ENV` is neither `production` nor `test`.',
  }),
  PORT: port.default(3000).meta({ readBy: 'api', description: 'The HTTP port of the API (and of `npm start`).' }),
  REDIS_URL: redisUrl.default(DEFAULT_REDIS_URL).meta({
    readBy: 'both',
    accepts: '`redis://` or `rediss://` URL; `redis+cluster://host:port,host:port,…` for a Redis Cluster',
    description: 'Redis for the job queues and the rate-limit counters.',
  }),
  DATABASE_URL: urlWithProtocols(['postgres:', 'postgresql:']).default(DEFAULT_DATABASE_URL).meta({
    readBy: 'both',
    accepts: '`postgres://` or `postgresql://` URL',
    description:
      'PostgreSQL as the schema\'s owner, for migrations only: a process given it creates the database when it is missing and ' +
      'applies pending migrations at start; one without it checks that none is pending and refuses to start otherwise ' +
      '(`npm run db:migrate`). The default applies outside production, to a process given none of its role\'s URLs ' +
      '([operations.md](operations.md#database-roles)).',
  }),
  STORAGE_DRIVER: z.enum(['fs', 'minio']).default('fs').meta({
    readBy: 'both',
    description: 'Where export files go: a folder (`fs`, `STORAGE_DIR`) or S3/MinIO (`minio`). `/readyz` checks it.',
  }),
  STORAGE_DIR: z.string().min(1).default('./.data/objects').meta({
    readBy: 'both',
    accepts: 'a folder',
    description: 'The folder of `STORAGE_DRIVER=fs`. The API and the workers must see the same folder.',
  }),
  MINIO_ENDPOINT: urlWithProtocols(['http:', 'https:'])
    .optional()
    .meta({ readBy: 'both', accepts: '`http://` or `https://` URL', description: 'The S3/MinIO URL the service reaches (`http://host:9000`).' }),
  MINIO_ACCESS_KEY: optionalText.meta({ readBy: 'both', accepts: 'text', description: 'The S3/MinIO access key.' }),
  MINIO_SECRET_KEY: optionalText.meta({ readBy: 'both', accepts: 'text', description: 'The S3/MinIO secret key.' }),
  MINIO_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid bucket name (3-63 of a-z 0-9 . -)')
    .default('folio-vault')
    .meta({ readBy: 'both', accepts: '3–63 of `a-z 0-9 . -`', description: 'The bucket; created on first use when missing.' }),
  MINIO_REGION: z
    .string()
    .regex(/^[a-z0-9-]{1,64}$/, 'must be a region name (a-z 0-9 -, e.g. eu-west-3)')
    .default('us-east-1')
    .meta({
      readBy: 'both',
      accepts: 'a region name (`a-z 0-9 -`)',
      description: 'The bucket\'s region: uploads and presigned download links are signed for it, and a missing bucket is created in it.',
    }),
  TOKENIZE_WAIT_MS: positiveMs.default(10_000).meta({
    readBy: 'api',
    description:
      'How long a vault request (tokenize, read, delete, search) waits for its job before it answers 503 with `Retry-After`; ' +
      'a forward waits its destination\'s `timeoutMs` on top ([vault.md](vault.md#waiting-for-the-worker)).',
  }),
  // The PostgreSQL pools' budgets (connections.ts, pgBudgetOf): the API's serve requests and are
  // short; a worker's run exports, night audits and sweeps besides and are longer.
  PG_STATEMENT_TIMEOUT_MS: positiveMs.default(5_000).meta({
    readBy: 'api',
    description:
      'The API\'s PostgreSQL `statement_timeout`: a statement running longer is cancelled and the request answers 503 with ' +
      '`Retry-After` naming PostgreSQL; a transaction left idle for twice this is ended ([operations.md](operations.md#time-budgets)).',
  }),
  PG_LOCK_TIMEOUT_MS: positiveMs.default(2_000).meta({
    readBy: 'api',
    description: 'The API\'s PostgreSQL `lock_timeout`: a request that waits longer for a lock another session holds answers 503 with `Retry-After`.',
  }),
  PG_POOL_WAIT_MS: positiveMs.default(2_000).meta({
    readBy: 'api',
    description: 'How long an API request waits for a free connection of its PostgreSQL pool (or for a new one to connect) before it answers 503 with `Retry-After`.',
  }),
  WORKER_PG_STATEMENT_TIMEOUT_MS: positiveMs.default(120_000).meta({
    readBy: 'worker',
    description: 'A worker\'s PostgreSQL `statement_timeout` (its exports, night audits and sweeps read more than a request); a transaction left idle for twice this is ended.',
  }),
  WORKER_PG_LOCK_TIMEOUT_MS: positiveMs.default(10_000).meta({
    readBy: 'worker',
    description: 'A worker\'s PostgreSQL `lock_timeout`: a job that waits longer for a lock another session holds fails with that error.',
  }),
  WORKER_PG_POOL_WAIT_MS: positiveMs.default(30_000).meta({
    readBy: 'worker',
    description: 'How long a worker\'s job waits for a free connection of its PostgreSQL pool (or for a new one to connect).',
  }),
  EXPORT_WAIT_MS: positiveMs.default(25_000).meta({
    readBy: 'api',
    description: 'How long an export request waits for its file before it answers 202 with a status URL ([export.md](export.md#flow)).',
  }),
  EXPORT_CONCURRENCY: wholeNumberIn(1, 32).default(2).meta({
    readBy: 'worker',
    description:
      'Render processes per worker process, so renders at once; the worker takes four times as many export jobs at once ([export.md](export.md#flow)). ' +
      'With two or more in a worker taking on-demand exports, the first is kept for them and the others render batch pieces at a lower CPU priority ([night-audit.md](night-audit.md#the-front-desk-first)).',
  }),
  WORKER_CONCURRENCY: wholeNumberIn(1, 256).default(16).meta({
    readBy: 'worker',
    description: 'Jobs a worker process runs at once on each vault queue (tokenize, reads, forwards); its PostgreSQL pool has min(this, 20) connections.',
  }),
  WORKER_QUEUES: workerQueueList.default(WORKER_QUEUE_GROUP_NAMES).meta({
    readBy: 'worker',
    accepts: `a comma-separated list of ${WORKER_QUEUE_GROUP_NAMES.map((name) => `\`${name}\``).join(', ')}`,
    description:
      'The work this worker process takes; unset, all of it. `night-audit` alone makes a night-audit-only fleet (sources and ' +
      'manifests), `folio-export` leaves the on-demand exports to the others ([operations.md](operations.md#worker-queues)).',
  }),
  WORKER_LOCK_MS: wholeNumberIn(1000, 3_600_000, 'ms').default(30_000).meta({
    readBy: 'worker',
    description:
      'BullMQ\'s job lock (a running job renews it every half of it) and how often workers look for stalled jobs: the jobs of a ' +
      'worker process that died go to the others within about two to three times this.',
  }),
  QUEUE_PREFIX: z
    .string()
    .regex(/^\{[A-Za-z0-9._:-]+\}/, 'must start with a Redis Cluster hash tag such as "{folio}"')
    .default('{folio}')
    .meta({
      readBy: 'both',
      accepts: 'starts with a Redis Cluster hash tag such as `{folio}`',
      description: 'The prefix of every Redis key of the service: queues and rate-limit counters.',
    }),
  METRICS_TOKEN: optionalText
    .refine((v) => v === undefined || /^\S{16,}$/.test(v), { error: 'must be at least 16 characters without spaces' })
    .meta({
      readBy: 'both',
      accepts: 'at least 16 characters, no spaces',
      description:
        'A shared secret a scraper may send as `Authorization: Bearer <METRICS_TOKEN>` to `/metrics` instead of an admin JWT; ' +
        'when set, a worker\'s `/metrics` wants it too. It opens nothing else.',
    }),
  // Parsed: undefined = no server, 0 = a free port the system picks.
  WORKER_HEALTH_PORT: healthPort.meta({
    readBy: 'worker',
    accepts: '`0` (no server), 1–65535, or `ephemeral`',
    description:
      'The port of a worker process\'s `/healthz`, `/readyz` and `/metrics`; unset, no such server. `ephemeral` takes a free port ' +
      'the system picks (the tests use it), named in the log line `worker health server listening`.',
  }),
  WORKER_HEALTH_HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:-]+$/, 'must be a host name or an IP address (such as 127.0.0.1 or 0.0.0.0)')
    .default('127.0.0.1')
    .meta({
      readBy: 'worker',
      accepts: 'a host name or an IP address',
      description: 'The address the worker\'s health server binds: `0.0.0.0` for probes from outside the machine or container.',
    }),
  SHUTDOWN_GRACE_MS: positiveMs.default(20_000).meta({
    readBy: 'both',
    description:
      'On SIGTERM or SIGINT, how long the API lets requests in flight finish and a worker its active jobs (then hands them back). ' +
      'Each close step after it is bounded too, so an API process ends within this plus 4.5 s and a worker within this plus 8 s, ' +
      'even with Redis or PostgreSQL gone; `npm start` gives its worker what its API left of one grace ([operations.md](operations.md#stopping)).',
  }),
  // The abuse limits' defaults sit far above what a property's front desk or channel manager sends.
  TOKENIZE_RATE_LIMIT_PER_PROPERTY: limitCount.default(6000).meta({
    readBy: 'api',
    description:
      'Tokenize requests per property (`X-Property-Id`) per window, all callers together; forwards are counted apart with the same ' +
      'limit. Above it, 429 `RATE_LIMITED` with `Retry-After` ([api.md](api.md#abuse-limits)).',
  }),
  TOKENIZE_RATE_LIMIT_PER_SUBJECT: limitCount.default(3000).meta({
    readBy: 'api',
    description:
      'Tokenize requests one token subject (`sub`) may send per window, whatever the property; forwards are counted apart with the ' +
      'same limit. Counted in Redis, shared by every API process.',
  }),
  IMPORT_RATE_LIMIT_PER_PROPERTY: limitCount.default(120).meta({
    readBy: 'api',
    description:
      'Ledger imports (`POST /accounting/v1.0/import`) per property per window, all callers together. Above it, 429 `RATE_LIMITED` ' +
      'with `Retry-After` ([ledger.md](ledger.md#import)).',
  }),
  RATE_LIMIT_WINDOW_MS: wholeNumberIn(1000, 3_600_000, 'ms').default(60_000).meta({
    readBy: 'api',
    description: 'The fixed window of the tokenize, forward and import rate limits.',
  }),
  EXPORT_MAX_ROWS: wholeNumberIn(1, 1_000_000).default(50_000).meta({
    readBy: 'both',
    description:
      'Transactions one export document may hold. A request selecting more gets 413 `PAYLOAD_TOO_LARGE` with the count and the ' +
      'bound; an export past it when the worker reads it fails with that reason, before rendering ([export.md](export.md#size-bound)).',
  }),
  EXPORT_QUEUE_CAP_PER_PROPERTY: limitCount.default(20).meta({
    readBy: 'api',
    description:
      'Folio exports a property may have queued or running at once; one more gets 429 `RATE_LIMITED` with `Retry-After` ' +
      '(joining an identical export in flight is always allowed).',
  }),
  NIGHT_AUDIT_RATE_LIMIT_PER_PROPERTY: limitCount.default(10).meta({
    readBy: 'api',
    description:
      'Night-audit starts a property may request per `RATE_LIMIT_WINDOW_MS` window, all callers together; above it, 429 ' +
      '`RATE_LIMITED` with `Retry-After` ([night-audit.md](night-audit.md#how-many-at-once)).',
  }),
  NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY: wholeNumberIn(1, 100).default(4).meta({
    readBy: 'both',
    description:
      'Night-audit batches of one property handed to the workers at once; a later start is accepted and waits `queued` until one ' +
      'of them ends ([night-audit.md](night-audit.md#how-many-at-once)). Give the API and the workers the same value.',
  }),
  // The API seals the CVV into the transit envelope only when it is to be held; the worker holds it that long.
  VAULT_CVV_HOLD_SECONDS: wholeNumberIn(0, 3600).default(600).meta({
    readBy: 'both',
    description:
      'How long the CVV given at tokenize is held, encrypted, for one forward; `0`: dropped at once. Give the API and the workers ' +
      'the same value ([vault.md](vault.md#cvv-hold)).',
  }),
  VAULT_SHRED_AFTER_EXPIRY_DAYS: wholeNumberIn(0, 3650).default(30).meta({
    readBy: 'api',
    description:
      'A token\'s latest end (`expires_at`): this many days after the end of its card\'s expiry month, UTC; also the end of a token ' +
      'tokenized without `expires_at` ([vault.md](vault.md#token-lifecycle)).',
  }),
  VAULT_SWEEP_SECONDS: wholeNumberIn(1, 86_400).default(300).meta({
    readBy: 'worker',
    description:
      'How often the vault sweep runs (first at worker start): it shreds tokens past `expires_at`, destroys held CVVs past their ' +
      'time, drops old forward answers and re-fingerprints old records ([vault.md](vault.md#the-vault-sweep)).',
  }),
  PERFORMANCE_MEASURES_OFF: measureList.default([]).meta({
    readBy: 'both',
    accepts: `a comma-separated list of ${PERFORMANCE_MEASURE_NAMES.map((name) => `\`${name}\``).join(', ')}`,
    description:
      'Performance measures to switch off: each is kept only while the benchmarks show it earns its place, and the service runs the ' +
      'plain code beside it without it; the benchmarks switch each off in turn to measure it ' +
      '([benchmarks.md](benchmarks.md), "Kept performance measures"). Empty: all on.',
  }),
  // Checked in forwardSettings: the API reads names, modes, paths and methods, a worker also the secrets.
  VAULT_FORWARD_DESTINATIONS: optionalText.meta({
    readBy: 'both',
    accepts: 'a JSON array, inline, or the path of a JSON file',
    description:
      'The payment gateways a token may be forwarded to; unset, none. Each entry has `name`, `url`, `modes`, `paths` and ' +
      'optionally `methods`, `headers` (`env:NAME` values read from the worker\'s environment), `timeoutMs`, `ca`, `cert`/`key` ' +
      'and `allowInsecure`, and `answer`, the allowlist of what a gateway\'s answer brings back: `{"headers": [names], "json": ' +
      '[JSON pointers such as "/outcome/code", or dotted paths], "form": [keys]}` (without it, the whole body comes back masked). ' +
      'Give the API and the workers the same list ([vault.md](vault.md#destinations)).',
  }),
  FORWARD_MAX_ANSWER_BYTES: wholeNumberIn(1024, 4_194_304).default(262_144).meta({
    readBy: 'worker',
    description:
      'The largest gateway answer body a forward reads: the worker stops reading at the first byte past it and answers 502 ' +
      '`FORWARD_ANSWER_TOO_LARGE`, recorded without the body ([vault.md](vault.md#safety)).',
  }),
  EXPORT_LINK_TTL_SECONDS: wholeNumberIn(1, 604_800).default(900).meta({
    readBy: 'both',
    description:
      'How long a download link stays valid from the status read (or webhook attempt) that made it ' +
      '([export.md](export.md#download-links)).',
  }),
  EXPORT_LINK_KEY: singleKeySetting().meta({
    readBy: 'both',
    accepts: 'base64 of 32 bytes',
    description:
      'Signs the folder driver\'s download links (HMAC-SHA256): the API checks them and a worker signs the ones webhooks carry, ' +
      'so both need the same key.',
  }),
  MINIO_PUBLIC_ENDPOINT: urlWithProtocols(['http:', 'https:'])
    .optional()
    .meta({
      readBy: 'both',
      accepts: '`http://` or `https://` URL',
      description:
        'The S3/MinIO URL clients reach (`https://files.example.com`): presigned download links name its host; unset, ' +
        '`MINIO_ENDPOINT`\'s ([export.md](export.md#download-links)).',
    }),
  EXPORT_RETENTION_SECONDS: wholeNumberIn(1, 315_360_000).default(259_200).meta({
    readBy: 'worker',
    description:
      'How long an on-demand export\'s file is kept after it completed (the default is three days); then the retention sweep ' +
      'deletes it and its file answers 410 `EXPORT_EXPIRED` ([export.md](export.md#retention)).',
  }),
  NIGHT_AUDIT_RETENTION_DAYS: wholeNumberIn(1, 3650).default(400).meta({
    readBy: 'worker',
    description: 'How long a night-audit batch\'s files and manifest are kept after it finished; then the retention sweep deletes them.',
  }),
  RETENTION_SWEEP_SECONDS: wholeNumberIn(1, 86_400).default(300).meta({
    readBy: 'worker',
    description: 'How often the retention sweep runs (first at worker start).',
  }),
  WEBHOOK_RETRY_SCHEDULE: retrySchedule.default([5, 60, 300, 1800, 7200, 21_600, 43_200, 86_400]).meta({
    readBy: 'both',
    accepts: 'up to 20 whole numbers of seconds (1–604800), comma-separated',
    description:
      'Seconds between a webhook delivery\'s attempts; after the last the delivery has failed ([export.md](export.md#webhooks)). ' +
      'The API reads it for a manual retry.',
  }),
  WEBHOOK_ALLOW_INSECURE: booleanSetting.default(false).meta({
    accepts: BOOLEAN_VALUES,
    readBy: 'both',
    description: '`true` lets a webhook endpoint be an `http://` URL (development only: `NODE_ENV=production` refuses `true`); checked at creation and at every send.',
  }),
  WEBHOOK_ALLOW_PRIVATE: booleanSetting.default(false).meta({
    accepts: BOOLEAN_VALUES,
    readBy: 'both',
    description:
      '`true` lets a webhook endpoint be, or resolve to, a private, loopback or link-local address (development only: `NODE_ENV=production` ' +
      'refuses `true`); checked at creation and at every send.',
  }),
}).extend(DEPLOYMENT_SETTINGS).extend(TRACING_SETTINGS);


/** How the API checks a bearer token (auth/jwt-verifier.ts): one key source, an issuer, an audience. */
const JWT_SETTINGS = {
  JWT_SECRET: optionalText
    .refine((v) => v === undefined || v.length >= 32, { error: 'must be at least 32 characters' })
    .meta({
      readBy: 'api',
      accepts: 'at least 32 characters',
      description: 'The HS256 secret tokens are checked with. Set exactly one of `JWT_SECRET`, `JWT_PUBLIC_KEY` and `JWT_JWKS_URL`.',
    }),
  JWT_PUBLIC_KEY: optionalText
    .refine((v) => v === undefined || v.includes('-----BEGIN'), { error: 'must be a PEM public key (-----BEGIN PUBLIC KEY-----)' })
    .meta({ readBy: 'api', accepts: 'a PEM public key', description: 'The RS256 or ES256 key tokens are checked with (the key\'s type decides).' }),
  JWT_JWKS_URL: urlWithProtocols(['http:', 'https:'])
    .optional()
    .meta({
      readBy: 'api',
      accepts: '`http://` or `https://` URL',
      description:
        'A JWKS whose RS256 or ES256 keys check tokens by their `kid`; keys are cached 10 minutes, fetched at most 10 times a minute. ' +
        '`NODE_ENV=production` wants `https://`.',
    }),
  JWT_ISSUER: z.string().min(1).default('folio-vault').meta({ readBy: 'api', accepts: 'text', description: 'The `iss` claim every token must have.' }),
  JWT_AUDIENCE: z.string().min(1).default('folio-vault').meta({ readBy: 'api', accepts: 'text', description: 'A value the `aud` claim must contain.' }),
};

/**
 * How each process reaches PostgreSQL as its own role (db/roles.ts, docs/operations.md#database-roles),
 * and the API's pool: its size and one property's share of it (db/property-share.ts).
 */
const DATABASE_ACCESS_SETTINGS = {
  API_DATABASE_URL: urlWithProtocols(['postgres:', 'postgresql:']).optional().meta({
    readBy: 'api',
    accepts: '`postgres://` or `postgresql://` URL',
    description:
      `PostgreSQL as the API's role (\`${DATABASE_ROLES.api}\`), which has no privilege on the vault's tables. Unset outside ` +
      'production: `DATABASE_URL` with that user and no password.',
  }),
  WORKER_DATABASE_URL: urlWithProtocols(['postgres:', 'postgresql:']).optional().meta({
    readBy: 'worker',
    accepts: '`postgres://` or `postgresql://` URL',
    description:
      `PostgreSQL as the workers' role (\`${DATABASE_ROLES.worker}\`); \`npm run keys:rotate\` uses it too. Unset outside ` +
      'production: `DATABASE_URL` with that user and no password.',
  }),
  PG_POOL_SIZE: wholeNumberIn(1, 500).default(10).meta({
    readBy: 'api',
    description: 'Connections of the API\'s PostgreSQL pool (per API process).',
  }),
  DB_SHARE_PER_PROPERTY: z.coerce
    .number({ error: 'must be a number' })
    .gt(0, 'must be more than 0 and at most 1')
    .max(1, 'must be more than 0 and at most 1')
    .default(0.5)
    .meta({
      readBy: 'api',
      accepts: 'a fraction, more than 0 and at most 1',
      description:
        'The part of the API\'s pool one property may hold at once: `PG_POOL_SIZE` times this, rounded down, at least one ' +
        'connection. Past it a property\'s requests wait their turn within `PG_POOL_WAIT_MS`, then answer 503 with ' +
        '`Retry-After`; other properties\' requests never wait behind them. `1`: no share ([operations.md](operations.md#a-database-share-per-property)).',
    }),
};

/**
 * Key custody (docs/security.md#key-custody): where a process's keys live. A worker opens its vault
 * keys with these; the API opens its job signing key with its own (a provider of its own, which in
 * production holds that key only), and uses it to sign and for nothing else.
 */
const KEY_CUSTODY_SETTINGS = {
  VAULT_KEY_PROVIDER: z.enum(['local', 'components', 'pkcs11']).default('local').meta({
    readBy: 'both',
    description:
      'Where the keys live. `pkcs11`: in an HSM (`PKCS11_*`); `components`: each key the XOR of custodians\' component files ' +
      '(`VAULT_KEY_COMPONENTS`); `local`: the `VAULT_KEK_*`, `VAULT_FINGERPRINT_KEY`, `VAULT_TRANSIT_KEY` and `VAULT_JOB_SIGNING_KEY` ' +
      'values, generated into `.data/dev-keys.json` in development. A worker opens its vault keys there, the API its job signing ' +
      'key (from a provider of its own in production). `NODE_ENV=production` refuses `local`. With `pkcs11` or `components` the cleartext ' +
      'key settings are not read (`NODE_ENV=production` refuses them).',
  }),
  PKCS11_MODULE: optionalText.meta({
    readBy: 'both',
    accepts: 'a file path',
    description: 'The PKCS#11 library of the HSM (Debian\'s SoftHSM2: `/usr/lib/softhsm/libsofthsm2.so`). Required with `VAULT_KEY_PROVIDER=pkcs11`.',
  }),
  PKCS11_TOKEN_LABEL: optionalText.meta({
    readBy: 'both',
    accepts: 'text',
    description: 'The label of the token that holds the keys (the API\'s: a token of its own, with the job signing key only). Required with `pkcs11`.',
  }),
  PKCS11_PIN_FILE: optionalText.meta({
    readBy: 'both',
    accepts: 'a file path',
    description: 'A file holding the token\'s user PIN (never logged). Required with `pkcs11`.',
  }),
  PKCS11_KEY_LABELS: keyLabelsSetting.meta({
    readBy: 'both',
    accepts: 'JSON `{"kekTest": ["<label>", …], "kekLive": […], "fingerprint": "<label>", "transit": "<label>" or […], "jobSigning": "<label>"}`, any part',
    description:
      'The labels of the keys in the token, the first of a list active. Defaults: `folio-kek-test-1`, `folio-kek-live-1`, ' +
      '`folio-fingerprint-1`, `folio-transit-1` and the API\'s job signing key pair `folio-job-signing-1` (what `npm run keys:hsm-init` creates).',
  }),
  VAULT_KEY_COMPONENTS: optionalText.meta({
    readBy: 'both',
    accepts: 'a file path',
    description:
      'With `VAULT_KEY_PROVIDER=components`: the JSON file naming each key\'s component files and check value ' +
      '([security.md](security.md#split-components)); `npm run keys:components` writes a new set (`--for api`: the job signing key only).',
  }),
};

/**
 * The `local` provider's keys, only in development: a worker holds the vault keys, the API the job
 * signing key. Cleartext keys in settings, all of them: production refuses `local`.
 */
const LOCAL_KEY_SETTINGS = {
  VAULT_KEK_TEST: keyringSetting().meta({
    readBy: 'worker',
    accepts: 'a keyring: `keyId:base64-32-bytes[,keyId:base64…]`',
    description:
      'With `VAULT_KEY_PROVIDER=local`: the key-encryption keys of test-mode tokens. The first is active (wraps new data keys); the others ' +
      'only unwrap until `npm run keys:rotate` has moved their records off them ([security.md](security.md#key-hierarchy-and-rotation)).',
  }),
  VAULT_KEK_LIVE: keyringSetting().meta({
    readBy: 'worker',
    accepts: 'a keyring, as `VAULT_KEK_TEST`',
    description: 'With `local`: the key-encryption keys of live-mode tokens. Its key ids must differ from the test ones.',
  }),
  VAULT_FINGERPRINT_KEY: singleKeySetting().meta({
    readBy: 'worker',
    accepts: 'base64 of 32 bytes',
    description: 'With `local`: the HMAC-SHA256 key of card fingerprints and idempotency digests ([vault.md](vault.md#keys-and-rotation)).',
  }),
  VAULT_TRANSIT_KEY: keyringSetting().meta({
    readBy: 'worker',
    accepts: 'a keyring, as `VAULT_KEK_TEST` (X25519 private keys)',
    description: 'With `local`: the worker\'s transit private keys, newest first; `npm run keys:public` prints the public ones for the API.',
  }),
  VAULT_JOB_SIGNING_KEY: keyringSetting().meta({
    readBy: 'api',
    accepts: '`keyId:base64-32-bytes` (an Ed25519 private seed)',
    description:
      'With `local`: the API\'s key that signs every vault job ([security.md](security.md#jobs-only-the-api-can-ask-for)); it opens ' +
      'nothing. `npm run keys:public` prints its public half for the workers\' `VAULT_JOB_VERIFY_KEYS`.',
  }),
};

/** Public keys, which open nothing: what the API seals to, and what the workers check jobs with. */
const PUBLIC_KEY_SETTINGS = {
  VAULT_TRANSIT_PUBLIC_KEYS: keyringSetting().meta({
    readBy: 'api',
    accepts: 'a keyring of X25519 public keys, as `npm run keys:public` prints it',
    description:
      'The workers\' public transit keys, newest first: the API seals card fields on the queue and webhook secrets in PostgreSQL to the ' +
      'first (HPKE). Roll a new worker key out to the workers before the APIs ([security.md](security.md#key-custody)).',
  }),
  VAULT_JOB_VERIFY_KEYS: keyringSetting().meta({
    readBy: 'worker',
    accepts: 'a keyring of Ed25519 public keys, as `npm run keys:public` prints it',
    description:
      'The public halves of the APIs\' job signing keys, newest first: a worker refuses a vault job whose signature none of them ' +
      'verifies. Add a new signing key here on every worker before any API signs with it ([security.md](security.md#jobs-only-the-api-can-ask-for)).',
  }),
};

/** Every setting: what is checked at start, whatever the role (a bad value stops any process). */
export const ZConfig = ZSharedSettings.extend(DATABASE_ACCESS_SETTINGS).extend(JWT_SETTINGS).extend(PUBLIC_KEY_SETTINGS).extend(KEY_CUSTODY_SETTINGS).extend(LOCAL_KEY_SETTINGS);

type TParsed = z.output<typeof ZConfig>;
type TJwtSettings = Pick<TParsed, keyof typeof JWT_SETTINGS>;

/**
 * Which process reads the settings. Keys are handed out by need (docs/security.md#key-custody): the
 * API holds public transit keys and its job signing key only, never a key-encryption key, the
 * fingerprint key or a transit private key; a worker holds the vault keys and only the public job
 * keys; `all` is `npm start`.
 */
export type TProcessRole = 'api' | 'worker' | 'all';

type TVaultKeyName = 'VAULT_KEK_TEST' | 'VAULT_KEK_LIVE' | 'VAULT_FINGERPRINT_KEY' | 'VAULT_TRANSIT_KEY';

/** A key provider's settings (vault/keys/open-key-provider.ts): a worker's, a key command's, `npm start`'s. */
export type TKeyCustodySettings = Pick<TParsed, keyof typeof KEY_CUSTODY_SETTINGS> & Partial<Pick<TParsed, keyof typeof LOCAL_KEY_SETTINGS>>;
/** The API's key custody: its provider's settings, and with `local` the signing key, no vault key. */
export type TJobSigningSettings = Pick<TParsed, keyof typeof KEY_CUSTODY_SETTINGS> & Partial<Pick<TParsed, 'VAULT_JOB_SIGNING_KEY'>>;

/** What any process reads (storage, Redis, PostgreSQL, limits, the worker's health server). */
export type TConfig = Omit<z.output<typeof ZSharedSettings>, 'EXPORT_LINK_KEY' | 'DATABASE_URL'> & {
  /** Present in every loaded config: a start without it is refused (crossSettingProblems). */
  EXPORT_LINK_KEY: Buffer;
  /** The schema owner's URL, for migrations at start; absent when the process is not to migrate (databaseUrls). */
  DATABASE_URL: string | undefined;
  role: TProcessRole;
  /** The PostgreSQL connections the fleet's processes hold (FLEET_*), as every process computes it (deployment-checks.ts). */
  connectionBudget: TConnectionBudget;
  /** VAULT_FORWARD_DESTINATIONS parsed: what the API checks a forward against (no secret resolved). */
  forwardDestinations: TForwardDestination[];
};
/**
 * The API's: the JWT settings, the workers' public transit keys and its job signing key's custody.
 * With role `all` (`npm start`) the transit keys may be unset: the process derives them from its
 * own key provider.
 */
export type TApiConfig = TConfig &
  TJwtSettings &
  TJobSigningSettings &
  Pick<TParsed, 'PG_POOL_SIZE' | 'DB_SHARE_PER_PROPERTY'> & { API_DATABASE_URL: string; VAULT_TRANSIT_PUBLIC_KEYS?: TKeyring; role: 'api' | 'all' };
/**
 * The worker's: its key custody, the APIs' public job keys and the destinations' credentials, no
 * JWT setting (it answers no client). With role `all` the job keys may be unset: the process
 * derives them from its own key provider's signing key.
 */
export type TWorkerConfig = TConfig &
  Pick<TParsed, keyof typeof KEY_CUSTODY_SETTINGS> &
  Partial<Pick<TParsed, TVaultKeyName>> & { WORKER_DATABASE_URL: string; VAULT_JOB_VERIFY_KEYS?: TKeyring; role: 'worker' | 'all'; forwardGateways: TResolvedDestination[] };
/** `npm start`'s, both in one process: its role is 'all'. */
export type TAllConfig = TApiConfig & TWorkerConfig;
export type TConfigOf<R extends TProcessRole> = { api: TApiConfig; worker: TWorkerConfig; all: TAllConfig }[R];

/** The settings every process keeps (TConfig), whichever of them it uses. */
export const SHARED_NAMES = Object.keys(ZSharedSettings.shape) as Array<keyof TParsed>;
const JWT_NAMES = Object.keys(JWT_SETTINGS) as Array<keyof TParsed>;
const CUSTODY_NAMES = Object.keys(KEY_CUSTODY_SETTINGS) as Array<keyof TParsed>;
/**
 * The settings that hold a vault key in clear (the `local` provider's). The production refusal and
 * the pkcs11/components rule below read this list, so a key setting added to LOCAL_KEY_SETTINGS
 * is covered by them.
 */
export const LOCAL_KEY_NAMES = Object.keys(LOCAL_KEY_SETTINGS) as Array<keyof typeof LOCAL_KEY_SETTINGS>;
const isLocalKeyName = (name: string): boolean => (LOCAL_KEY_NAMES as string[]).includes(name);
const API_DATABASE_NAMES = ['API_DATABASE_URL', 'PG_POOL_SIZE', 'DB_SHARE_PER_PROPERTY'] as const;
/** The role URLs a process connects with: the API's own, a worker's own, both for `npm start`. */
const ROLE_URL_NAMES = { api: ['API_DATABASE_URL'], worker: ['WORKER_DATABASE_URL'], all: ['API_DATABASE_URL', 'WORKER_DATABASE_URL'] } as const;
const VAULT_KEY_NAMES = ['VAULT_KEK_TEST', 'VAULT_KEK_LIVE', 'VAULT_FINGERPRINT_KEY', 'VAULT_TRANSIT_KEY'] as const satisfies readonly TVaultKeyName[];
/**
 * The settings a role keeps; a key of another role is not even read into its config. The one table
 * of who holds which key: the required keys below and the development keys (dev-keys.ts) follow it.
 */
export const NAMES_BY_ROLE: Record<TProcessRole, ReadonlyArray<keyof TParsed>> = {
  api: [...SHARED_NAMES, ...API_DATABASE_NAMES, ...JWT_NAMES, 'VAULT_TRANSIT_PUBLIC_KEYS', ...CUSTODY_NAMES, 'VAULT_JOB_SIGNING_KEY'],
  worker: [...SHARED_NAMES, 'WORKER_DATABASE_URL', ...CUSTODY_NAMES, ...VAULT_KEY_NAMES, 'VAULT_JOB_VERIFY_KEYS'],
  all: [
    ...SHARED_NAMES, ...API_DATABASE_NAMES, 'WORKER_DATABASE_URL', ...JWT_NAMES, 'VAULT_TRANSIT_PUBLIC_KEYS', 'VAULT_JOB_VERIFY_KEYS',
    ...CUSTODY_NAMES, ...VAULT_KEY_NAMES, 'VAULT_JOB_SIGNING_KEY',
  ],
};

/** The public keys of the other side a role cannot start without; `npm start` derives both from its one provider. */
const PUBLIC_KEYS_OF: Record<TProcessRole, string[]> = { api: ['VAULT_TRANSIT_PUBLIC_KEYS'], worker: ['VAULT_JOB_VERIFY_KEYS'], all: [] };

/** The settings a role's key provider cannot open without. */
function requiredKeysOf(env: Record<string, string | undefined>, role: TProcessRole): string[] {
  switch (env.VAULT_KEY_PROVIDER ?? 'local') {
    case 'pkcs11':
      return ['PKCS11_MODULE', 'PKCS11_TOKEN_LABEL', 'PKCS11_PIN_FILE'];
    case 'components':
      return ['VAULT_KEY_COMPONENTS'];
    case 'local':
      return [...(role === 'api' ? [] : VAULT_KEY_NAMES), ...(role === 'worker' ? [] : ['VAULT_JOB_SIGNING_KEY'])];
    default:
      return []; // the schema names the bad value
  }
}

/**
 * Checks across settings. They run on the raw environment, next to the per-setting schema, so a
 * bad PORT does not hide a missing key: every problem gets its line in one go.
 */
function crossSettingProblems(env: Record<string, string | undefined>, role: TProcessRole, parsed?: TParsed): string[] {
  const problems: string[] = [];
  const jwtSources = [env.JWT_SECRET, env.JWT_PUBLIC_KEY, env.JWT_JWKS_URL].filter(Boolean).length;
  if (jwtSources === 0 && role !== 'worker') problems.push('JWT_SECRET: one of JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL is required');
  if (jwtSources > 1) problems.push('JWT_SECRET: set only one of JWT_SECRET, JWT_PUBLIC_KEY and JWT_JWKS_URL');
  for (const name of PUBLIC_KEYS_OF[role]) if (!env[name]) problems.push(`${name}: is required`);
  // The API's job signing key is one of them: with `local`, it too is in clear in settings.
  if (env.NODE_ENV === 'production' && (env.VAULT_KEY_PROVIDER ?? 'local') === 'local') {
    problems.push('VAULT_KEY_PROVIDER: local keeps the vault keys in clear in settings; NODE_ENV=production needs pkcs11 or components');
  } else {
    for (const name of requiredKeysOf(env, role)) {
      if (!env[name]) problems.push(`${name}: is required with VAULT_KEY_PROVIDER=${env.VAULT_KEY_PROVIDER ?? 'local'}`);
    }
  }
  if (!env.EXPORT_LINK_KEY) problems.push('EXPORT_LINK_KEY: is required');
  if (env.NODE_ENV === 'production') {
    for (const name of ROLE_URL_NAMES[role]) if (!env[name]) problems.push(`${name}: is required with NODE_ENV=production`);
  }
  if (Boolean(env.REDIS_SENTINELS) !== Boolean(env.REDIS_SENTINEL_NAME)) {
    problems.push(env.REDIS_SENTINELS ? 'REDIS_SENTINEL_NAME: is required with REDIS_SENTINELS' : 'REDIS_SENTINELS: is required with REDIS_SENTINEL_NAME');
  }
  if (env.REDIS_SENTINELS && env.REDIS_URL && isRedisClusterUrl(env.REDIS_URL)) {
    problems.push('REDIS_SENTINELS: a Redis Cluster (redis+cluster://) has no Sentinel; set one or the other');
  }
  if (env.STORAGE_DRIVER === 'minio') {
    for (const name of ['MINIO_ENDPOINT', 'MINIO_ACCESS_KEY', 'MINIO_SECRET_KEY'] as const) {
      if (!env[name]) problems.push(`${name}: is required when STORAGE_DRIVER=minio`);
    }
  }
  problems.push(...productionProblems(env));
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
 * What NODE_ENV=production refuses besides the `local` provider (crossSettingProblems) and
 * `allowInsecure` forward destinations (destinations.ts): the switches that exist for development.
 * A cleartext vault key beside pkcs11 or components (outside production it is only left out of
 * the config, loadConfig), a webhook rule lifted, a JWKS fetched over cleartext HTTP. One line each.
 */
function productionProblems(env: Record<string, string | undefined>): string[] {
  if (env.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  const provider = env.VAULT_KEY_PROVIDER;
  if (provider === 'pkcs11' || provider === 'components') {
    for (const name of LOCAL_KEY_NAMES) {
      if (env[name]) problems.push(`${name}: a vault key in clear beside VAULT_KEY_PROVIDER=${provider}; NODE_ENV=production refuses it`);
    }
  }
  for (const name of ['WEBHOOK_ALLOW_INSECURE', 'WEBHOOK_ALLOW_PRIVATE'] as const) {
    if (booleanSetting.safeParse(env[name]).data === true) problems.push(`${name}: a development switch; NODE_ENV=production refuses it`);
  }
  if (env.JWT_JWKS_URL?.trim().toLowerCase().startsWith('http:')) {
    problems.push('JWT_JWKS_URL: must be an https:// URL under NODE_ENV=production');
  }
  return problems;
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
  const present = presentSettings(env);
  const result = ZConfig.safeParse(present);
  const forward = forwardSettings(present, role);
  const problems = [
    ...(result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.') || 'settings'}: ${issue.message}`)),
    ...crossSettingProblems(present, role, result.success ? result.data : undefined),
    ...forward.problems,
  ];
  if (problems.length > 0 || !result.success) throw new ConfigError([...new Set(problems)]);
  const parsed = { ...result.data, ...databaseUrls(present, result.data, role) };
  // Keys in an HSM or in components: a cleartext key beside them is not read (production refuses it).
  const names = parsed.VAULT_KEY_PROVIDER === 'local' ? NAMES_BY_ROLE[role] : NAMES_BY_ROLE[role].filter((name) => !isLocalKeyName(name));
  const kept = Object.fromEntries(names.map((name) => [name, parsed[name]]));
  const gateways = role === 'api' ? {} : { forwardGateways: forward.gateways };
  return { ...kept, role, connectionBudget: connectionBudgetOf(parsed), forwardDestinations: forward.destinations, ...gateways } as TConfigOf<R>;
}

/**
 * The PostgreSQL URLs of a process (docs/operations.md#database-roles). DATABASE_URL, the schema
 * owner's, is kept only when the process is to migrate with it: when given, or outside production
 * by default to a process given none of its role URLs — a process given only its role's URL never
 * migrates with a default owner. A role URL not given is, outside production, the owner's with the
 * role's name as user (roleUrlOf); production requires each (crossSettingProblems).
 */
function databaseUrls(env: Record<string, string>, parsed: TParsed, role: TProcessRole): Record<'DATABASE_URL' | 'API_DATABASE_URL' | 'WORKER_DATABASE_URL', string | undefined> {
  const production = env.NODE_ENV === 'production';
  const roleUrlGiven = ROLE_URL_NAMES[role].some((name) => env[name] !== undefined);
  const owner = env.DATABASE_URL !== undefined || !(production || roleUrlGiven) ? parsed.DATABASE_URL : undefined;
  const derived = (which: 'api' | 'worker') => (production ? undefined : roleUrlOf(parsed.DATABASE_URL, which));
  return {
    DATABASE_URL: owner,
    API_DATABASE_URL: parsed.API_DATABASE_URL ?? derived('api'),
    WORKER_DATABASE_URL: parsed.WORKER_DATABASE_URL ?? derived('worker'),
  };
}

/** The URL a process connects with as its own role: the API's (also `npm start`'s pending check), or a worker's. */
export function ownDatabaseUrl(config: TApiConfig | TWorkerConfig): string {
  return 'API_DATABASE_URL' in config ? config.API_DATABASE_URL : config.WORKER_DATABASE_URL;
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

/** An empty value means unset, as it does in most .env files and compose files. */
function presentSettings(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== ''));
}

/** The tracing settings (TRACING_SETTINGS) as parsed. */
export type TTracingSettings = z.output<z.ZodObject<typeof TRACING_SETTINGS>>;

/**
 * The tracing settings alone, read before anything else is loaded (tracing/start.ts). undefined
 * when one of them is bad: the process then starts untraced as far as this goes, and loadConfig
 * refuses the start with that setting's line.
 */
export function loadTracingSettings(env: NodeJS.ProcessEnv): TTracingSettings | undefined {
  const result = z.object(TRACING_SETTINGS).safeParse(presentSettings(env));
  return result.success ? result.data : undefined;
}

/**
 * The key custody settings alone, for the key commands (`keys:hsm-init`, `keys:public`), which
 * open a provider's keys and nothing else: the vault keys a worker reads, or the job signing key
 * an API reads, whichever the provider holds. A ConfigError with one line per problem.
 */
export function loadKeyCustody(env: NodeJS.ProcessEnv): TKeyCustodySettings {
  const present = presentSettings(env);
  const result = z.object({ ...KEY_CUSTODY_SETTINGS, ...LOCAL_KEY_SETTINGS }).safeParse(present);
  const provider = present.VAULT_KEY_PROVIDER ?? 'local';
  const required = provider === 'pkcs11' ? ['PKCS11_MODULE', 'PKCS11_TOKEN_LABEL', 'PKCS11_PIN_FILE'] : provider === 'components' ? ['VAULT_KEY_COMPONENTS'] : [];
  const problems = [
    ...(result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.') || 'settings'}: ${issue.message}`)),
    ...required.filter((name) => !present[name]).map((name) => `${name}: is required with VAULT_KEY_PROVIDER=${provider}`),
  ];
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  return result.data;
}
