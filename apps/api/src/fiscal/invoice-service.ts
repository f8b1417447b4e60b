// The API's side of fiscal documents (docs/fiscal-documents.md): issue an invoice from a source's
// folios, credit an invoice, read them and their files. Issuing and crediting are each one plain
// transaction on the property's share of the pool: lock the series row, take the next number, build
// the frozen document from the ledger (packages/shared/src/fiscal/from-ledger.ts), store it and
// lock its transactions; commit; then queue its render. A transaction that fails gives its number
// back, so numbers have no gap; the render never takes one. With tracing on, the numbered
// transaction is a span (`invoice issue`, `credit note issue`: the series, formats and the number
// taken) and the document's derivation from the ledger another (`invoice validation`: the rows read
// and the items missing); never the buyer, the seller or an amount (docs/operations.md#tracing).

import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Queue } from 'bullmq';
import { v7 as uuidv7 } from 'uuid';
import type { PoolClient } from 'pg';
import type { PropertyShares } from '@folio-vault/shared/db/property-share';
import { inTransaction } from '@folio-vault/shared/db/transaction';
import { AppError, type TFieldError } from '@folio-vault/shared/errors';
import type { TFiscalFormat } from '@folio-vault/shared/fiscal/document-model';
import {
  findByIdempotencyKey, findDocument, insertDocument, listBySource, liveLocks, releaseTransactions, takeNextNumber, type TFiscalDocumentRow,
} from '@folio-vault/shared/fiscal/fiscal-store';
import { creditNoteOf, invoiceFromLedger, type TCardDigits, type TInvoiceLedgerRow } from '@folio-vault/shared/fiscal/from-ledger';
import { renderFiscalDocumentJob, renderJobId } from '@folio-vault/shared/fiscal/render-fiscal-document-job';
import type { TInvoiceBody, TIssueInvoiceRequest } from '@folio-vault/shared/fiscal/schemas';
import { localDate } from '@folio-vault/shared/i18n/format';
import { LANGUAGES, negotiateLanguage, type TLanguage } from '@folio-vault/shared/i18n/languages';
import { cardTokenIdsOfFolios, findRecipientParty, folioIdsOfSource, invoiceRowsOfFolios, type TInvoiceRowRecord } from '@folio-vault/shared/ledger/ledger-store';
import type { TSourceKind } from '@folio-vault/shared/ledger/enums';
import { findStay } from '@folio-vault/shared/ledger/stay-store';
import type { Logger } from '@folio-vault/shared/logger';
import { findPropertyProfile, findPropertySeller } from '@folio-vault/shared/properties/property-store';
import { ObjectMissingError, type ObjectStorage } from '@folio-vault/shared/storage/object-storage';
import { inSpan, spanFailed, type Span } from '@folio-vault/shared/tracing/spans';
import type { JobWaiter } from '../jobs/job-waiter.js';
import type { VaultClient } from '../vault/vault-client.js';

/** At most this many documents in a source's list (newest first). */
export const LIST_LIMIT = 100;
/** How many transactions an ALREADY_INVOICED answer names before it counts the rest. */
const NAMED_TRANSACTIONS = 20;

const FILE_TYPES: Record<TFiscalFormat, { contentType: string; suffix: string }> = {
  FACTURX: { contentType: 'application/pdf', suffix: '.pdf' },
  CII: { contentType: 'application/xml', suffix: '-cii.xml' },
  UBL: { contentType: 'application/xml', suffix: '-ubl.xml' },
};

/** The issue's span names the document it numbered. */
function numberedIn(span: Span, row: TFiscalDocumentRow): TFiscalDocumentRow {
  span.setAttributes({ 'folio.invoice.id': row.id, 'folio.invoice.number': row.number });
  return row;
}

/** The validation's span counts what is missing (their paths are the answer's, not the span's). */
function validated<T extends object>(span: Span, derived: T): T {
  if ('problems' in derived && Array.isArray(derived.problems)) {
    span.setAttribute('folio.invoice.missing', derived.problems.length);
    spanFailed(span, 'INVOICE_DATA_INCOMPLETE');
  }
  return derived;
}

export const invoicePath = (id: string) => `/fiscal-document/v1/invoices/${id}`;
export const invoiceFilePath = (id: string, format: TFiscalFormat) => `${invoicePath(id)}/files/${format}`;

/** What an issue is told besides its body. */
export interface TIssueContext {
  idempotencyKey?: string;
  acceptLanguage?: string;
  requestId: string;
  /** How long the answer may wait for the files (Prefer: wait=N); 0: not at all. */
  waitMs?: number;
}

/** The invoice answered, and whether it is the replay of an earlier issue with the same Idempotency-Key. */
export interface TIssued {
  invoice: TInvoiceBody;
  replayed: boolean;
}

/** The answer of a stored document (docs/fiscal-documents.md#answers). */
export function invoiceBody(row: TFiscalDocumentRow): TInvoiceBody {
  const document = row.document;
  return {
    id: row.id,
    kind: row.kind,
    number: row.number,
    series: row.series,
    issueDate: document.issueDate,
    ...(document.dueDate ? { dueDate: document.dueDate } : {}),
    currency: document.currency,
    sourceKind: document.source.kind,
    sourceId: document.source.id,
    folioIds: document.source.folioIds,
    buyer: document.buyer,
    totals: {
      net: document.totals.net,
      vat: document.totals.vat,
      gross: document.totals.gross,
      prepaid: document.totals.prepaid,
      rounding: document.totals.rounding,
      due: document.totals.due,
    },
    vatBreakdown: document.vatBreakdown,
    status: row.status,
    ...(row.error && row.status !== 'issued' ? { error: row.error } : {}),
    files: Object.fromEntries(row.formats.map((format) => [format, invoiceFilePath(row.id, format)])),
    ...(row.credits && row.credits_number ? { creditedInvoice: { id: row.credits, number: row.credits_number } } : {}),
    ...(row.credit_note_id && row.credit_note_number ? { creditNote: { id: row.credit_note_id, number: row.credit_note_number } } : {}),
    createdAt: row.created_at.toISOString(),
    ...(row.issued_at ? { issuedAt: row.issued_at.toISOString() } : {}),
  };
}

/** A PostgreSQL unique violation of one index. */
const violates = (error: unknown, constraint: string) =>
  (error as { code?: unknown }).code === '23505' && (error as { constraint?: unknown }).constraint === constraint;

/** 409 ALREADY_INVOICED naming the transactions and the invoices they are on. */
function alreadyInvoiced(locks: Array<{ transaction_id: string; number: string }>): AppError {
  const named = locks.slice(0, NAMED_TRANSACTIONS).map((lock) => lock.transaction_id).join(', ');
  const more = locks.length > NAMED_TRANSACTIONS ? ` and ${locks.length - NAMED_TRANSACTIONS} more` : '';
  const invoices = [...new Set(locks.map((lock) => lock.number))].join(', ');
  return new AppError(
    'ALREADY_INVOICED',
    `Transactions ${named}${more} are already on invoice ${invoices}; credit ${invoices.includes(',') ? 'those invoices' : 'it'} first, or invoice other folios.`,
  );
}

export class InvoiceService {
  constructor(
    /** The API's pool, within each property's share (db/property-share.ts). */
    private readonly shares: PropertyShares,
    /** The export queue: renders are the front desk's, beside on-demand exports. */
    private readonly queue: Queue,
    /** The export queue's waiter: an answer that waits for the files waits for the render job. */
    private readonly waiter: JobWaiter,
    private readonly storage: ObjectStorage,
    /** Asked for the first six and last four of the payments' card tokens (card-token-labels). */
    private readonly vault: Pick<VaultClient, 'cardLabels'>,
    private readonly logger: Logger,
  ) {}

  /**
   * Issues an invoice (docs/fiscal-documents.md#issuing): 404 for an unknown source, folio or
   * recipient; 422 INVOICE_DATA_INCOMPLETE with every missing item; 409 ALREADY_INVOICED naming the
   * transactions on a live invoice; a replay of an Idempotency-Key answers the invoice it made.
   */
  async issue(propertyId: string, request: TIssueInvoiceRequest, context: TIssueContext): Promise<TIssued> {
    const db = this.shares.of(propertyId);
    const language = namedLanguage(context.acceptLanguage);
    const digest = createHash('sha256').update(JSON.stringify({ request, language: language ?? null })).digest('base64url');
    const replay = async (): Promise<TIssued | undefined> => {
      if (!context.idempotencyKey) return undefined;
      const earlier = await findByIdempotencyKey(db, propertyId, context.idempotencyKey);
      if (!earlier) return undefined;
      if (earlier.request_digest !== digest) throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with another request; use a new key for a new invoice.');
      return { invoice: invoiceBody(earlier), replayed: true };
    };
    const earlier = await replay();
    if (earlier) return earlier;

    const folioIds = await this.foliosToInvoice(propertyId, request);
    if (!(await findRecipientParty(db, propertyId, request.recipient.type, request.recipient.id))) throw AppError.notFound('The recipient');
    const cards = await this.cardsOf(propertyId, folioIds, context.requestId);

    const id = uuidv7();
    let issued: TFiscalDocumentRow;
    const attributes = { 'folio.property_id': propertyId, 'folio.invoice.series': request.series, 'folio.invoice.formats': request.formats, 'folio.invoice.folios': folioIds.length };
    try {
      issued = await inSpan('invoice issue', attributes, async (span) => numberedIn(span, await inTransaction(db, async (client) => {
        const sequence = await takeNextNumber(client, propertyId, request.series);
        // Another issue with this key may have committed while this one waited for the series.
        if (context.idempotencyKey && (await findByIdempotencyKey(client, propertyId, context.idempotencyKey))) throw new KeyTaken();
        const rows = await invoiceRowsOfFolios(client, propertyId, folioIds);
        const locks = await liveLocks(client, propertyId, rows.map((row) => row.id));
        if (locks.length > 0) throw alreadyInvoiced(locks);
        const { document, transactionIds } = await this.build(client, propertyId, { id, request, rows, folioIds, cards, sequence, language });
        await insertDocument(
          client,
          { document, propertyId, sequence, recipient: request.recipient, formats: request.formats, idempotencyKey: context.idempotencyKey, requestDigest: digest },
          transactionIds,
        );
        return (await findDocument(client, propertyId, id))!;
      })));
    } catch (error) {
      // Raced: another issue (of another series) locked some of these transactions, or used the key.
      if (error instanceof KeyTaken || violates(error, 'fiscal_documents_by_idempotency_key')) {
        const answered = await replay();
        if (answered) return answered;
      }
      if (violates(error, 'fiscal_document_transactions_live')) {
        const rows = await invoiceRowsOfFolios(db, propertyId, folioIds);
        throw alreadyInvoiced(await liveLocks(db, propertyId, rows.map((row) => row.id)));
      }
      throw error;
    }
    return { invoice: invoiceBody(await this.render(propertyId, issued, context.requestId, context.waitMs ?? 0)), replayed: false };
  }

  /**
   * Credits an invoice whole (docs/fiscal-documents.md#credit-notes): its own number in the series
   * `<series>-CN`, its transactions free to be invoiced again. 404 for an unknown invoice (or a
   * credit note), 409 ALREADY_CREDITED for one credited before.
   */
  async credit(propertyId: string, invoiceId: string, reason: string, requestId: string, waitMs = 0): Promise<TInvoiceBody> {
    const db = this.shares.of(propertyId);
    const profile = await findPropertyProfile(db, propertyId);
    const issueDate = localDate(new Date(), profile?.timezone ?? 'UTC');
    const id = uuidv7();
    const found = await findDocument(db, propertyId, invoiceId);
    if (!found || found.kind !== 'INVOICE') throw AppError.notFound('The invoice');
    const series = `${found.series}-CN`;
    const attributes = { 'folio.property_id': propertyId, 'folio.invoice.series': series, 'folio.invoice.credits': invoiceId };
    const credited = await inSpan('credit note issue', attributes, async (span) => numberedIn(span, await inTransaction(db, async (client) => {
      // Credits of the invoice take its credit series in turn: the one after the first finds it credited.
      const sequence = await takeNextNumber(client, propertyId, series);
      const invoice = (await findDocument(client, propertyId, invoiceId))!;
      if (invoice.credit_note_id) throw new AppError('ALREADY_CREDITED', `Invoice ${invoice.number} is already credited by ${invoice.credit_note_number ?? 'a credit note'}.`);
      const document = creditNoteOf(invoice.document, { id, series, number: `${series}-${sequence}`, issueDate, reason });
      const recipient = { type: invoice.recipient_type, id: invoice.recipient_id };
      await insertDocument(client, { document, propertyId, sequence, recipient, credits: invoice.id, formats: invoice.formats }, []);
      await releaseTransactions(client, invoice.id);
      return (await findDocument(client, propertyId, id))!;
    })));
    return invoiceBody(await this.render(propertyId, credited, requestId, waitMs));
  }

  async find(propertyId: string, id: string): Promise<TFiscalDocumentRow> {
    const row = await findDocument(this.shares.of(propertyId), propertyId, id);
    if (!row) throw AppError.notFound('The invoice');
    return row;
  }

  async list(propertyId: string, sourceKind: TSourceKind, sourceId: string): Promise<TInvoiceBody[]> {
    return (await listBySource(this.shares.of(propertyId), propertyId, sourceKind, sourceId, LIST_LIMIT)).map(invoiceBody);
  }

  /** A stored file: 404 for a format not requested, 409 INVOICE_NOT_READY until the document is issued. */
  async file(row: TFiscalDocumentRow, format: TFiscalFormat): Promise<{ stream: Readable; size: number; contentType: string; filename: string }> {
    if (!row.formats.includes(format)) throw AppError.notFound(`The ${format} file of this invoice`);
    const stored = row.files[format];
    if (row.status !== 'issued' || !stored) {
      const why = row.status === 'failed' ? 'its render failed and is tried again' : 'it is being rendered';
      throw new AppError('INVOICE_NOT_READY', `The ${format} file of ${row.number} is not stored yet: ${why}.`, { retryAfterSeconds: 2 });
    }
    const type = FILE_TYPES[format];
    try {
      return { stream: await this.storage.get(stored.key), size: stored.size, contentType: type.contentType, filename: `${row.number}${type.suffix}` };
    } catch (error) {
      if (error instanceof ObjectMissingError) throw new AppError('UNEXPECTED_ERROR', 'An issued file is missing from the file store; it has been logged.', { cause: error });
      throw AppError.unavailable('The file store cannot be reached right now; retry shortly.').withCause(error);
    }
  }

  /** The folios an issue covers, in the request's order (all of the source's, by id, when it names none); 404 for any other. */
  private async foliosToInvoice(propertyId: string, request: TIssueInvoiceRequest): Promise<string[]> {
    const ofSource = await folioIdsOfSource(this.shares.of(propertyId), propertyId, request.sourceKind, request.sourceId);
    if (ofSource.length === 0) throw AppError.notFound('The source');
    if (!request.folioIds) return ofSource;
    if (request.folioIds.some((id) => !ofSource.includes(id))) throw AppError.notFound('A folio of this source');
    return request.folioIds;
  }

  private async cardsOf(propertyId: string, folioIds: string[], requestId: string): Promise<Map<string, TCardDigits>> {
    const tokenIds = await cardTokenIdsOfFolios(this.shares.of(propertyId), propertyId, folioIds);
    if (tokenIds.length === 0) return new Map();
    // A token deleted or expired since is missing: its payment shows the ledger's last four.
    const labels = await this.vault.cardLabels(propertyId, tokenIds, requestId);
    return new Map([...labels].map(([id, label]) => [id, { last4: label.cardTrailingDigits, ...(label.first6 ? { first6: label.first6 } : {}) }]));
  }

  /** The frozen document from what the ledger holds now, in the issue's transaction; 422 with every missing item. */
  private async build(
    client: PoolClient,
    propertyId: string,
    issue: {
      id: string;
      request: TIssueInvoiceRequest;
      rows: TInvoiceRowRecord[];
      folioIds: string[];
      cards: Map<string, TCardDigits>;
      sequence: number;
      language: TLanguage | undefined;
    },
  ) {
    const { request, rows } = issue;
    const property = await findPropertySeller(client, propertyId);
    const recipient = await findRecipientParty(client, propertyId, request.recipient.type, request.recipient.id);
    if (!property) {
      throw incomplete([{ path: 'property', message: 'is required: import the property (its currency, address, VAT id and taxes) before issuing' }]);
    }
    if (!recipient) throw AppError.notFound('The recipient');
    const stay = request.sourceKind === 'RESERVATION' ? await findStay(client, propertyId, request.sourceId) : undefined;
    const issuedAt = new Date();
    const identifier = sourceIdentifierOf(rows, stay?.identifier);
    const derived = await inSpan('invoice validation', { 'folio.invoice.rows': rows.length }, async (span) => validated(span, invoiceFromLedger({
      facts: {
        id: issue.id,
        series: request.series,
        number: `${request.series}-${issue.sequence}`,
        issueDate: request.issueDate ?? localDate(issuedAt, property.timezone),
        ...(request.dueDate ? { dueDate: request.dueDate } : {}),
        language: issue.language ?? languageOf(property.language),
        ...(request.note ? { note: request.note } : {}),
        issuedAt,
        source: { kind: request.sourceKind, id: request.sourceId, ...(identifier ? { identifier } : {}), folioIds: issue.folioIds },
        ...(stay ? { stay: { checkinDate: stay.checkin_date, checkoutDate: stay.checkout_date, guestName: stay.guest_name } } : {}),
      },
      seller: {
        name: property.name,
        ...(property.legal_name ? { legalName: property.legal_name } : {}),
        ...(property.vat_id ? { vatId: property.vat_id } : {}),
        ...(property.tax_id ? { taxId: property.tax_id } : {}),
        ...(property.company_id ? { companyId: property.company_id } : {}),
        ...(property.postal_address ? { postalAddress: property.postal_address } : {}),
        ...(property.iban ? { iban: property.iban } : {}),
        ...(property.electronic_address ? { electronicAddress: property.electronic_address } : {}),
        ...(property.phone ? { phone: property.phone } : {}),
        ...(property.email ? { email: property.email } : {}),
        currency: property.currency,
        taxes: property.taxes ?? [],
      },
      buyer: {
        name: recipient.name,
        ...(recipient.vat_id ? { vatId: recipient.vat_id } : {}),
        ...(recipient.company_id ? { companyId: recipient.company_id } : {}),
        ...(recipient.postal_address ? { postalAddress: recipient.postal_address } : {}),
        ...(recipient.electronic_address ? { electronicAddress: recipient.electronic_address } : {}),
        ...(recipient.email ? { email: recipient.email } : {}),
      },
      rows: rows.map(ledgerRowOf),
      cards: issue.cards,
    })));
    if ('problems' in derived) throw incomplete(derived.problems);
    return derived;
  }

  /**
   * Queues the render of a committed document and answers it: as committed, or, given `waitMs`, as
   * it stands once its render job has ended (the files stored, or its last attempt failed: BullMQ
   * says `failed` only then, a retried attempt is `delayed`) or `waitMs` has passed, whichever is
   * first. The wait listens before the job is added, so a render faster than the answer is not missed.
   */
  private async render(propertyId: string, row: TFiscalDocumentRow, requestId: string, waitMs: number): Promise<TFiscalDocumentRow> {
    if (waitMs <= 0) {
      await this.enqueueRender(propertyId, row.id, requestId);
      return row;
    }
    await this.waiter.wait(renderJobId(row.id, 0), waitMs, () => this.enqueueRender(propertyId, row.id, requestId));
    return (await findDocument(this.shares.of(propertyId), propertyId, row.id)) ?? row;
  }

  /**
   * Queues the render of a committed document. When the queue cannot take it now the document stays
   * issuing and the render sweep queues it (FISCAL_SWEEP_SECONDS): the issue has happened either way.
   */
  private async enqueueRender(propertyId: string, documentId: string, requestId: string): Promise<void> {
    try {
      await this.queue.add(renderFiscalDocumentJob.name, { version: 1, documentId, propertyId, requestId }, { ...renderFiscalDocumentJob.options, jobId: renderJobId(documentId, 0) });
    } catch (error) {
      this.logger.warn({ err: { message: (error as Error).message }, documentId }, 'fiscal document render not queued; the render sweep will');
    }
  }
}

/** Thrown in an issue's transaction when its Idempotency-Key was taken meanwhile: the issue answers that invoice. */
class KeyTaken extends Error {}

function incomplete(problems: TFieldError[]): AppError {
  const first = problems[0]!;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more missing item${problems.length === 2 ? '' : 's'})` : '';
  return new AppError('INVOICE_DATA_INCOMPLETE', `The ledger lacks what the invoice needs: ${first.path} ${first.message.replace(/[.\s]+$/, '')}${more}.`, { fieldErrors: problems });
}

/**
 * The document's language as Accept-Language asks for it, when the header names one of the five
 * (`*`, which fetch sends by default, or only other languages, leave it to the property's).
 */
function namedLanguage(header: string | undefined): TLanguage | undefined {
  if (!header) return undefined;
  const tags = header.split(',').map((part) => part.trim().split(';')[0]!.trim().toLowerCase().split('-')[0]!);
  return tags.some((tag) => (LANGUAGES as readonly string[]).includes(tag)) ? negotiateLanguage(header) : undefined;
}

function languageOf(value: string | null): TLanguage {
  return value && (LANGUAGES as readonly string[]).includes(value) ? (value as TLanguage) : 'en';
}

/** The reservation's identifier, else the source identifier a transaction carries. */
function sourceIdentifierOf(rows: TInvoiceRowRecord[], identifier: string | null | undefined): string | undefined {
  return identifier ?? rows.find((row) => row.source_identifier)?.source_identifier ?? undefined;
}

function ledgerRowOf(row: TInvoiceRowRecord): TInvoiceLedgerRow {
  return {
    id: row.id,
    folioId: row.folio_id,
    transactionDatetime: row.transaction_datetime.toISOString(),
    serviceDate: row.service_date,
    group: row.internal_code_group,
    description: row.description,
    ...(row.notes ? { notes: row.notes } : {}),
    quantity: row.quantity,
    amount: row.amount,
    currency: row.currency,
    posted: row.posted,
    chainVoided: row.chain_voided,
    ...(row.parent_id ? { parentId: row.parent_id } : {}),
    ...(row.origin_id ? { originId: row.origin_id } : {}),
    ...(row.payment_method ? { paymentMethod: row.payment_method } : {}),
    ...(row.vat ? { vat: row.vat } : {}),
    ...(row.payment ? { payment: row.payment } : {}),
  };
}
