// Imports a stream of records (from an NDJSON or JSON file, or the demo generator) in batches of
// BATCH_SIZE, each batch validated whole and written in one transaction. Upserts make a re-run of
// the same file safe after a failure part-way.

import type { TPgPool } from '../connections.js';
import { AppError } from '../errors.js';
import { ZImportRequest } from './schemas.js';
import { importLedger, importProblems, type TCardTokenResolver, type TImportCounts } from './import-ledger.js';

/** The kind of a ledger record, as an NDJSON line names it. */
export type TLedgerKind = 'property' | 'recipient' | 'reservation' | 'user' | 'folio' | 'transaction';
export const LEDGER_KINDS: readonly TLedgerKind[] = ['property', 'recipient', 'reservation', 'user', 'folio', 'transaction'];
export interface TLedgerRecord {
  kind: TLedgerKind;
  value: unknown;
  /** Where the record came from (e.g. "line 12"), for error messages. */
  origin: string;
}

export const BATCH_SIZE = 10_000;

export const emptyCounts = (): TImportCounts => ({ property: 0, recipients: 0, reservations: 0, users: 0, folios: 0, transactions: 0 });

/** The resolver of a caller without a vault: no id is a token, so a payment naming one is refused. */
const NO_CARD_TOKENS: TCardTokenResolver = async () => new Map();

export class BatchImportError extends Error {
  constructor(
    readonly problems: string[],
    readonly imported: TImportCounts,
  ) {
    super(`import stopped: ${problems.length} problem(s) in a batch; ${imported.transactions} transactions were imported before it`);
    this.name = 'BatchImportError';
  }
}

type TListName = 'recipients' | 'reservations' | 'users' | 'folios' | 'transactions';
const LIST_OF: Record<Exclude<TLedgerKind, 'property'>, TListName> = {
  recipient: 'recipients',
  reservation: 'reservations',
  user: 'users',
  folio: 'folios',
  transaction: 'transactions',
};

export async function importRecords(
  pool: TPgPool,
  propertyId: string,
  records: AsyncIterable<TLedgerRecord> | Iterable<TLedgerRecord>,
  onBatch: (counts: TImportCounts) => void = () => undefined,
  /** Checks and labels the payments' card tokens (docs/ledger.md#card-payments); without it, a cardTokenId is refused. */
  cardTokens: TCardTokenResolver = NO_CARD_TOKENS,
): Promise<TImportCounts> {
  const total = emptyCounts();
  let batch: TLedgerRecord[] = [];

  const flush = async () => {
    if (batch.length === 0) return;
    const body: Record<string, unknown> = { recipients: [], reservations: [], users: [], folios: [], transactions: [] };
    const origins: Record<string, string[]> = { property: [], recipients: [], reservations: [], users: [], folios: [], transactions: [] };
    for (const record of batch) {
      if (record.kind === 'property') {
        body.property = record.value;
        origins.property = [record.origin];
      } else {
        (body[LIST_OF[record.kind]] as unknown[]).push(record.value);
        origins[LIST_OF[record.kind]]!.push(record.origin);
      }
    }
    // "transactions.3.amount" → "line 1204 (transaction) amount: …"
    const where = (path: PropertyKey[]) => {
      const [list, index, ...rest] = path.map(String);
      const origin = list === 'property' ? origins.property![0] : origins[list ?? '']?.[Number(index)];
      const field = list === 'property' ? [index, ...rest].filter(Boolean).join('.') : rest.join('.');
      return `${origin ?? list} ${field || '(record)'}`.trim();
    };
    const parsed = ZImportRequest.safeParse(body);
    if (!parsed.success) {
      throw new BatchImportError(parsed.error.issues.slice(0, 50).map((issue) => `${where(issue.path)}: ${issue.message}`), total);
    }
    const problems = await importProblems(propertyId, parsed.data);
    if (problems.length > 0) {
      throw new BatchImportError(problems.slice(0, 50).map((p) => `${where(p.path.split('.'))}: ${p.message}`), total);
    }
    try {
      const counts = await importLedger(pool, propertyId, parsed.data, cardTokens);
      for (const key of Object.keys(total) as Array<keyof TImportCounts>) total[key] += counts[key];
    } catch (error) {
      // The card tokens' field errors, with the lines they came from.
      if (error instanceof AppError && error.fieldErrors?.length) {
        throw new BatchImportError(error.fieldErrors.slice(0, 50).map((p) => `${where(p.path.split('.'))}: ${p.message}`), total);
      }
      if (error instanceof AppError) throw new BatchImportError([error.message], total);
      throw error;
    }
    batch = [];
    onBatch(total);
  };

  for await (const record of records) {
    batch.push(record);
    if (batch.length >= BATCH_SIZE) await flush();
  }
  await flush();
  return total;
}

/** Records of a demo or API-shaped document, in dependency order. */
export function* recordsOfDocument(document: {
  property?: unknown;
  recipients?: unknown[];
  reservations?: unknown[];
  users?: unknown[];
  folios?: unknown[];
  transactions?: unknown[];
}): Generator<TLedgerRecord> {
  if (document.property) yield { kind: 'property', value: document.property, origin: 'property' };
  const lists = [
    ['recipient', document.recipients], ['reservation', document.reservations], ['user', document.users],
    ['folio', document.folios], ['transaction', document.transactions],
  ] as const;
  for (const [kind, list] of lists) {
    for (const [index, value] of (list ?? []).entries()) yield { kind, value, origin: `${kind} ${index}` };
  }
}
