// `npm run demo`: the whole service in one go, through its HTTP API — a development token, a test
// card tokenized, the card forwarded to a local demo payment gateway (the answer masked), a demo
// ledger imported for a property of its own (stays, users, its visa payments naming that card's
// token, a payment in a foreign currency), a folio exported to ./out/ (PDF in English and Spanish,
// and XLSX), and the folio as an invoice and its credit note (Factur-X, CII and UBL) in ./out/.
// Starts local Redis/PostgreSQL like `npm start` when none answers. Runs alone or beside
// `npm start`, apart from it (demo-settings.ts); its first line says which.

import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandLine } from './cli-support.js';
import { startDemoGateway } from './demo-gateway.js';
import { DEMO_LEDGER_SEED, DEMO_PROPERTY, demoSettings, serviceAnswersOn } from './demo-settings.js';

const { values } = parseCommandLine('demo', `
usage: npm run demo [-- --data-dir DIR]

The whole service in one go, through its HTTP API: a development token, a test card tokenized and
forwarded to a local demo gateway, a demo ledger imported, a folio exported to ./out/ (PDF in English
and Spanish, XLSX) and invoiced (Factur-X, CII, UBL) and credited, for a property of its own (9001).
It starts its own API and worker (its jobs under a queue prefix of its own, no webhook sent), alone
or beside a running npm start, whose Redis and PostgreSQL it then uses; otherwise it starts local
servers like npm start and stops them at the end.
  --data-dir DIR   where local servers keep their data (default .data, as npm start)`, { options: { 'data-dir': { type: 'string', default: '.data' } } });

const PROPERTY = DEMO_PROPERTY;
const DESTINATION = 'demo-gateway';
const step = (line: string) => console.log(`demo: ${line}`);
// The demo talks to a person: the service's own log lines only when something goes wrong, and then
// as lines a person reads (not JSON), wherever its output goes.
process.env.LOG_LEVEL ??= 'warn';
const isolation = demoSettings(process.env, await serviceAnswersOn(process.env.PORT || '3000'));
Object.assign(process.env, isolation.env);
step(isolation.line);

// A local gateway over plain HTTP, as a test-mode destination (allowInsecure: development only).
// Its key is read by the worker from the environment (env:NAME), as a real gateway's would be.
process.env.DEMO_GATEWAY_KEY ??= `Bearer sk_test_${randomUUID().replace(/-/g, '')}`;
const gateway = await startDemoGateway({ authorization: process.env.DEMO_GATEWAY_KEY });
const added = addDestination({
  name: DESTINATION, url: gateway.origin, modes: ['test'], paths: ['/v1/charges'], methods: ['POST'],
  headers: { Authorization: 'env:DEMO_GATEWAY_KEY' }, timeoutMs: 5000, allowInsecure: true,
});

// What the work needs loads once the command line is read (cli-support.ts).
const [{ default: jwt }, { startLocalServices }, { bootstrap }, { generateDemoLedger }, { startApiAndWorker }] = await Promise.all([
  import('jsonwebtoken'),
  import('@folio-vault/dev-services/provision'),
  import('@folio-vault/shared/bootstrap'),
  import('@folio-vault/test-kit/demo-ledger'),
  import('./run-together.js'),
]);
const bootstrapped = await bootstrap('all', { services: startLocalServices(values['data-dir']), prettyLogs: true });
const { config, logger } = bootstrapped;
bootstrapped.onShutdown(() => gateway.close());
const { api } = await startApiAndWorker({ ...bootstrapped, logger: logger.child({ demo: true }) }, { port: 0 });
const base = `http://127.0.0.1:${api.port}`;

/**
 * Adds the demo gateway to VAULT_FORWARD_DESTINATIONS: a list the user set (inline or as a file)
 * is kept and the demo's destination appended to it. Answers why not when it cannot be added.
 */
function addDestination(destination: Record<string, unknown>): { ok: true } | { ok: false; why: string } {
  const setting = process.env.VAULT_FORWARD_DESTINATIONS?.trim() ?? '';
  let list: unknown = [];
  try {
    if (setting !== '') list = JSON.parse(setting.startsWith('[') ? setting : readFileSync(setting, 'utf8'));
  } catch {
    return { ok: false, why: 'VAULT_FORWARD_DESTINATIONS is set and is not a JSON list the demo can add to (the settings check says why)' };
  }
  if (!Array.isArray(list)) return { ok: false, why: 'VAULT_FORWARD_DESTINATIONS is set and is not a JSON list' };
  if (list.some((entry) => (entry as { name?: unknown } | null)?.name === destination.name)) {
    return { ok: false, why: `VAULT_FORWARD_DESTINATIONS already has a destination named "${String(destination.name)}"; the demo does not replace it` };
  }
  process.env.VAULT_FORWARD_DESTINATIONS = JSON.stringify([...list, destination]);
  return { ok: true };
}

const token = jwt.sign({ scope: 'read:payment write:payment use:payment', property_ids: [PROPERTY] }, config.JWT_SECRET!, {
  algorithm: 'HS256', expiresIn: 600, subject: 'demo', issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE,
});
const headers = { authorization: `Bearer ${token}`, 'x-property-id': String(PROPERTY), 'content-type': 'application/json' };

async function call(path: string, body: unknown, extra: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return res;
}

/**
 * A charge sent through the vault: the card's number and CVV go into the template's placeholders in
 * the worker, the gateway sees them, the client gets the answer masked. The same Idempotency-Key
 * again answers the recorded answer without calling the gateway a second time.
 */
async function forwardDemo(tokenId: string): Promise<void> {
  const charge = {
    destination: DESTINATION,
    method: 'POST',
    path: '/v1/charges',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      amount: 12010, currency: 'EUR', description: 'Room 204',
      card: { number: '{{card.number}}', cvc: '{{card.cvv}}', exp_month: '{{card.exp_month}}', exp_year: '{{card.exp_year}}', name: '{{card.holder_name}}' },
    }),
  };
  const extra = { 'svc-tokenization-mode': 'test', 'idempotency-key': `demo-charge-${randomUUID()}` };
  const forward = async () => (await call(`/vault/v1/tokens/${tokenId}/forward`, charge, extra)).json() as Promise<{ status: number; body: string }>;
  const answer = await forward();
  step(`forwarded to ${DESTINATION} (${gateway.origin}, test mode): the gateway answered ${answer.status}, masked for the client:`);
  step(`  ${answer.body}`);
  const replay = await forward();
  step(`same Idempotency-Key again: ${replay.body === answer.body ? 'the recorded answer' : 'a different answer (unexpected)'}; charges the gateway took: ${gateway.charges()}`);
}

/**
 * What the listing answers for the payments the import linked to the card token (their brand and
 * last four filled from the vault), and the payment a guest tendered in a foreign currency.
 */
async function describePayments(ledger: ReturnType<typeof generateDemoLedger>, tokenId: string): Promise<void> {
  const linked = ledger.transactions.filter((t) => (t.payment as { cardTokenId?: string } | undefined)?.cardTokenId === tokenId);
  const first = linked[0];
  if (first) {
    const res = await call('/accounting/v1.0/folios/transactions', { sourceKind: first.sourceKind, sourceId: first.sourceId, descriptionFilters: ['cards_visa'] });
    const body = await res.json() as { groups: Record<string, { transactions: Array<{ paymentDetails?: { creditCardType?: string; cardTrailingDigits?: string } }> }> };
    const details = Object.values(body.groups).flatMap((group) => group.transactions).find((row) => row.paymentDetails)?.paymentDetails;
    step(`${linked.length} visa deposits linked to card token ${tokenId}; the listing shows them as ${details?.creditCardType ?? '?'} •••• ${details?.cardTrailingDigits ?? '?'}`);
  }
  const foreign = ledger.transactions.find((t) => t.foreignCurrency);
  if (foreign) step(`paid in a foreign currency: ${String(foreign.amount)} ${String(foreign.currency)} tendered as ${String(foreign.foreignCurrencyAmount)} ${String(foreign.foreignCurrency)} (${String(foreign.sourceIdentifier)})`);
}

/** Polls an invoice or credit note until the workers have stored its files, then writes them to ./out/. */
async function writeFiscalFiles(document: { id: string; number: string }): Promise<void> {
  const read = async () => (await (await fetch(`${base}/fiscal-document/v1/invoices/${document.id}`, { headers })).json()) as { status: string; error?: string };
  const deadline = Date.now() + 60_000;
  let status = await read();
  while (status.status !== 'issued') {
    if (Date.now() > deadline) throw new Error(`${document.number} was not issued within 60 s (${status.status}${status.error ? `: ${status.error}` : ''})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = await read();
  }
  for (const [format, suffix] of [['FACTURX', '.pdf'], ['CII', '-cii.xml'], ['UBL', '-ubl.xml']] as const) {
    const res = await fetch(`${base}/fiscal-document/v1/invoices/${document.id}/files/${format}`, { headers });
    const file = join('out', `${document.number}${suffix}`);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    step(`  ${format}: ${file} (${res.headers.get('content-length')} bytes)`);
  }
}

/**
 * The folio as an invoice to the company (Factur-X, CII and UBL, numbered gap-free), the
 * transactions it locks as the listing shows them, and the credit note that reverses it
 * (docs/fiscal-documents.md).
 */
async function invoiceDemo(folio: Record<string, unknown>, company: Record<string, unknown>): Promise<void> {
  const issued = await (await call('/fiscal-document/v1/invoices', {
    sourceKind: folio.sourceKind, sourceId: folio.sourceId, recipient: { type: 'COMPANY', id: company.id }, formats: ['FACTURX', 'CII', 'UBL'],
  }, { 'idempotency-key': `demo-invoice-${randomUUID()}` })).json() as { id: string; number: string; totals: Record<string, string> };
  const { totals } = issued;
  step(`invoice ${issued.number} to ${String(company.name)}: net ${totals.net}, VAT ${totals.vat}, gross ${totals.gross}, prepaid ${totals.prepaid}, due ${totals.due}`);
  await writeFiscalFiles(issued);
  const listing = await (await call('/accounting/v1.0/folios/transactions', { sourceKind: folio.sourceKind, sourceId: folio.sourceId })).json() as {
    groups: Record<string, { transactions: Array<{ locked: boolean }> }>;
  };
  const rows = Object.values(listing.groups).flatMap((group) => group.transactions);
  step(`the listing shows ${rows.filter((row) => row.locked).length} of the folio's ${rows.length} transactions locked by ${issued.number}`);
  const credit = await (await call(`/fiscal-document/v1/invoices/${issued.id}/credit-notes`, { reason: 'Invoiced to the wrong company' })).json() as { id: string; number: string };
  step(`credit note ${credit.number} reverses ${issued.number}; its transactions are free to invoice again`);
  await writeFiscalFiles(credit);
}

try {
  step(`development token for property ${PROPERTY}: ${token.slice(0, 24)}…`);
  const card = await (await call('/vault/v1/tokens/card', {
    card_number: '4111 1111 1111 1111', cvv: '123', cardholder_name: 'Zoë Łukasiewicz',
    expiration: { month: '08', year: String(new Date().getUTCFullYear() + 3) },
  }, { 'svc-tokenization-mode': 'test', 'idempotency-key': `demo-card-${randomUUID()}` })).json() as { id: string; card_brand: string; last4: string };
  step(`test card tokenized: ${card.id} (${card.card_brand} •••• ${card.last4})`);

  if (added.ok) await forwardDemo(card.id);
  else step(`forward skipped: ${added.why}`);

  // The visa deposits name the card just tokenized; the import labels them from the vault.
  const ledger = generateDemoLedger({ propertyId: PROPERTY, folios: 12, seed: DEMO_LEDGER_SEED, cardTokenId: card.id });
  const counts = await (await call('/accounting/v1.0/import', ledger)).json() as Record<string, number>;
  step(`demo ledger imported: ${counts.folios} folios, ${counts.transactions} transactions, ${counts.reservations} stays, ${counts.users} users (${String(ledger.property.name)})`);
  await describePayments(ledger, card.id);

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
  await invoiceDemo(folio, ledger.recipients.find((r) => r.type === 'COMPANY')!);
} catch (error) {
  console.error(`demo: ${(error as Error).message}`);
  process.exitCode = 1;
}
process.kill(process.pid, 'SIGTERM');
