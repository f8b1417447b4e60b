// `npm run ledger:demo -- --property 1 [--folios N] [--out FILE]`
// Generates realistic demo data for a property (stays, users, charges, card and cash payments, one
// in a foreign currency) and imports it (or, with --out, writes it as NDJSON for
// `npm run ledger:import`). Its card payments name no vault token: there is none to name here
// (`npm run demo` tokenizes a card first and links the visa payments to it).

import { writeFileSync } from 'node:fs';
import { fail, openDatabase, parseCommandLine, parsePropertyId } from './cli-support.js';

const COMMAND = 'ledger:demo';
const USAGE = `
usage: npm run ledger:demo -- --property ID [--folios N] [--out FILE]

Generates demo data for a property (stays, users, charges, card and cash payments, one in a foreign
currency) and imports it into the database (DATABASE_URL), or with --out writes it as NDJSON for
npm run ledger:import.
  --property ID   the property (at most 900000)
  --folios N      how many folios (default 12, at most 100000)
  --out FILE      write NDJSON to FILE instead of importing
Exit code 0 = done, 2 = bad arguments.`;
const { values } = parseCommandLine(COMMAND, USAGE, { options: { property: { type: 'string' }, folios: { type: 'string', default: '12' }, out: { type: 'string' } } });
const propertyId = parsePropertyId(COMMAND, values.property);
const folios = Number(values.folios);
if (!Number.isInteger(folios) || folios < 1 || folios > 100_000) fail(COMMAND, '--folios must be a whole number from 1 to 100000');
if (BigInt(propertyId) > 900_000n) fail(COMMAND, '--property must be at most 900000 for demo data (its ids are derived from it)');
// What the work needs loads once the command line is read (cli-support.ts).
const [{ importRecords, recordsOfDocument }, { generateDemoLedger }] = await Promise.all([
  import('@folio-vault/shared/ledger/batch-import'),
  import('@folio-vault/test-kit/demo-ledger'),
]);

const ledger = generateDemoLedger({ propertyId: Number(propertyId), folios });
if (values.out) {
  const lines = [...recordsOfDocument(ledger)].map((record) => JSON.stringify({ [record.kind]: record.value }));
  writeFileSync(values.out, `${lines.join('\n')}\n`);
  console.log(`wrote ${lines.length} records to ${values.out}`);
} else {
  const pool = await openDatabase();
  try {
    const counts = await importRecords(pool, propertyId, recordsOfDocument(ledger));
    const sources = ledger.folios.map((f) => `${f.sourceKind} ${f.sourceId}`);
    console.log(`demo ledger for property ${propertyId} (${String(ledger.property.name)}, ${String(ledger.property.currency)}): ${counts.folios} folios, ${counts.transactions} transactions, ${counts.recipients} recipients, ${counts.reservations} stays, ${counts.users} users`);
    console.log(`sources: ${sources.slice(0, 5).join(', ')}${sources.length > 5 ? `, … (${sources.length} in all)` : ''}`);
  } finally {
    await pool.end();
  }
}
