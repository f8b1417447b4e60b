import { spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { createJwtVerifier } from '@folio-vault/api/auth/jwt-verifier';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@folio-vault/dev-services/process-utils';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { cardBody } from '@folio-vault/test-kit/cards';
import { ROOT, spawnTs, waitForOutput, watchChild, type TSpawned } from '@folio-vault/test-kit/processes';
import { killGroup } from './support/faults.js';
import { createWorld, startTestWorker, testKeys, type TWorld } from './support/world.js';

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
    expect(await api.exited).toBe(2);
    expect(await worker.exited).toBe(2);
    const linesFor = (output: string, setting: string) => output.split('\n').filter((line) => line.includes(`setting ${setting}:`));
    // The API needs a JWT key, the workers' public transit keys, the link key (it checks download
    // links) and a key provider other than `local` for its job signing key, and never asks for a
    // vault secret. Each connects to PostgreSQL as its own role: the API's URL, never the workers'.
    for (const setting of ['PORT', 'JWT_SECRET', 'VAULT_TRANSIT_PUBLIC_KEYS', 'EXPORT_LINK_KEY', 'VAULT_KEY_PROVIDER', 'API_DATABASE_URL']) expect(linesFor(api.output(), setting), setting).toHaveLength(1);
    expect(api.output()).toContain('setting VAULT_KEY_PROVIDER: local keeps the vault keys in clear in settings; NODE_ENV=production needs pkcs11 or components');
    for (const setting of ['VAULT_KEK_TEST', 'VAULT_FINGERPRINT_KEY', 'VAULT_TRANSIT_KEY', 'VAULT_JOB_VERIFY_KEYS', 'WORKER_DATABASE_URL']) expect(linesFor(api.output(), setting), setting).toHaveLength(0);
    // The worker needs a key provider other than `local`, the API's public job keys and the link key
    // (webhooks carry signed links), and no JWT key.
    for (const setting of ['PORT', 'VAULT_KEY_PROVIDER', 'VAULT_JOB_VERIFY_KEYS', 'EXPORT_LINK_KEY', 'WORKER_DATABASE_URL']) expect(linesFor(worker.output(), setting), setting).toHaveLength(1);
    expect(worker.output()).toContain('setting VAULT_KEY_PROVIDER: local keeps the vault keys in clear in settings; NODE_ENV=production needs pkcs11 or components');
    for (const setting of ['JWT_SECRET', 'VAULT_TRANSIT_PUBLIC_KEYS', 'VAULT_JOB_SIGNING_KEY', 'API_DATABASE_URL']) expect(linesFor(worker.output(), setting), setting).toHaveLength(0);
  });
});

describe('graceful shutdown of the API', () => {
  it('finishes a request in flight, then refuses new connections', async () => {
    const own = await createWorld({ worker: false });
    const queue = new Queue(QUEUE_NAMES.vault, { connection: own.redis, prefix: own.config.QUEUE_PREFIX });
    try {
      const inFlight = tokenize(own.url, own.token()).then((res) => res);
      // A client that keeps its connection open (keep-alive) and would go on sending over it.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const keptAlive = new Promise<{ status?: number; connection?: string }>((resolve, reject) => {
        const req = httpRequest(`${own.url}/vault/v1/tokens/card`, {
          method: 'POST', agent,
          headers: { authorization: `Bearer ${own.token()}`, 'x-property-id': '1', 'svc-tokenization-mode': 'test', 'content-type': 'application/json' },
        }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection }));
        });
        req.on('error', reject);
        req.end(JSON.stringify(cardBody()));
      });
      // Wait until both requests' jobs are queued (no worker yet), then start closing.
      for (let i = 0; i < 200 && (await queue.getWaitingCount()) < 2; i += 1) await new Promise((r) => setTimeout(r, 20));
      expect(await queue.getWaitingCount()).toBe(2);
      const closing = own.api.close();
      const worker = await startTestWorker(own.config, own.logger);
      const res = await inFlight;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // Its answer ends the connection: it cannot keep the closing API busy past its answer.
      expect(await keptAlive).toEqual({ status: 200, connection: 'close' });
      agent.destroy();
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
    // For development only, and it says so (docs/production.md#tokens-from-a-real-issuer).
    expect(run.output().replace(stdout, '')).toBe('token: a development token (HS256, JWT_SECRET); production tokens come from your identity provider (docs/production.md)\n');
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

/**
 * `npm start` itself, as a person runs it: npm, the service, and the local Redis and PostgreSQL it
 * starts (nothing answers on the ports it is given) with their data in a temporary folder. One data
 * folder for the three starts, so initdb runs once: Ctrl-C (SIGINT to the whole foreground process
 * group); a start killed with SIGKILL, whose servers are left running; and the next start, which
 * takes them over and is stopped by a SIGTERM to the npm process alone (what `timeout`, a process
 * manager or `kill <pid>` send).
 */
describe('npm start', () => {
  /**
   * The processes whose process group is one of `groups` (Linux /proc): pid, state and command line.
   * A zombie has exited (only its exit status waits for its parent, PID 1 for the postmaster that
   * pg_ctl left) and is not counted.
   */
  function processesIn(groups: number[]): string[] {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .flatMap((entry) => {
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
          const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          if (!groups.includes(Number(group)) || state === 'Z') return [];
          return [`${entry} ${state} ${readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim()}`];
        } catch {
          return [];
        }
      });
  }

  /** npm start in a process group of its own, as a terminal runs a foreground command. */
  function npmStart(dir: string, env: Record<string, string>): TSpawned {
    const child = spawn('npm', ['start', '--', '--data-dir', dir], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', npm_config_update_notifier: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const spawned = watchChild(child, (signal) => process.kill(-child.pid!, signal));
    started.push(spawned);
    return spawned;
  }

  /**
   * The log messages of the service (its JSON lines) in the order they were logged: by their time
   * (a stable sort keeps the order of lines of one millisecond). The service writes stdout
   * asynchronously, and the last two lines before the exit have been seen to arrive swapped.
   */
  const messages = (spawned: TSpawned) =>
    spawned
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; time: number; msg: string })
      .sort((a, b) => a.time - b.time);

  /** The servers' pids, read from the data folder while they run (postmaster.pid, redis.pid). */
  const serverPids = (dir: string) => ({
    postgres: Number(readFileSync(join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]),
    redis: Number(readFileSync(join(dir, 'redis', 'redis.pid'), 'utf8').trim()),
  });

  /** Stopped cleanly: exit code 0, the API, the worker, then both servers, no warning or error, nothing left. */
  async function expectCleanStop(spawned: TSpawned, servers: { postgres: number; redis: number }, ports: { redis: number; postgres: number }) {
    expect(await spawned.exited, spawned.output().slice(-3000)).toBe(0);
    // In order: the API, the worker, then the servers (in the reverse of their start), then the exit.
    const steps = ['api listening', 'shutting down', 'api closed', 'worker closed', `stopped local PostgreSQL on port ${ports.postgres}`, `stopped local redis-server on port ${ports.redis}`, 'stopped'];
    expect(messages(spawned).map((line) => line.msg).filter((msg) => steps.includes(msg))).toEqual(steps);
    // Redis and PostgreSQL outlived the service's work: no connection error, no warning at all.
    // The output comes with a failure: which step was still closing when a server stopped.
    expect(messages(spawned).filter((line) => line.level >= 40), spawned.output().slice(-6000)).toEqual([]);
    expect(spawned.output()).not.toMatch(/ECONNREFUSED|Connection is closed|ERR_PARSE|Error:|"stack":""/);
    // Nothing left: not in npm's process group, nor in either server's own session.
    expect(processesIn([spawned.child.pid!, servers.postgres, servers.redis])).toEqual([]);
  }

  it('stops the API, the worker, then Redis and PostgreSQL on Ctrl-C and on SIGTERM to npm, and takes over servers a killed start left', { timeout: 240_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fv-npm-start-'));
    // PostgreSQL runs as its own user when the tests run as root and must get into the folder.
    chmodSync(dir, 0o755);
    try {
      const ports = { redis: await freePort(), postgres: await freePort(), api: await freePort() };
      const env = {
        ...testKeys(),
        REDIS_URL: `redis://127.0.0.1:${ports.redis}`,
        DATABASE_URL: `postgres://postgres@127.0.0.1:${ports.postgres}/folio_vault`,
        PORT: String(ports.api),
        LOG_LEVEL: 'info',
        EXPORT_CONCURRENCY: '1',
      };
      const ready = /"msg":"api listening"/;

      // 1. Ctrl-C: SIGINT to the process group (npm, the service and its render process; the
      //    servers run in sessions of their own and get nothing).
      const first = npmStart(dir, env);
      await waitForOutput(first, /\(Ctrl-C stops it\)/, 120_000);
      expect(first.output()).toContain(`services: redis from local redis-server on port ${ports.redis}, postgres from local PostgreSQL on port ${ports.postgres}`);
      // Once it answers, one block says where to go: the address, /docs, a token, the dashboard.
      const origin = `http://localhost:${ports.api}`;
      const output = first.output().split('\n');
      const block = output.indexOf(`folio-vault all: ready at ${origin} (Ctrl-C stops it)`);
      expect(output.slice(block, block + 4)).toEqual([
        `folio-vault all: ready at ${origin} (Ctrl-C stops it)`,
        `  API reference  ${origin}/docs`,
        '  a token        npm run -s token -- --property 1',
        `  dashboard      ${origin}/admin/queues (its token: npm run -s token -- --property '*' --scope admin)`,
      ]);
      expect(output.filter((line) => line.includes('ready at'))).toHaveLength(1);
      // A person opening /docs in a browser: its page, its icon, the health check. Answered
      // requests and the sweeps' runs are debug lines: none at LOG_LEVEL=info, and no warning.
      const browse = request(origin.replace('localhost', '127.0.0.1'));
      expect([(await browse.get('/docs/')).status, (await browse.get('/favicon.ico')).status, (await browse.get('/healthz')).status]).toEqual([200, 204, 200]);
      const firstServers = serverPids(dir);
      first.kill('SIGINT');
      await expectCleanStop(first, firstServers, ports);
      expect(messages(first).filter((line) => line.msg === 'request completed' || line.msg === 'job done')).toEqual([]);

      // 2. A start killed outright once its servers answer: they are left running, orphaned.
      const killed = npmStart(dir, env);
      await waitForOutput(killed, /services: redis from local redis-server/, 120_000);
      const left = serverPids(dir);
      killed.kill('SIGKILL');
      await killed.exited;
      expect(processesIn([left.postgres, left.redis]).length).toBeGreaterThan(0);

      // 3. The next start takes them over, one line each; SIGTERM to the npm process alone stops them.
      const next = npmStart(dir, env);
      await waitForOutput(next, ready, 120_000);
      const lines = next.output().split('\n');
      expect(lines.filter((line) => line.includes('left running'))).toEqual([
        `folio-vault all: redis-server left running in ${join(dir, 'redis')} by an earlier start (pid ${left.redis}): taken over, it stops with this service`,
        `folio-vault all: PostgreSQL left running in ${join(dir, 'postgres')} by an earlier start (pid ${left.postgres}): taken over, it stops with this service`,
      ]);
      expect(serverPids(dir)).toEqual(left);
      next.child.kill('SIGTERM');
      await expectCleanStop(next, left, ports);
    } finally {
      // A failed test leaves no server behind: each leads a process group of its own.
      for (const file of [join(dir, 'postgres', 'postmaster.pid'), join(dir, 'redis', 'redis.pid')]) {
        try {
          process.kill(-Number(readFileSync(file, 'utf8').split('\n')[0]), 'SIGKILL');
        } catch {
          // Not running, or never started.
        }
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Every command-line tool npm runs answers `--help` with its usage on stdout (exit 0), and an option
 * it does not know with one line on stderr (exit 2) — the shared parseCommandLine of
 * scripts/cli-support.ts — before it loads the modules its work needs. Each runs as its npm script
 * runs it (`node --import tsx <file>`), all at once.
 */
describe('the command-line tools', () => {
  const TOOLS = ['start', 'demo', 'build', 'token', 'bench', 'openapi', 'docs:settings', 'ledger:import', 'ledger:demo', 'night-audit', 'einvoice:validate', 'einvoice:compile', 'db:migrate', 'db:partitions', 'keys:rotate', 'keys:public', 'keys:components', 'keys:hsm-init', 'webhook-receiver'];
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

  /** The file an npm script runs, and the command name its messages start with. */
  const fileOf = (name: string) => {
    const match = /^exec node --import tsx (\S+)$/.exec(scripts[name] ?? '');
    if (!match) throw new Error(`npm run ${name} is "${scripts[name]}", not "exec node --import tsx <file>"`);
    return match[1]!;
  };

  /** Where each run lists the CommonJS modules it loaded, at exit (support/record-modules.mjs). */
  let modulesDir: string;
  beforeAll(() => {
    modulesDir = mkdtempSync(join(tmpdir(), 'fvt-cli-modules-'));
  });
  afterAll(() => rmSync(modulesDir, { recursive: true, force: true }));
  const recorded = { NODE_OPTIONS: `--import=${join(ROOT, 'test/support/record-modules.mjs')}` };

  /** The process each answer of run() came from. */
  const pidOf = new WeakMap<object, number>();

  async function run(name: string, arg: string): Promise<{ name: string; code: number | string; stdout: string; stderr: string }> {
    const spawned = spawnTs(fileOf(name), [arg], { ...recorded, LOADED_MODULES_DIR: modulesDir }, { direct: true });
    let stdout = '';
    let stderr = '';
    spawned.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    spawned.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const answer = { name, code: await spawned.exited, stdout, stderr };
    pidOf.set(answer, spawned.child.pid!);
    return answer;
  }

  /** The service's own CommonJS dependencies (its database and Redis clients, logger, JWTs, metrics, files): none is needed to answer. */
  const SERVICE_PACKAGES = /\/node_modules\/(pg|ioredis|pino|jsonwebtoken|prom-client|cli-progress|exceljs|pdfkit)\//;

  it('each answers --help with its usage and exit 0, and --bogus with one line and exit 2, loading none of the service\'s modules', { timeout: 120_000 }, async () => {
    const [help, bogus] = await Promise.all([
      Promise.all(TOOLS.map((name) => run(name, '--help'))),
      Promise.all(TOOLS.map((name) => run(name, '--bogus'))),
    ]);
    for (const answer of help) {
      expect({ name: answer.name, code: answer.code, stderr: answer.stderr }).toEqual({ name: answer.name, code: 0, stderr: '' });
      expect(answer.stdout, answer.name).toMatch(new RegExp(`^usage: npm (run (-s )?)?${answer.name.replace(':', '\\:')}\\b`));
    }
    for (const answer of [...help, ...bogus]) {
      const loaded = readFileSync(join(modulesDir, `${pidOf.get(answer)}.txt`), 'utf8').split('\n');
      expect({ name: answer.name, loaded: loaded.filter((file) => SERVICE_PACKAGES.test(file)) }).toEqual({ name: answer.name, loaded: [] });
    }
    for (const answer of bogus) {
      expect(answer).toEqual({ name: answer.name, code: 2, stdout: '', stderr: `${answer.name}: unknown option --bogus (see --help)\n` });
    }
  });

  it('names a missing value and an unexpected argument in one line each', async () => {
    const [missing, positional] = await Promise.all([run('token', '--property'), run('night-audit', 'extra')]);
    expect(missing).toEqual({ name: 'token', code: 2, stdout: '', stderr: 'token: option --property needs a value (see --help)\n' });
    expect(positional).toEqual({ name: 'night-audit', code: 2, stdout: '', stderr: 'night-audit: unexpected argument extra (see --help)\n' });
  });
});
