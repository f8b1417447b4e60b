import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { startLocalServices } from '@folio-vault/dev-services/provision';
import { bootstrap } from '@folio-vault/shared/bootstrap';
import { generateDemoLedger } from '@folio-vault/shared/ledger/demo-ledger';
import { startApiAndWorker } from './run-together.js';

/**
 * `npm run demo`: the whole service in one go, through its HTTP API — a development token, a test
 * card tokenized, a demo ledger imported, a folio exported to ./out/ (PDF in English and Spanish,
 * and XLSX). Starts local Redis/PostgreSQL like `npm start` when none answers.
 */
const PROPERTY = 1;
// The demo talks to a person: the service's own log lines only when something goes wrong.
process.env.LOG_LEVEL ??= 'warn';
const bootstrapped = await bootstrap('all', { services: startLocalServices });
const { config, logger } = bootstrapped;
const { api } = await startApiAndWorker({ ...bootstrapped, logger: logger.child({ demo: true }) }, { port: 0 });
const base = `http://127.0.0.1:${api.port}`;

const token = jwt.sign({ scope: 'read:payment write:payment', property_ids: [PROPERTY] }, config.JWT_SECRET!, {
  algorithm: 'HS256', expiresIn: 600, subject: 'demo', issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE,
});
const headers = { authorization: `Bearer ${token}`, 'x-property-id': String(PROPERTY), 'content-type': 'application/json' };
const step = (line: string) => console.log(`demo: ${line}`);

async function call(path: string, body: unknown, extra: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return res;
}

try {
  step(`development token for property ${PROPERTY}: ${token.slice(0, 24)}…`);
  const card = await (await call('/vault/v1/tokens/card', {
    card_number: '4111 1111 1111 1111', cvv: '123', cardholder_name: 'Zoë Łukasiewicz',
    expiration: { month: '08', year: String(new Date().getUTCFullYear() + 3) },
  }, { 'svc-tokenization-mode': 'test', 'idempotency-key': 'demo-card-1' })).json() as { id: string; card_brand: string; last4: string };
  step(`test card tokenized: ${card.id} (${card.card_brand} •••• ${card.last4})`);

  const ledger = generateDemoLedger({ propertyId: PROPERTY, folios: 12 });
  const counts = await (await call('/accounting/v1.0/import', ledger)).json() as Record<string, number>;
  step(`demo ledger imported: ${counts.folios} folios, ${counts.transactions} transactions (${String(ledger.property.name)})`);

  const folio = ledger.folios[0]!;
  const guest = ledger.recipients.find((r) => r.type === 'GUEST')!;
  mkdirSync('out', { recursive: true });
  for (const [language, format] of [['en', 'PDF'], ['es', 'PDF'], ['en', 'XLSX']] as const) {
    const res = await call('/fiscal-document/v1/folios/export', {
      sourceKind: folio.sourceKind, sourceId: folio.sourceId, format,
      recipient: { type: 'GUEST', id: guest.id, taxDocumentSource: 'GUEST_TAX_ID' },
    }, { 'accept-language': language });
    if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    const name = (/filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'folio.pdf').replace(/\.(pdf|xlsx)$/, `-${language}.$1`);
    const file = join('out', name);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    step(`folio exported (${format}, ${language}): ${file} (${res.headers.get('content-length')} bytes)`);
  }
} catch (error) {
  console.error(`demo: ${(error as Error).message}`);
  process.exitCode = 1;
}
process.kill(process.pid, 'SIGTERM');
