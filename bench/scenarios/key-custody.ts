/**
 * Key custody: tokenize, read and forward with the worker's keys in a PKCS#11 token (Debian's
 * SoftHSM2) against software keys (`components`, the same code as `local`, which production
 * refuses), API and worker as separate processes (NODE_ENV=production, rate limits lifted), in the
 * same run: the providers alternate, ROUNDS rounds each, the median round shown. Per phase:
 * autocannon with CONNECTIONS connections for SECONDS s after a 1 s warm-up — tokenize (a different
 * generated card each request), read (GET of one token's metadata), forward (to a local HTTPS
 * gateway, a fresh Idempotency-Key each). From the worker's /metrics: key operations per request
 * (vault_key_operations_total; HSM calls with pkcs11) and the worker's event-loop delay p99 over
 * the tokenize phase (nodejs_eventloop_lag_p99_seconds; prom-client resets it at each scrape).
 *
 *   BENCH_KEYS_SECONDS=8 BENCH_KEYS_ROUNDS=2 npx tsx bench/scenarios/key-custody.ts
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { initSoftHsmToken, SOFTHSM_MODULE, softHsmInstalled } from '@folio-vault/dev-services/softhsm';
import { loadKeyCustody } from '@folio-vault/shared/config';
import { createPgPool } from '@folio-vault/shared/connections';
import { publicKeysSetting } from '@folio-vault/shared/vault/crypto/transit';
import { openKeyProvider } from '@folio-vault/shared/vault/keys/open-key-provider';
import { DEFAULT_KEY_LABELS } from '@folio-vault/shared/vault/keys/key-labels';
import { Pkcs11Token } from '@folio-vault/shared/vault/keys/pkcs11-provider';
import { createTestPki, startGateway } from '@folio-vault/test-kit/gateway';
import { futureYear, generatedPan } from '@folio-vault/test-kit/cards';
import { benchToken, freePort, liftedRateLimits, startShape } from '../support/service-processes.js';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine, withLoad } from '../support/machine.js';

const SECONDS = Number(process.env.BENCH_KEYS_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_KEYS_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_KEYS_CONNECTIONS ?? 20);
const PHASES = ['tokenize', 'read', 'forward'] as const;
type TPhase = (typeof PHASES)[number];
type TProvider = 'software' | 'pkcs11';

export interface TPhaseFigures {
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** Key provider calls per answered request, by operation. */
  keyOperations: Record<string, number>;
}
export interface TRoundFigures {
  provider: TProvider;
  phases: Record<TPhase, TPhaseFigures>;
  /** The worker's event-loop delay p99 during the tokenize phase, ms. */
  eventLoopP99Ms: number;
  load: number;
}

if (!softHsmInstalled()) {
  console.error('key-custody: Debian\'s softhsm2 is not installed (apt install softhsm2)');
  process.exit(2);
}
const { config, ownerUrl, services, rawEnv } = await benchEnvironment();
{
  const pool = createPgPool(ownerUrl, { max: 1 });
  await pool.query(`INSERT INTO properties (id, name, currency, timezone, gateway_mode) VALUES (1, 'Bench Hotel', 'EUR', 'Europe/Madrid', 'test')`);
  await pool.end();
}
const token = initSoftHsmToken(mkdtempSync(join(tmpdir(), 'fv-bench-hsm-')), 'folio-bench');
process.env.SOFTHSM2_CONF = token.conf;
{
  const opened = Pkcs11Token.open({ module: SOFTHSM_MODULE, tokenLabel: token.label, pinFile: token.pinFile, labels: DEFAULT_KEY_LABELS });
  opened.ensureKeys(DEFAULT_KEY_LABELS);
  opened.close();
}
const pki = await createTestPki();
const gateway = await startGateway({ pki });
const destination = { name: 'bench', url: gateway.origin, modes: ['test'], paths: ['/v1/charges'], methods: ['POST'], timeoutMs: 15_000, ca: pki.ca };
const metricsToken = randomBytes(16).toString('hex');
const bearer = `Bearer ${benchToken(config, 'use:payment read:payment write:payment')}`;
const vaultHeaders = { authorization: bearer, 'x-property-id': '1', 'svc-tokenization-mode': 'test', 'content-type': 'application/json' };
const expiration = { month: '08', year: futureYear() };
const TEMPLATE = JSON.stringify({ amount: 1000, card: { number: '{{card.number}}', exp_month: '{{card.exp_month}}', name: '{{card.holder_name}}' } });

function providerEnv(provider: TProvider): Record<string, string> {
  if (provider === 'software') return {};
  // The API's public keys are the token worker's: printed by keys:public, computed here the same way.
  return { VAULT_KEY_PROVIDER: 'pkcs11', PKCS11_MODULE: SOFTHSM_MODULE, PKCS11_TOKEN_LABEL: token.label, PKCS11_PIN_FILE: token.pinFile, SOFTHSM2_CONF: token.conf };
}

/** The worker's metrics text. */
async function workerMetrics(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
  return res.text();
}
function keyOperations(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [, operation, value] of text.matchAll(/^vault_key_operations_total\{[^}]*operation="(\w+)"[^}]*\} (\S+)$/gm)) counts[operation!] = (counts[operation!] ?? 0) + Number(value);
  return counts;
}
const eventLoopP99 = (text: string) => Number(/^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text)?.[1] ?? NaN) * 1000;

function requestOf(phase: TPhase, tokenId: string): autocannon.Request {
  if (phase === 'tokenize') {
    return {
      method: 'POST', path: '/vault/v1/tokens/card', headers: vaultHeaders,
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ card_number: generatedPan('4', 16), cvv: '123', cardholder_name: 'Zoë Łukasiewicz', expiration }) }),
    };
  }
  if (phase === 'read') return { method: 'GET', path: `/vault/v1/tokens/${tokenId}`, headers: vaultHeaders };
  return {
    method: 'POST', path: `/vault/v1/tokens/${tokenId}/forward`,
    body: JSON.stringify({ destination: 'bench', path: '/v1/charges', headers: { 'Content-Type': 'application/json' }, body: TEMPLATE }),
    setupRequest: (request) => ({ ...request, headers: { ...vaultHeaders, 'idempotency-key': `bench-${randomBytes(8).toString('hex')}` } }),
  };
}

const cannon = (url: string, phase: TPhase, tokenId: string, seconds: number) =>
  autocannon({ url, connections: CONNECTIONS, duration: seconds, timeout: 20, requests: [requestOf(phase, tokenId)] });

async function round(provider: TProvider): Promise<TRoundFigures> {
  const port = await freePort();
  const healthPort = await freePort();
  const env: Record<string, string> = {
    ...rawEnv(), ...liftedRateLimits(), ...providerEnv(provider), NODE_ENV: 'production', PORT: String(port),
    WORKER_HEALTH_PORT: String(healthPort), METRICS_TOKEN: metricsToken, VAULT_FORWARD_DESTINATIONS: JSON.stringify([destination]),
  };
  if (provider === 'pkcs11') {
    // The API seals to the token worker's key (what `npm run keys:public` prints with these settings).
    const keys = await openKeyProvider(loadKeyCustody(env));
    env.VAULT_TRANSIT_PUBLIC_KEYS = publicKeysSetting(keys.transitKeys);
    await keys.close();
  }
  const processes = await startShape('split', env);
  try {
    const url = `http://127.0.0.1:${port}`;
    const first = await fetch(`${url}/vault/v1/tokens/card`, {
      method: 'POST', headers: vaultHeaders,
      body: JSON.stringify({ card_number: '4111111111111111', cvv: '123', cardholder_name: 'Zoë Łukasiewicz', expiration }),
    });
    const tokenId = ((await first.json()) as { id: string }).id;
    const phases = {} as Record<TPhase, TPhaseFigures>;
    let eventLoopP99Ms = NaN;
    const { load } = await withLoad(async () => {
      for (const phase of PHASES) {
        await cannon(url, phase, tokenId, 1);
        const before = await workerMetrics(healthPort);
        const result = await cannon(url, phase, tokenId, SECONDS);
        const after = await workerMetrics(healthPort);
        if (phase === 'tokenize') eventLoopP99Ms = eventLoopP99(after);
        const answered = result['2xx'];
        const [was, now] = [keyOperations(before), keyOperations(after)];
        phases[phase] = {
          perSecond: answered / SECONDS,
          p50: result.latency.p50,
          p99: result.latency.p99,
          errors: result.non2xx + result.errors + result.timeouts,
          keyOperations: Object.fromEntries(Object.entries(now).map(([operation, n]) => [operation, (n - (was[operation] ?? 0)) / Math.max(1, answered)])),
        };
      }
    });
    return { provider, phases, eventLoopP99Ms, load };
  } finally {
    for (const service of processes.reverse()) await service.stop();
  }
}

const rounds: TRoundFigures[] = [];
for (let i = 0; i < ROUNDS; i += 1) {
  for (const provider of (i % 2 ? ['pkcs11', 'software'] : ['software', 'pkcs11']) as TProvider[]) {
    const figures = await round(provider);
    rounds.push(figures);
    console.log(
      `${provider}: ${PHASES.map((phase) => `${phase} ${figures.phases[phase].perSecond.toFixed(0)}/s p99 ${figures.phases[phase].p99} ms`).join(', ')}; ` +
        `event loop p99 ${figures.eventLoopP99Ms.toFixed(1)} ms; load ${figures.load.toFixed(1)}`,
    );
  }
}
await gateway.close();
await services.stop();
writeResult({ machine: machine(), seconds: SECONDS, connections: CONNECTIONS, rounds });
