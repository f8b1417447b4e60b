// `npm run ledger:import -- --property 1 FILE`
// FILE is NDJSON (one record a line: {"property":{…}}, {"recipient":{…}}, {"reservation":{…}},
// {"user":{…}}, {"folio":{…}} or {"transaction":{…}}), streamed in batches of 10,000, or a JSON
// document shaped like the import API's body ({property, recipients, reservations, users, folios,
// transactions}), read whole. A payment's cardTokenId is checked against the vault's tables
// directly (this runs beside the database, as the workers do): see cardTokensOf.

import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { TLedgerKind, TLedgerRecord } from '@folio-vault/shared/ledger/batch-import';
import type { TCardTokenResolver } from '@folio-vault/shared/ledger/import-ledger';
import type { TPgPool } from '@folio-vault/shared/connections';
import type { TCardBrand } from '@folio-vault/shared/vault/card/brand';
import { fail, openDatabase, parseCommandLine, parsePropertyId } from './cli-support.js';

const COMMAND = 'ledger:import';
const USAGE = `
usage: npm run ledger:import -- --property ID FILE

Imports a property's ledger into the database (DATABASE_URL) without going through the API.
FILE is NDJSON (.ndjson/.jsonl: one {"property"|"recipient"|"reservation"|"user"|"folio"|"transaction": {…}}
a line, streamed in batches of 10,000) or a JSON document shaped like POST /accounting/v1.0/import's body.
Records are upserted: running a file again is safe. Exit code 0 = imported, 1 = a record was refused
(each problem is one line), 2 = bad arguments.`;
const { values, positionals } = parseCommandLine(COMMAND, USAGE, { options: { property: { type: 'string' } }, allowPositionals: true });
const propertyId = parsePropertyId(COMMAND, values.property);
const file = positionals[0];
if (!file || positionals.length > 1) fail(COMMAND, 'give exactly one FILE (NDJSON or JSON)');
let size: number;
try {
  size = statSync(file).size;
} catch {
  fail(COMMAND, `cannot read ${file}`);
}
// What the work needs loads once the command line is read (cli-support.ts).
const [{ SingleBar }, { BatchImportError, emptyCounts, importRecords, LEDGER_KINDS, recordsOfDocument }, { creditCardTypeOf }, { findCardLabels }] = await Promise.all([
  import('cli-progress'),
  import('@folio-vault/shared/ledger/batch-import'),
  import('@folio-vault/shared/vault/card/brand'),
  import('@folio-vault/worker/vault/card-repository'),
]);

const KINDS = LEDGER_KINDS;
const bar = new SingleBar({ format: 'importing |{bar}| {percentage}% | {records} records', stream: process.stderr, hideCursor: true });
let bytesRead = 0;
let records = 0;

async function* ndjson(path: string): AsyncGenerator<TLedgerRecord> {
  const stream = createReadStream(path);
  stream.on('data', (chunk) => {
    bytesRead += chunk.length;
  });
  let line = 0;
  for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
    line += 1;
    if (!text.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new BatchImportError([`line ${line}: not valid JSON`], emptyCounts());
    }
    const keys = parsed && typeof parsed === 'object' ? Object.keys(parsed) : [];
    const kind = keys[0] as TLedgerKind;
    if (keys.length !== 1 || !KINDS.includes(kind)) {
      throw new BatchImportError([`line ${line}: must be one object with one key, one of ${KINDS.join(', ')}`], emptyCounts());
    }
    records += 1;
    yield { kind, value: (parsed as Record<string, unknown>)[kind], origin: `line ${line} (${kind})` };
  }
}

function* jsonDocument(path: string): Generator<TLedgerRecord> {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    fail(COMMAND, `${path} is not valid JSON`);
  }
  bytesRead = size;
  for (const record of recordsOfDocument(document as Parameters<typeof recordsOfDocument>[0])) {
    records += 1;
    yield record;
  }
}

/** .ndjson/.jsonl are NDJSON and .json is a document; otherwise the first line decides. */
function looksLikeNdjson(path: string): boolean {
  if (/\.(ndjson|jsonl)$/i.test(path)) return true;
  if (/\.json$/i.test(path)) return false;
  const firstLine = readFileSync(path, 'utf8').split('\n', 1)[0] ?? '';
  try {
    const keys = Object.keys(JSON.parse(firstLine) as object);
    return keys.length === 1 && KINDS.includes(keys[0] as TLedgerKind);
  } catch {
    return false;
  }
}

/**
 * The payments' card tokens, read from the vault's cards tables (test and live) through the
 * worker's repository: the brand and last four only, never a key or a ciphertext.
 */
function cardTokensOf(db: TPgPool): TCardTokenResolver {
  return async (tokenIds) => {
    const rows = await findCardLabels(db, propertyId, tokenIds);
    return new Map(rows.map((row) => [row.id, { creditCardType: creditCardTypeOf(row.card_brand as TCardBrand), cardTrailingDigits: row.last4 }]));
  };
}

const isNdjson = looksLikeNdjson(file);
const pool = await openDatabase();
bar.start(Math.max(size, 1), 0, { records: 0 });
try {
  const counts = await importRecords(pool, propertyId, isNdjson ? ndjson(file) : jsonDocument(file), () => bar.update(bytesRead, { records }), cardTokensOf(pool));
  bar.update(Math.max(size, 1), { records });
  bar.stop();
  console.log(
    `imported for property ${propertyId}: ${counts.property} property, ${counts.recipients} recipients, ${counts.reservations} reservations, ` +
      `${counts.users} users, ${counts.folios} folios, ${counts.transactions} transactions`,
  );
} catch (error) {
  bar.stop();
  if (error instanceof BatchImportError) {
    for (const problem of error.problems) console.error(`${COMMAND}: ${problem}`);
    console.error(`${COMMAND}: nothing of the failing batch was written; ${error.imported.transactions} transactions of earlier batches were (re-running the file is safe: records are upserted)`);
    process.exitCode = 1;
  } else {
    throw error;
  }
} finally {
  await pool.end();
}
