import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { validateAll } from '@folio-vault/einvoice-validation/validate';
import { cardBody } from '@folio-vault/test-kit/cards';
import { documentsToRender } from '@folio-vault/shared/fiscal/fiscal-store';
import { renderFiscalDocumentJob, renderJobId } from '@folio-vault/shared/fiscal/render-fiscal-document-job';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { startApi, type TRunningApi } from '@folio-vault/api/server';
import { until } from './support/faults.js';
import { tokenize } from './support/forward.js';
import {
  COMPANY, frenchStay, frenchStayWithExtras, GERMAN_COMPANY, GERMAN_GUEST, germanLedger, GUEST, importFrenchHotel, invoicedIds, SELLER_PROPERTY,
} from './support/fiscal-fixture.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { createWorld, type TWorld } from './support/world.js';

// Fiscal documents through the real API, queue, worker and stores (docs/fiscal-documents.md):
// issuing, gap-free numbering under concurrent issues from two API processes, a render that fails
// and is retried, Idempotency-Key replays, 422 and 409 answers, credit notes, another property's
// documents, the listing's locks and the invoice webhooks; and the stored files of every ledger case
// through the official validators. Property 1 is the French hotel, property 3 a German one; property
// 2 only ever asks for property 1's documents.

let world: TWorld;
let token: string;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  world = await createWorld({ env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1,1' } });
  token = world.token({ properties: [1, 3] });
  await receiver.start();
  // Stays 501-514 for the single tests, 520 for the validators, 601-650 for the numbering.
  await importFrenchHotel(world, token, [...Array.from({ length: 15 }, (_, i) => 501 + i), 520, ...Array.from({ length: 50 }, (_, i) => 601 + i)]);
});
afterAll(async () => {
  await world?.close();
  await receiver.close();
});

const issue = (body: Record<string, unknown>, headers: Record<string, string> = {}, url = world.url, propertyId = '1') =>
  request(url).post('/fiscal-document/v1/invoices').set('Authorization', `Bearer ${token}`).set('X-Property-Id', propertyId).set(headers).send(body);
const get = (path: string, bearer = token, propertyId = '1') => request(world.url).get(path).set('Authorization', `Bearer ${bearer}`).set('X-Property-Id', propertyId);
const credit = (id: string, reason = 'Mauvais destinataire', propertyId = '1') =>
  request(world.url).post(`/fiscal-document/v1/invoices/${id}/credit-notes`).set('Authorization', `Bearer ${token}`).set('X-Property-Id', propertyId).send({ reason });
const toCompany = (sourceId: number, extra: Record<string, unknown> = {}) => ({ sourceKind: 'RESERVATION', sourceId, recipient: { type: 'COMPANY', id: COMPANY.id }, ...extra });

async function issued(id: string, propertyId = '1'): Promise<Record<string, unknown>> {
  return until(async () => {
    const res = await get(`/fiscal-document/v1/invoices/${id}`, token, propertyId);
    return res.body.status === 'issued' ? (res.body as Record<string, unknown>) : undefined;
  }, 20_000, `invoice ${id} issued`);
}

async function listing(sourceId: number) {
  const res = await request(world.url)
    .post('/accounting/v1.0/folios/transactions')
    .set('Authorization', `Bearer ${token}`)
    .set('X-Property-Id', '1')
    .send({ sourceKind: 'RESERVATION', sourceId, sort: [{ field: 'id', direction: 'asc' }] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.groups.default.transactions as Array<{ id: string; locked: boolean; lockedByFiscalDocuments: unknown[] }>).map((row) => ({
    id: row.id, locked: row.locked, lockedBy: row.lockedByFiscalDocuments,
  }));
}

describe('issuing', () => {
  it('issues INV-n with the frozen totals, renders its files in the workers and serves the same bytes at every read', async () => {
    const res = await issue(toCompany(501, { formats: ['FACTURX', 'CII', 'UBL'], note: 'Séminaire ACME' }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.location).toBe(`/fiscal-document/v1/invoices/${res.body.id}`);
    expect(res.body).toMatchObject({
      kind: 'INVOICE', series: 'INV', currency: 'EUR', sourceKind: 'RESERVATION', sourceId: '501', folioIds: ['5010'],
      buyer: { name: 'ACME Conseil SAS', vatId: 'FR61987654321', companyId: { id: '987654321', scheme: '0002' } },
      totals: { net: '311.00', vat: '31.00', gross: '342.00', prepaid: '100.00', rounding: '0.00', due: '242.00' },
      vatBreakdown: [
        { category: 'S', rate: '10', base: '300.00', tax: '30.00' },
        { category: 'E', rate: '0', exemptionReasonCode: 'VATEX-EU-79-C', exemptionReason: 'Taxe de séjour perçue pour la commune (débours)', base: '6.00', tax: '0.00' },
        { category: 'S', rate: '20', base: '5.00', tax: '1.00' },
      ],
      files: {
        FACTURX: `/fiscal-document/v1/invoices/${res.body.id}/files/FACTURX`,
        CII: `/fiscal-document/v1/invoices/${res.body.id}/files/CII`,
        UBL: `/fiscal-document/v1/invoices/${res.body.id}/files/UBL`,
      },
    });
    expect(res.body.number).toMatch(/^INV-\d+$/);
    // Without Prefer: wait, the answer is the invoice as committed, before its render.
    expect(res.body.status).toBe('issuing');
    expect(res.headers['preference-applied']).toBeUndefined();
    const done = await issued(res.body.id);
    expect(done).toMatchObject({ status: 'issued', number: res.body.number });
    const stored = await world.pool.query<{ files: Record<string, { key: string; size: number; sha256: string }> }>('SELECT files FROM fiscal_documents WHERE id = $1', [res.body.id]);
    for (const [format, type] of [['FACTURX', 'application/pdf'], ['CII', 'application/xml'], ['UBL', 'application/xml']] as const) {
      const first = await get(`/fiscal-document/v1/invoices/${res.body.id}/files/${format}`).buffer(true).parse((r, done_) => {
        const chunks: Buffer[] = [];
        r.on('data', (chunk: Buffer) => chunks.push(chunk));
        r.on('end', () => done_(null, Buffer.concat(chunks)));
      });
      expect(first.status).toBe(200);
      expect(first.headers['content-type']).toMatch(new RegExp(`^${type}`));
      expect(first.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="${res.body.number}`));
      const file = stored.rows[0]!.files[format]!;
      expect(file.key).toMatch(new RegExp(`^fiscal/1/${res.body.id}/`));
      expect((first.body as Buffer).length).toBe(file.size);
    }
  });

  it('with Prefer: wait=N answers once the files are stored (issued, each file served at once), N at most 10; a credit note too', async () => {
    const res = await issue(toCompany(515, { formats: ['FACTURX', 'CII'] }), { Prefer: 'wait=60' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers['preference-applied']).toBe('wait=10');
    expect(res.body).toMatchObject({ status: 'issued', issuedAt: expect.any(String) });
    for (const format of ['FACTURX', 'CII']) expect((await get(`/fiscal-document/v1/invoices/${res.body.id}/files/${format}`)).status).toBe(200);

    const note = await request(world.url).post(`/fiscal-document/v1/invoices/${res.body.id}/credit-notes`)
      .set({ Authorization: `Bearer ${token}`, 'X-Property-Id': '1', Prefer: 'respond-async, wait=5' }).send({ reason: 'Mauvais destinataire' });
    expect(note.status, JSON.stringify(note.body)).toBe(201);
    expect(note.headers['preference-applied']).toBe('wait=5');
    expect(note.body).toMatchObject({ kind: 'CREDIT_NOTE', status: 'issued', issuedAt: expect.any(String) });
    expect((await get(`/fiscal-document/v1/invoices/${note.body.id}/files/CII`)).status).toBe(200);
  });

  it('answers 404 for a file of a format the invoice was not issued in', async () => {
    const res = await issue(toCompany(502, { formats: ['CII'] }));
    expect(res.status).toBe(201);
    await issued(res.body.id);
    const missing = await get(`/fiscal-document/v1/invoices/${res.body.id}/files/UBL`);
    expect(missing.status).toBe(404);
    expect(missing.body.errorCode).toBe('ENTITY_NOT_FOUND');
  });

  it('replays an Idempotency-Key with the same invoice; the key with another body is 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const first = await issue(toCompany(503), { 'Idempotency-Key': 'issue-503' });
    expect(first.status).toBe(201);
    const again = await issue(toCompany(503), { 'Idempotency-Key': 'issue-503' });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.number).toBe(first.body.number);
    const other = await issue(toCompany(503, { note: 'autre' }), { 'Idempotency-Key': 'issue-503' });
    expect(other.status).toBe(409);
    expect(other.body.errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
    const count = await world.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM fiscal_documents WHERE source_id = 503`);
    expect(count.rows[0]!.n).toBe(1);
  });

  it('answers 409 ALREADY_INVOICED naming the transactions on a live invoice, and takes no number', async () => {
    const first = await issue(toCompany(504));
    expect(first.status).toBe(201);
    const second = await issue(toCompany(504));
    expect(second.status).toBe(409);
    expect(second.body.errorCode).toBe('ALREADY_INVOICED');
    expect(second.body.errorDetails).toBe(`Transactions ${invoicedIds(504).join(', ')} are already on invoice ${first.body.number}; credit it first, or invoice other folios.`);
    const next = await issue(toCompany(505));
    expect(Number(next.body.number.slice(4))).toBe(Number(first.body.number.slice(4)) + 1);
  });

  it('answers 422 INVOICE_DATA_INCOMPLETE with every missing item at its path, and takes no number', async () => {
    // The guest has no address; a charge of stay 506 lost its VAT row's tax.
    await world.pool.query(`UPDATE transactions SET origin_id = 99 WHERE property_id = 1 AND id = 50603`);
    const before = await world.pool.query<{ last_number: string }>(`SELECT last_number FROM fiscal_series WHERE property_id = 1 AND series = 'INV'`);
    const res = await issue({ sourceKind: 'RESERVATION', sourceId: 506, recipient: { type: 'GUEST', id: GUEST.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.errorCode).toBe('INVOICE_DATA_INCOMPLETE');
    expect(res.body.fieldErrors).toEqual([
      { path: 'transactions[50603].originId', message: 'names no tax of property.taxes (99)' },
      { path: 'transactions[50602].vat', message: 'is required: no TAX row names this charge (parentId) and it has no vat of its own' },
      { path: 'recipient.postalAddress.city', message: "is required: the buyer's address (BG-8)" },
      { path: 'recipient.postalAddress.countryCode', message: "is required: the buyer's country (BT-55)" },
      { path: 'recipient.electronicAddress', message: 'is required on an invoice of a French seller: the address it is delivered to (BT-49)' },
    ]);
    expect(res.body.errorDetails).toBe('The ledger lacks what the invoice needs: transactions[50603].originId names no tax of property.taxes (99) (and 4 more missing items).');
    const after = await world.pool.query<{ last_number: string }>(`SELECT last_number FROM fiscal_series WHERE property_id = 1 AND series = 'INV'`);
    expect(after.rows).toEqual(before.rows);
  });

  it('answers 404 for an unknown source, a folio of another source and an unknown recipient; 400 at each bad field', async () => {
    expect((await issue(toCompany(999))).status).toBe(404);
    expect((await issue(toCompany(507, { folioIds: ['5080'] }))).status).toBe(404);
    expect((await issue({ sourceKind: 'RESERVATION', sourceId: 507, recipient: { type: 'COMPANY', id: 4242 } })).status).toBe(404);
    const bad = await issue(toCompany(507, { series: 'INV 2026', formats: ['PDF'], folioIds: [], note: 'a\u0007b' }));
    expect(bad.status).toBe(400);
    expect(bad.body.fieldErrors.map((error: { path: string }) => error.path)).toEqual(['folioIds', 'series', 'formats.0', 'note']);
    const early = await issue(toCompany(507, { dueDate: '2026-01-01', issueDate: '2026-02-01' }));
    expect(early.body.fieldErrors).toEqual([{ path: 'dueDate', message: 'must not be before issueDate' }]);
  });
});

describe('payment means', () => {
  it("shows a card payment naming a vault token by the token's first six and last four digits", async () => {
    const cardToken = await tokenize(world, cardBody());
    const stay = frenchStay(511);
    const deposit = stay.transactions[0]!;
    deposit.payment = { paymentId: 'pay-511', transactionType: 'Purchase', cardTokenId: cardToken };
    const imported = await request(world.url).post('/accounting/v1.0/import').set('Authorization', `Bearer ${token}`).set('X-Property-Id', '1').send(stay);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const res = await issue(toCompany(511));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const stored = await world.pool.query<{ means: unknown }>(`SELECT document->'paymentMeans' AS means FROM fiscal_documents WHERE id = $1`, [res.body.id]);
    expect(stored.rows[0]!.means).toEqual([
      { code: '54', text: 'Visa', cardNumber: '411111******1111', amount: '100.00' },
      { code: '58', iban: 'FR7630006000011234567890189' },
    ]);
  });
});

describe('credit notes and the listing', () => {
  it('locks the invoiced transactions in the listing, credits the invoice as <series>-CN-n, frees them, and invoices them again', async () => {
    const unlocked = (await listing(508)).map((row) => ({ ...row }));
    expect(unlocked.every((row) => !row.locked && row.lockedBy.length === 0)).toBe(true);

    const invoice = await issue(toCompany(508));
    expect(invoice.status).toBe(201);
    const locked = await listing(508);
    const summary = { id: invoice.body.id, number: invoice.body.number, kind: 'INVOICE', createdAt: invoice.body.createdAt };
    expect(locked).toEqual([
      ...invoicedIds(508).map((id) => ({ id, locked: true, lockedBy: [summary] })),
      { id: '50813', locked: false, lockedBy: [] },
      { id: '50814', locked: false, lockedBy: [] },
    ]);

    const note = await credit(invoice.body.id);
    expect(note.status, JSON.stringify(note.body)).toBe(201);
    expect(note.body).toMatchObject({
      kind: 'CREDIT_NOTE', series: 'INV-CN', creditedInvoice: { id: invoice.body.id, number: invoice.body.number },
      totals: { net: '311.00', vat: '31.00', gross: '342.00', prepaid: '0.00', rounding: '0.00', due: '342.00' },
    });
    expect(note.body.number).toMatch(/^INV-CN-\d+$/);
    expect((await get(`/fiscal-document/v1/invoices/${invoice.body.id}`)).body.creditNote).toEqual({ id: note.body.id, number: note.body.number });
    expect((await listing(508)).every((row) => !row.locked && row.lockedBy.length === 0)).toBe(true);

    const again = await credit(invoice.body.id);
    expect(again.status).toBe(409);
    expect(again.body.errorCode).toBe('ALREADY_CREDITED');
    // A credit note is not an invoice to credit.
    expect((await credit(note.body.id)).status).toBe(404);

    const reissued = await issue(toCompany(508));
    expect(reissued.status, JSON.stringify(reissued.body)).toBe(201);
    expect(reissued.body.number).not.toBe(invoice.body.number);
    expect((await listing(508)).filter((row) => row.locked).map((row) => row.lockedBy)).toEqual(invoicedIds(508).map(() => [expect.objectContaining({ id: reissued.body.id })]));
    await issued(note.body.id);

    const list = await get('/fiscal-document/v1/invoices?sourceKind=RESERVATION&sourceId=508');
    expect(list.status).toBe(200);
    expect(list.body.invoices.map((doc: { id: string }) => doc.id)).toEqual([reissued.body.id, note.body.id, invoice.body.id]);
  });

  it("answers 404 for another property's invoice, its file, its credit and its list", async () => {
    const invoice = await issue(toCompany(509));
    const other = world.token({ properties: [2] });
    expect((await get(`/fiscal-document/v1/invoices/${invoice.body.id}`, other, '2')).status).toBe(404);
    expect((await get(`/fiscal-document/v1/invoices/${invoice.body.id}/files/FACTURX`, other, '2')).status).toBe(404);
    const res = await request(world.url).post(`/fiscal-document/v1/invoices/${invoice.body.id}/credit-notes`).set('Authorization', `Bearer ${other}`).set('X-Property-Id', '2').send({ reason: 'x' });
    expect(res.status).toBe(404);
    expect((await get('/fiscal-document/v1/invoices?sourceKind=RESERVATION&sourceId=509', other, '2')).body).toEqual({ invoices: [] });
  });
});

describe('rendering', () => {
  it('a render that fails keeps its number, is retried to issued, and the next issue takes the next number; invoice.issued is delivered', async () => {
    const endpoint = await request(world.url).post('/webhooks/v1/endpoints').set('Authorization', `Bearer ${token}`).set('X-Property-Id', '1')
      .send({ url: receiver.url('/invoices'), events: ['invoice.issued', 'invoice.failed'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    receiver.register('/invoices', endpoint.body.secret);

    // The property's folder is a file: every write under it fails until it is a folder again.
    const folder = join(world.env.STORAGE_DIR!, 'fiscal', '1');
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(join(world.env.STORAGE_DIR!, 'fiscal'), { recursive: true });
    writeFileSync(folder, 'not a folder');
    const res = await issue(toCompany(510, { formats: ['CII'] }));
    expect(res.status).toBe(201);
    const failing = await until(async () => {
      const body = (await get(`/fiscal-document/v1/invoices/${res.body.id}`)).body;
      return body.error ? body : undefined;
    }, 20_000, 'a failed render attempt');
    expect(failing).toMatchObject({ status: 'issuing', number: res.body.number, error: 'The file could not be written to object storage. Attempt 1 of 5 failed; it will be retried.' });
    const early = await get(`/fiscal-document/v1/invoices/${res.body.id}/files/CII`);
    expect(early.status).toBe(409);
    expect(early.body.errorCode).toBe('INVOICE_NOT_READY');
    expect(early.headers['retry-after']).toBe('2');
    rmSync(folder);
    const done = await issued(res.body.id);
    expect(done.number).toBe(res.body.number);
    expect(done.error).toBeUndefined();

    const next = await issue(toCompany(507));
    expect(Number(next.body.number.slice(4))).toBe(Number(res.body.number.slice(4)) + 1);
    const delivered = await until(async () => receiver.at('/invoices').find((d) => d.body?.data.invoiceId === res.body.id), 20_000, 'invoice.issued delivered');
    expect(delivered.verified).toBe(true);
    expect(delivered.body).toMatchObject({ type: 'invoice.issued', data: { invoiceId: res.body.id, kind: 'INVOICE', number: res.body.number, propertyId: '1', status: 'issued' } });
  });
});

describe('rendering again', () => {
  it('renders a document again to the same bytes under the same keys', async () => {
    const res = await issue(toCompany(512, { formats: ['FACTURX', 'CII', 'UBL'] }));
    expect(res.status).toBe(201);
    await issued(res.body.id);
    const files = async () => (await world.pool.query<{ files: unknown }>('SELECT files FROM fiscal_documents WHERE id = $1', [res.body.id])).rows[0]!.files;
    const first = await files();
    // A second round of its render job, as the sweep queues one.
    await world.pool.query(`UPDATE fiscal_documents SET status = 'issuing', files = '{}', render_round = 1 WHERE id = $1`, [res.body.id]);
    const queue = new Queue(QUEUE_NAMES.export, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    try {
      await queue.add(renderFiscalDocumentJob.name, { version: 1, documentId: res.body.id, propertyId: '1', requestId: 'render-again' }, { jobId: renderJobId(res.body.id, 1) });
    } finally {
      await queue.close();
    }
    await issued(res.body.id);
    expect(await files()).toEqual(first);
  });

  it('the sweep queues what is issuing a minute after its issue and renders failed documents again, each in a new round', async () => {
    const stale = await issue(toCompany(513, { formats: ['CII'] }));
    const failed = await issue(toCompany(514, { formats: ['CII'] }));
    await issued(stale.body.id);
    await issued(failed.body.id);
    await world.pool.query(`UPDATE fiscal_documents SET status = 'issuing', issued_at = NULL WHERE id = $1`, [stale.body.id]);
    await world.pool.query(`UPDATE fiscal_documents SET status = 'failed', failed_at = now() - interval '1 hour' WHERE id = $1`, [failed.body.id]);
    // created_at is frozen: the sweep's staleness is read against a clock an hour ahead.
    const due = await documentsToRender(world.pool, -3600, 900);
    expect(due.filter((row) => [stale.body.id, failed.body.id].includes(row.id)).sort((a, b) => a.render_round - b.render_round)).toEqual([
      { id: stale.body.id, property_id: '1', render_round: 0 },
      { id: failed.body.id, property_id: '1', render_round: 1 },
    ]);
    const rows = await world.pool.query(`SELECT id, status, render_round FROM fiscal_documents WHERE id = ANY($1::uuid[]) ORDER BY render_round`, [[stale.body.id, failed.body.id]]);
    expect(rows.rows).toEqual([
      { id: stale.body.id, status: 'issuing', render_round: 0 },
      { id: failed.body.id, status: 'issuing', render_round: 1 },
    ]);
  });
});

describe('numbering under concurrent issues', () => {
  let second: TRunningApi;
  beforeAll(async () => {
    second = await startApi(world.config, world.logger, { port: 0 });
  });
  afterAll(async () => second?.close());

  it('gives 50 concurrent issues over two API processes 50 distinct consecutive numbers of a series of their own', { timeout: 60_000 }, async () => {
    const urls = [world.url, `http://127.0.0.1:${second.port}`];
    // As a careful client issues: one Idempotency-Key per invoice, and a 503 (the property's share of
    // the API's pool busy with its other 49 issues, which queue on the series' row) sent again after
    // its Retry-After with the same key. A replay must not take a second number.
    const issueUntilAnswered = async (i: number) => {
      const key = `race-${randomUUID()}`;
      for (let attempt = 1; ; attempt += 1) {
        const res = await issue(toCompany(601 + i, { series: 'RACE', formats: ['CII'] }), { 'Idempotency-Key': key }, urls[i % 2]);
        if (res.status !== 503 || attempt === 10) return res;
        expect(Number.isInteger(Number(res.headers['retry-after'])), `Retry-After: ${res.headers['retry-after']}`).toBe(true);
        await delay(Number(res.headers['retry-after']) * 1000);
      }
    };
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => issueUntilAnswered(i)));
    expect(answers.map((res) => res.status)).toEqual(Array(50).fill(201));
    expect(new Set(answers.map((res) => res.body.id)).size).toBe(50);
    const numbers = answers.map((res) => Number(res.body.number.slice('RACE-'.length))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const series = await world.pool.query(`SELECT last_number::int AS last FROM fiscal_series WHERE property_id = 1 AND series = 'RACE'`);
    expect(series.rows).toEqual([{ last: 50 }]);
  });
});

describe('the stored files of every ledger case pass the official validators', () => {
  const run = promisify(execFile);
  const ALL = ['FACTURX', 'CII', 'UBL'];
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fv-fiscal-e2e-'));
    const extras = frenchStayWithExtras(521);
    const german = germanLedger();
    for (const [propertyId, body] of [
      ['1', { property: SELLER_PROPERTY, folios: extras.folios, reservations: extras.reservations, transactions: extras.transactions }],
      ['3', german],
    ] as const) {
      const res = await request(world.url).post('/accounting/v1.0/import').set('Authorization', `Bearer ${token}`).set('X-Property-Id', propertyId).send(body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const file = async (id: string, format: string, propertyId: string) =>
    (await get(`/fiscal-document/v1/invoices/${id}/files/${format}`, token, propertyId).buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    })).body as Buffer;

  /** Every validator's failures of the document's CII and UBL, and whether the Factur-X PDF's factur-x.xml is the CII byte for byte. */
  async function verdict(id: string, propertyId: string) {
    await issued(id, propertyId);
    const cii = await file(id, 'CII', propertyId);
    const ubl = await file(id, 'UBL', propertyId);
    const pdf = join(dir, `${id}.pdf`);
    writeFileSync(pdf, await file(id, 'FACTURX', propertyId));
    const attached = join(dir, `${id}.xml`);
    const { stdout: list } = await run('pdfdetach', ['-list', pdf]);
    expect(list.trim().split('\n')).toEqual(['1 embedded files', '1: factur-x.xml']);
    await run('pdfdetach', ['-save', '1', '-o', attached, pdf]);
    const failures = [...validateAll(cii.toString('utf8')), ...validateAll(ubl.toString('utf8'))].filter((v) => v.failures.length > 0);
    return { failures: failures.map((v) => ({ validator: v.validator, rules: v.failures.map((f) => f.rule) })), attachmentIsCii: readFileSync(attached).equals(cii) };
  }

  it.each([
    ['a French stay (city tax, card deposit, void chain) in French, and its credit note', '1', { ...toCompany(520, { formats: ALL }) }, 'fr', true],
    ['a French stay with a VAT-inclusive breakfast and US dollar cash, in Spanish', '1', { ...toCompany(521, { formats: ALL }) }, 'es', false],
    ['a German split folio: the rooms to the company, in German', '3', { sourceKind: 'RESERVATION', sourceId: 530, folioIds: ['5300'], recipient: { type: 'COMPANY', id: GERMAN_COMPANY.id }, formats: ALL }, 'de', false],
    ['the German split folio: the extras to the guest, in English', '3', { sourceKind: 'RESERVATION', sourceId: 530, folioIds: ['5301'], recipient: { type: 'GUEST', id: GERMAN_GUEST.id }, formats: ALL }, 'en', false],
    ['a German house account with per-line rounding, in Portuguese, and its credit note', '3', { sourceKind: 'HOUSE_ACCOUNT', sourceId: 540, recipient: { type: 'COMPANY', id: GERMAN_COMPANY.id }, formats: ALL }, 'pt', true],
  ] as const)('%s', { timeout: 60_000 }, async (_name, propertyId, body, language, withCreditNote) => {
    const invoice = await issue(body, { 'Accept-Language': language }, world.url, propertyId);
    expect(invoice.status, JSON.stringify(invoice.body)).toBe(201);
    expect(await verdict(invoice.body.id, propertyId)).toEqual({ failures: [], attachmentIsCii: true });
    if (!withCreditNote) return;
    const note = await credit(invoice.body.id, 'Erreur de destinataire', propertyId);
    expect(note.status, JSON.stringify(note.body)).toBe(201);
    expect(await verdict(note.body.id, propertyId)).toEqual({ failures: [], attachmentIsCii: true });
  });

  it('freezes the totals each case states (the German house account: BT-114 carries the cent)', async () => {
    const list = await get('/fiscal-document/v1/invoices?sourceKind=HOUSE_ACCOUNT&sourceId=540', token, '3');
    expect(list.body.invoices.map((doc: { kind: string; totals: unknown }) => [doc.kind, doc.totals])).toEqual([
      ['CREDIT_NOTE', { net: '7.50', vat: '1.43', gross: '8.93', prepaid: '0.00', rounding: '0.01', due: '8.94' }],
      ['INVOICE', { net: '7.50', vat: '1.43', gross: '8.93', prepaid: '8.94', rounding: '0.01', due: '0.00' }],
    ]);
    const split = await get('/fiscal-document/v1/invoices?sourceKind=RESERVATION&sourceId=530', token, '3');
    expect(split.body.invoices.map((doc: { folioIds: string[]; totals: unknown }) => [doc.folioIds, doc.totals])).toEqual([
      // Minibar 8.00 + 1.52 beside; the bar's 12.00 holds 1.92 (10.08 net): 18.08 × 19 % = 3.44.
      [['5301'], { net: '18.08', vat: '3.44', gross: '21.52', prepaid: '0.00', rounding: '0.00', due: '21.52' }],
      // Rooms 200.00 + 14.00 beside; breakfast 15.00 holds 0.98 (14.02 net): 214.02 × 7 % = 14.98.
      [['5300'], { net: '214.02', vat: '14.98', gross: '229.00', prepaid: '50.00', rounding: '0.00', due: '179.00' }],
    ]);
    const extras = await get('/fiscal-document/v1/invoices?sourceKind=RESERVATION&sourceId=521', token, '1');
    expect(extras.body.invoices[0].totals).toEqual({ net: '331.00', vat: '33.00', gross: '364.00', prepaid: '150.00', rounding: '0.00', due: '214.00' });
  });
});
