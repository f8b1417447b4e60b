// The document a render process draws before it takes work (render-child.ts), and the worker
// plans once before it takes jobs (RenderPool.warm): the first real export then finds code loaded
// and compiled, fonts registered and shaped, instead of paying for it (docs/export.md#flow).
// It touches the paths a folio takes: void and pending rows, a room, a card, a foreign amount,
// notes, page breaks, a join of two chunks, and the Latin letters, digits and signs of a ledger's
// texts. A few hundred rows, not a few: the code a long table runs is compiled to its fast form only
// after it has run a while, and a first large export would otherwise pay for that.
//
// Each pass sets texts no earlier pass set (`pass`): times, amounts and numbers that differ row by
// row, as a real folio's do, so the shaping code (fontkit's GSUB/GPOS lookups) runs on the kinds
// of text a real export brings.

import type { TDocumentRow, TFolioDocument } from '@folio-vault/shared/exports/folio-document';

/** A few hundred rows: enough for the long-table code to reach its compiled form. */
const WARM_UP_ROWS = 400;

/** The argument that asks a render process to warm up before its first piece (RenderPool.warm). */
export const WARM_UP_FLAG = '--warm-up';
/**
 * `--rss-limit=<bytes>`: the RSS past which the pool replaces a render process, which collects its
 * garbage first (render-child.ts, settleMemory). Here beside WARM_UP_FLAG because render-pool.ts
 * may load this module but not render-child.ts, whose top level is a render process's own work.
 */
export const RSS_LIMIT_FLAG = '--rss-limit=';
const TEXTS = [
  'Room — nightly rate',
  'VAT 10%',
  'Breakfast buffet',
  'Minibar — sparkling water',
  'Card payment',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789',
  'Café, Müller, São João, Niño, Øresund, Åland: ()/&+-*#@!?;.,\'"',
];

/** 37 minutes apart: a different time of day on every row, a new day every 39 rows. */
const ROW_SPACING_MS = 37 * 60_000;
const FIRST_ROW_MS = Date.UTC(2026, 0, 1, 8);

/** Row `i` of the warm-up document; `n` numbers it across passes, so no two passes share a text. */
function warmUpRow(i: number, n: number): TDocumentRow {
  const when = new Date(FIRST_ROW_MS + n * ROW_SPACING_MS).toISOString();
  const cents = 150 + ((n * 7919) % 49_850);
  return {
    id: String(n + 1),
    transactionDatetime: when,
    serviceDate: when.slice(0, 10),
    code: String(1000 + (i % 7) * 100),
    description: `${TEXTS[i % TEXTS.length]!} ${n}`,
    ...(i % 9 === 3 ? { notes: 'Posted to the wrong room' } : {}),
    quantity: String(1 + (i % 3)),
    amount: `${i % 5 === 4 ? '-' : ''}${(cents / 100).toFixed(2)}`,
    voided: i % 13 === 6,
    pending: i % 17 === 8,
    ...(i % 3 === 0 ? { room: String(101 + (n % 240)) } : {}),
    ...(i % 5 === 4 ? { card: { brand: 'visa', lastFour: '1111' } } : {}),
    ...(i % 11 === 10 ? { foreign: { amount: `-${(cents / 90).toFixed(2)}`, currency: 'USD' } } : {}),
  };
}

/** The warm-up document of pass `pass` (0 first): the same layout, texts of its own. */
export function warmUpDocument(pass = 0): TFolioDocument {
  return {
    language: 'en',
    generatedAt: '2026-01-06T12:00:00.000Z',
    timezone: 'Europe/Madrid',
    currency: 'EUR',
    property: { name: 'Warm-up Hotel', address: 'Calle Mayor 5, 28013 Madrid' },
    source: { kind: 'RESERVATION', id: '1', identifier: 'RES-1' },
    stay: { guestName: 'Anna Petrova', checkinDate: '2026-01-01', checkoutDate: '2026-01-06', nights: 5, rooms: [{ name: '204', type: 'Double' }], adults: 2, status: 'checked_out' },
    filters: { includeVoided: true, descriptionFilters: [], subSourceIds: [], creditDebitView: false, revenueCompact: false },
    folios: [
      {
        id: '1',
        name: 'Main folio',
        sections: [{ kind: 'all', rows: Array.from({ length: WARM_UP_ROWS }, (_, i) => warmUpRow(i, pass * WARM_UP_ROWS + i)) }],
        totals: { charges: '1036.00', payments: '-1680.00', balance: '-644.00' },
      },
    ],
  };
}
