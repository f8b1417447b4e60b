import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, vaultKeys } from '@folio-vault/shared/config';
import { createPgPool } from '@folio-vault/shared/connections';
import { withDevKeys } from '@folio-vault/shared/dev-keys';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import { plainCardInserts } from '@folio-vault/worker/vault/card-insert-batcher';
import { CardRepository } from '@folio-vault/worker/vault/card-repository';
import { CardVault } from '@folio-vault/worker/vault/card-vault';
import { KeyRotator } from '@folio-vault/worker/vault/key-rotation';
import { Refingerprinter } from '@folio-vault/worker/vault/refingerprint';
import { fail } from './cli-support.js';

/**
 * `npm run keys:rotate [-- --mode test|live] [--batch-size 500] [--verify]`
 * Re-wraps every vault record's data key under the active (first) KEK of VAULT_KEK_TEST and
 * VAULT_KEK_LIVE, in batches, while the service runs; running it again is harmless. With --verify
 * it changes nothing and opens every record with the configured keys: run it with the old key
 * removed from the keyring before destroying that key. It also gives records still under the old
 * global fingerprint (version 1) the per-property one, as the vault sweep does (refingerprint.ts).
 * Prints key ids and counts, never keys.
 * Exit code 0 = done, 1 = records left that these keys cannot re-wrap or open, 2 = bad settings.
 */
const COMMAND = 'keys:rotate';
const { values } = parseArgs({
  options: {
    mode: { type: 'string' },
    'batch-size': { type: 'string', default: '500' },
    verify: { type: 'boolean', default: false },
  },
});
const modes: TTokenizationMode[] = values.mode === undefined ? ['test', 'live'] : [];
if (values.mode === 'test' || values.mode === 'live') modes.push(values.mode);
if (modes.length === 0) fail(COMMAND, '--mode must be test or live (both when omitted)');
const batchSize = Number(values['batch-size']);
if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) fail(COMMAND, '--batch-size must be 1-10000');

let keys;
let databaseUrl: string;
try {
  // The worker's settings (the only process with KEKs); development keys as `npm start` has them.
  const config = loadConfig(withDevKeys(process.env), 'worker');
  keys = vaultKeys(config);
  databaseUrl = config.DATABASE_URL;
} catch (error) {
  if (error instanceof ConfigError) for (const problem of error.problems) console.error(`${COMMAND}: setting ${problem}`);
  else console.error(`${COMMAND}: ${(error as Error).message}`);
  process.exit(2);
}

const keks = { test: keys.VAULT_KEK_TEST, live: keys.VAULT_KEK_LIVE };
const pool = createPgPool(databaseUrl, { max: 2 });
const repository = new CardRepository(pool);
const rotator = new KeyRotator(repository, keks, batchSize);
// The CVV hold is a tokenize setting; nothing here tokenizes.
const refingerprinter = new Refingerprinter(new CardVault(repository, keys, 0, plainCardInserts(repository)), batchSize);
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
    const report = await rotator.rotate(mode);
    console.log(
      `${COMMAND} ${mode}: ${report.rewrapped} data keys re-wrapped under ${report.activeId}; ` +
        `${report.missingKey} under a key id not configured, ${report.unreadable} unreadable; records by key id now: ${counts(report.byKek)}`,
    );
    const retirable = [...keks[mode].keys.keys()].filter((id) => id !== report.activeId && !report.byKek[id]);
    if (report.remaining > 0) {
      console.log(`${COMMAND} ${mode}: ${report.remaining} records are still wrapped by an older key; keep it (a worker still wrapping with it? update every worker's keyring and run again)`);
      process.exitCode = 1;
    } else if (retirable.length > 0) {
      console.log(`${COMMAND} ${mode}: ${retirable.join(', ')} wrap no record any more and can be removed from VAULT_KEK_${mode.toUpperCase()}`);
    }
    const refingerprint = await refingerprinter.run(mode);
    console.log(
      `${COMMAND} ${mode}: ${refingerprint.refingerprinted} records re-fingerprinted per property; ` +
        `${refingerprint.unreadable} under the old fingerprint do not open with these keys`,
    );
    if (refingerprint.unreadable) process.exitCode = 1;
  }
} catch (error) {
  console.error(`${COMMAND}: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await pool.end();
}
