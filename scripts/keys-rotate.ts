// `npm run keys:rotate [-- --mode test|live] [--from local|components:<file>]… [--batch-size 500] [--verify]`
// Re-wraps every vault record's data key under the active KEK of the configured key provider
// (VAULT_KEY_PROVIDER), from its older KEKs and from the providers `--from` names — e.g. the `local`
// keys (VAULT_KEK_* or .data/dev-keys.json) of a site moving into an HSM — in batches, while the
// service runs; a run killed half-way resumes where it stopped, and running it again is harmless.
// Then it re-binds the records sealed without their property (record-binding.ts) under the active
// KEK, and re-fingerprints the records whose fingerprint came from another key (or the old global
// fingerprint), as the vault sweep does (record-passes.ts). Last, it seals the webhook endpoints'
// secrets again to the active transit key, opened with the key each names (the active provider's
// older ones or those of --from). With --verify it changes nothing and opens every record and
// every secret with the configured keys: run it without the old keys before destroying them.
// Prints key ids and counts, never keys; the progress bar goes to stderr.
// Exit code 0 = done, 1 = records left that these keys cannot re-wrap or open, 2 = bad settings.

import { existsSync, readFileSync } from 'node:fs';
import type { TKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import type { TKeyProvider } from '@folio-vault/shared/vault/keys/key-provider';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import { fail, parseCommandLine } from './cli-support.js';

const COMMAND = 'keys:rotate';
const USAGE = `
usage: npm run keys:rotate [-- --mode test|live] [--from local|components:FILE]… [--batch-size N] [--verify]

Re-wraps every vault record's data key under the active key-encryption key of the configured key
provider (VAULT_KEY_PROVIDER), from its older keys and those --from names, then re-binds the records
sealed without their property, re-fingerprints the records fingerprinted with another key, and seals
the webhook endpoints' secrets again to the active transit key. Safe while the service runs, and to
run again.
  --mode MODE          test or live (both when omitted)
  --from SOURCE        old keys to read: local (VAULT_KEK_* or .data/dev-keys.json) or components:FILE
  --batch-size N       records a batch, 1-10000 (default 500)
  --verify             change nothing: open every record and webhook secret with the configured keys
Exit code 0 = done, 1 = records these keys cannot re-wrap or open, 2 = bad settings or arguments.`;
const { values } = parseCommandLine(COMMAND, USAGE, {
  options: {
    mode: { type: 'string' },
    from: { type: 'string', multiple: true, default: [] },
    'batch-size': { type: 'string', default: '500' },
    verify: { type: 'boolean', default: false },
  },
});
const modes: TTokenizationMode[] = values.mode === undefined ? ['test', 'live'] : [];
if (values.mode === 'test' || values.mode === 'live') modes.push(values.mode);
if (modes.length === 0) fail(COMMAND, '--mode must be test or live (both when omitted)');
const batchSize = Number(values['batch-size']);
if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) fail(COMMAND, '--batch-size must be 1-10000');

// What the work needs loads once the command line is read (cli-support.ts).
const [
  { SingleBar },
  { ConfigError, loadConfig },
  { createPgPool },
  { DEV_KEYS_FILE, withDevKeys },
  { parseKeyring, parseSingleKey },
  { readComponentKeys },
  { softwareKeyProvider },
  { LOCAL_FINGERPRINT_KEY_ID, openKeyProvider },
  { CardRepository },
  { CardVault },
  { KeyRotator },
  { runRecordPass },
  { publicKeyring },
  { openSecret, sealSecret, secretKeyId },
  { endpointSecrets, resealEndpointSecret },
] = await Promise.all([
  import('cli-progress'),
  import('@folio-vault/shared/config'),
  import('@folio-vault/shared/connections'),
  import('@folio-vault/shared/dev-keys'),
  import('@folio-vault/shared/vault/crypto/keyring'),
  import('@folio-vault/shared/vault/keys/components'),
  import('@folio-vault/shared/vault/keys/key-provider'),
  import('@folio-vault/shared/vault/keys/open-key-provider'),
  import('@folio-vault/worker/vault/card-repository'),
  import('@folio-vault/worker/vault/card-vault'),
  import('@folio-vault/worker/vault/key-rotation'),
  import('@folio-vault/worker/vault/record-passes'),
  import('@folio-vault/shared/vault/crypto/transit'),
  import('@folio-vault/shared/webhooks/secrets'),
  import('@folio-vault/shared/webhooks/store'),
]);

/** The `local` keys as settings or the development keys file hold them, never generated here. */
function localKeys(): TKeyProvider {
  const stored = existsSync(DEV_KEYS_FILE) ? (JSON.parse(readFileSync(DEV_KEYS_FILE, 'utf8')) as Record<string, string>) : {};
  const value = (name: string) => process.env[name] || stored[name] || fail(COMMAND, `--from local: ${name} is not set and ${DEV_KEYS_FILE} has none`);
  try {
    return softwareKeyProvider('local', {
      kek: { test: parseKeyring(value('VAULT_KEK_TEST')), live: parseKeyring(value('VAULT_KEK_LIVE')) },
      fingerprint: { id: LOCAL_FINGERPRINT_KEY_ID, key: parseSingleKey(value('VAULT_FINGERPRINT_KEY')) },
      transit: parseKeyring(value('VAULT_TRANSIT_KEY')),
    });
  } catch (error) {
    fail(COMMAND, `--from local: ${(error as Error).message}`);
  }
}

function oldProvider(source: string): TKeyProvider {
  if (source === 'local') return localKeys();
  if (source.startsWith('components:')) {
    try {
      return softwareKeyProvider('components', readComponentKeys(source.slice('components:'.length)));
    } catch (error) {
      fail(COMMAND, `--from ${source}: ${(error as Error).message}`);
    }
  }
  fail(COMMAND, `--from must be local or components:<file> (got ${source})`);
}

/**
 * Outside production, VAULT_KEY_PROVIDER=pkcs11 without PKCS11_* settings is `npm start`'s
 * development token in .data/softhsm: this command opens the same one, so the line a start prints
 * over a local start's data (`VAULT_KEY_PROVIDER=pkcs11 npm run keys:rotate -- --from local`) works
 * as written. Loaded only then: the development services are not part of a production install.
 */
async function developmentToken(): Promise<Record<string, string>> {
  if (process.env.NODE_ENV === 'production' || process.env.VAULT_KEY_PROVIDER !== 'pkcs11') return {};
  const { devSoftHsmToken } = await import('@folio-vault/dev-services/softhsm');
  return devSoftHsmToken(process.env, '.data', (line) => console.error(`${COMMAND}: ${line}`));
}

let active: TKeyProvider;
let databaseUrl: string;
try {
  // The worker's settings (the only process with keys); development keys and token as `npm start` has them.
  const config = loadConfig(withDevKeys({ ...process.env, ...(await developmentToken()) }, { role: 'worker' }), 'worker');
  // As the workers' role: the vault's tables and nothing more (docs/operations.md#database-roles).
  databaseUrl = config.WORKER_DATABASE_URL;
  active = await openKeyProvider(config);
} catch (error) {
  if (error instanceof ConfigError) for (const problem of error.problems) console.error(`${COMMAND}: setting ${problem}`);
  else console.error(`${COMMAND}: ${(error as Error).message}`);
  process.exit(2);
}
const old = values.from.map(oldProvider);

const pool = createPgPool(databaseUrl, { max: 2 });
const repository = new CardRepository(pool);
const rotator = new KeyRotator(repository, active, old, batchSize);
// The CVV hold is a tokenize setting; nothing here tokenizes.
const vault = new CardVault(repository, active, 0);
/**
 * Webhook endpoints' secrets (of no mode), each opened with the transit key it names — the active
 * provider's, or an old provider's — and sealed again to the active one; with --verify only opened.
 */
async function webhookSecrets(): Promise<void> {
  const rings: TKeyring[] = [active.transitKeys, ...old.map((provider) => provider.transitKeys)];
  const publicKeys = publicKeyring(active.transitKeys);
  const report = { checked: 0, resealed: 0, missingKey: 0, unreadable: 0 };
  for (const { id, secretCt } of await endpointSecrets(pool)) {
    report.checked += 1;
    const keyId = secretKeyId(secretCt);
    if (!values.verify && keyId === active.transitKeys.activeId) continue;
    const ring = values.verify ? active.transitKeys : rings.find((keys) => keyId !== undefined && keys.keys.has(keyId));
    if (!ring || keyId === undefined || !ring.keys.has(keyId)) {
      report.missingKey += 1;
      continue;
    }
    let secret: string;
    try {
      secret = await openSecret(ring, id, secretCt);
    } catch {
      report.unreadable += 1;
      continue;
    }
    // Only over what was read: an endpoint deleted or sealed again meanwhile keeps what it has.
    if (!values.verify && (await resealEndpointSecret(pool, id, secretCt, await sealSecret(publicKeys, id, secret)))) report.resealed += 1;
  }
  if (values.verify) {
    const failing = report.missingKey + report.unreadable;
    console.log(`${COMMAND} webhook secrets: ${report.checked} checked, ${failing} do not open with the configured keys`);
  } else {
    console.log(
      `${COMMAND} webhook secrets: ${report.resealed} sealed again to ${active.transitKeys.activeId} (${active.kind}); ` +
        `${report.missingKey} sealed to a key not configured, ${report.unreadable} unreadable`,
    );
  }
  if (report.missingKey || report.unreadable) process.exitCode = 1;
}

const counts = (byKek: Record<string, number>) =>
  Object.entries(byKek).map(([id, n]) => `${id}=${n}`).join(', ') || 'none';

try {
  for (const mode of modes) {
    if (values.verify) {
      const report = await rotator.verify(mode);
      console.log(`${COMMAND} ${mode}: ${report.checked} records checked, ${report.unreadable} do not open with the configured keys` +
        (report.unreadable ? ` (by key id: ${counts(report.unreadableByKek)})` : ''));
      if (report.unreadable) process.exitCode = 1;
      continue;
    }
    const bar = new SingleBar({ format: `${COMMAND} ${mode} |{bar}| {value}/{total} data keys`, stream: process.stderr, hideCursor: true });
    bar.start(await rotator.toRewrap(mode), 0);
    const report = await rotator.rotate(mode, (done) => bar.update(done));
    bar.stop();
    console.log(
      `${COMMAND} ${mode}: ${report.rewrapped} data keys re-wrapped under ${report.activeId} (${active.kind}); ` +
        `${report.missingKey} under a key id not configured, ${report.unreadable} unreadable; records by key id now: ${counts(report.byKek)}`,
    );
    const retirable = rotator.kekIds(mode).filter((id) => id !== report.activeId && !report.byKek[id]);
    if (report.remaining > 0) {
      console.log(`${COMMAND} ${mode}: ${report.remaining} records are still wrapped by an older key; keep it (a worker still wrapping with it? update every worker's keys and run again)`);
      process.exitCode = 1;
    } else if (retirable.length > 0) {
      console.log(`${COMMAND} ${mode}: ${retirable.join(', ')} wrap no record any more and can be retired`);
    }
    const rebindBar = new SingleBar({ format: `${COMMAND} ${mode} |{bar}| {value}/{total} records re-bound`, stream: process.stderr, hideCursor: true });
    rebindBar.start(await vault.unboundRecords(mode), 0);
    const rebind = await runRecordPass(vault, 'rebind', mode, { batchSize, onBatch: (done) => rebindBar.update(done) });
    rebindBar.stop();
    console.log(
      `${COMMAND} ${mode}: ${rebind.done} records re-bound to their property under ${report.activeId}; ` +
        `${rebind.unreadable} not yet bound do not open with these keys`,
    );
    if (rebind.unreadable) process.exitCode = 1;
    const refingerprint = await runRecordPass(vault, 'refingerprint', mode, { batchSize });
    console.log(
      `${COMMAND} ${mode}: ${refingerprint.done} records re-fingerprinted with ${active.fingerprintKeyId}; ` +
        `${refingerprint.unreadable} with an old fingerprint do not open with these keys`,
    );
    if (refingerprint.unreadable) process.exitCode = 1;
  }
  await webhookSecrets();
} catch (error) {
  console.error(`${COMMAND}: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await pool.end();
  await Promise.all([active, ...old].map((provider) => provider.close()));
}
