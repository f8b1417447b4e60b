import { openConnections, type TPgPool } from '@folio-vault/shared/connections';
import { ZExportFolioPayload } from '@folio-vault/shared/exports/export-folio-job';
import { ZFolioExportRequest } from '@folio-vault/shared/exports/schemas';
import type { Logger } from '@folio-vault/shared/logger';
import type { TCodeGroup } from '@folio-vault/shared/ledger/schemas';
import { sourceExists } from '@folio-vault/shared/ledger/ledger-store';
import { buildFolioDocument } from '../exports/build-document.js';
import { buildFolioSections, compactRevenue, documentTotals, type TLedgerRow } from '../exports/folio-math.js';
import { planFolioPdf } from '../exports/pdf/plan.js';
import { warmUpDocument } from '../exports/render-warm-up.js';

/**
 * The worker process's side of an export, run once before the worker takes jobs (worker.ts), while
 * its render processes warm up: the first export then finds PostgreSQL connections open and its
 * main-process code (request schemas, ledger reads, folio sums, page planning) loaded and compiled,
 * instead of paying for it. Read-only: the ledger reads ask for a source no property has (the
 * largest int64 id), so they read nothing; no row is written, nothing stored, no job queued. In
 * `npm start`'s one process the API runs the same schema and ledger code, and finds it warm too.
 *
 * Bounded (WARM_UP_BOUND_MS) and never fatal: with PostgreSQL down or slow the worker starts as
 * it would without it, and the first export pays what is left.
 */
export const WARM_UP_BOUND_MS = 2_000;
/** Connections opened at start: an export's independent reads go together (build-document.ts). */
export const WARM_UP_CONNECTIONS = 4;
/**
 * Page planning passes over the warm-up document: one left a first 1,000-row export planning in
 * about 3× the time of a warm one; V8 compiles the planning code to its fast form only after a few.
 */
const PLAN_PASSES = 4;
const NO_SUCH_ID = '9223372036854775807';
const NO_SUCH_UUID = '00000000-0000-7000-8000-000000000000';
const GROUPS: TCodeGroup[] = ['ROOM_REVENUE_RATE', 'TAX', 'ITEM_SERVICE', 'FEE', 'PAYMENT', 'ADDON'];

export interface TWarmUpOutcome {
  ms: number;
  /** Why a step gave up, when one did (logged; the worker starts all the same). */
  error?: string;
  timedOut: boolean;
}

function ledgerRows(count: number): TLedgerRow[] {
  return warmUpDocument()
    .folios[0]!.sections[0]!.rows.slice(0, count)
    .map((row, i) => ({
      ...row,
      folioId: '1',
      group: GROUPS[i % GROUPS.length]!,
      amount: GROUPS[i % GROUPS.length] === 'PAYMENT' ? '-120.00' : row.amount.replace('-', ''),
      posted: !row.pending,
      isVoid: row.voided && i % 2 === 0,
      chainVoided: row.voided,
      rootId: row.voided && i % 2 === 0 ? String(i) : row.id,
      ...(row.voided && i % 2 === 0 ? { parentId: String(i) } : {}),
    }));
}

/** The pure steps of a document: request and payload schemas, folio sums and sections, page plans. */
function warmDocumentCode(): void {
  const request = ZFolioExportRequest.parse({ sourceKind: 'RESERVATION', sourceId: NO_SUCH_ID, format: 'PDF' });
  ZExportFolioPayload.parse({ version: 1, exportId: NO_SUCH_UUID, propertyId: NO_SUCH_ID, language: 'en', request, requestId: 'warm-up' });
  const rows = ledgerRows(400);
  for (const creditDebitView of [false, true]) {
    buildFolioSections(rows, creditDebitView);
    buildFolioSections(compactRevenue(rows, (room) => `Room ${room ?? '—'}`), creditDebitView);
  }
  documentTotals(rows);
  const document = warmUpDocument();
  for (let pass = 0; pass < PLAN_PASSES; pass += 1) planFolioPdf(document);
}

/** Connections, then the ledger reads of an export (of nothing), as a job would make them. */
async function warmLedgerReads(pool: TPgPool): Promise<void> {
  await openConnections(pool, WARM_UP_CONNECTIONS);
  const request = ZFolioExportRequest.parse({ sourceKind: 'RESERVATION', sourceId: NO_SUCH_ID });
  await Promise.all([
    sourceExists(pool, NO_SUCH_ID, request.sourceKind, request.sourceId),
    buildFolioDocument(pool, NO_SUCH_ID, 'en', request, new Date()),
  ]);
}

/**
 * Runs the warm-up; resolves within `boundMs` whatever happens, with how it went. A step still
 * running then goes on in the background and its outcome is dropped.
 */
export async function warmExportPath(pool: TPgPool, boundMs = WARM_UP_BOUND_MS): Promise<TWarmUpOutcome> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), boundMs);
  });
  const work = (async () => {
    // The reads go first: their round trips overlap the pure steps' CPU.
    const reads = warmLedgerReads(pool);
    warmDocumentCode();
    await reads;
  })().then(
    () => undefined,
    (error: unknown) => (error as Error).message ?? String(error),
  );
  try {
    const outcome = await Promise.race([work, bound]);
    const ms = Math.round(performance.now() - started);
    if (outcome === 'timed out') return { ms, timedOut: true };
    return { ms, timedOut: false, ...(outcome ? { error: outcome } : {}) };
  } finally {
    clearTimeout(timer);
  }
}

/** warmExportPath, its outcome logged: what worker.ts awaits before it takes jobs. */
export async function warmExportPathLogged(pool: TPgPool, logger: Logger): Promise<void> {
  const outcome = await warmExportPath(pool);
  if (outcome.timedOut) logger.warn({ ms: outcome.ms }, 'export path warm-up cut short: the first export pays the rest');
  else if (outcome.error) logger.warn({ ms: outcome.ms, err: { message: outcome.error } }, 'export path warm-up failed: the first export pays the rest');
  else logger.info({ ms: outcome.ms }, 'export path warm');
}
