import type { TDocumentRow, TFolioDocument } from '@folio-vault/shared/exports/folio-document';

/**
 * The small document a render process draws once before it takes work (render-child.ts), and the
 * worker plans once before it takes jobs (RenderPool.warm): the first real export then finds code
 * loaded and compiled, fonts registered and shaped, instead of paying for it (docs/export.md#flow).
 * It touches the paths a folio takes: void and pending rows, a room, a card, a foreign amount,
 * notes, page breaks, a join of two chunks, and the Latin letters, digits and signs of a ledger's
 * texts. A few hundred rows, not a few: the code a long table runs is compiled to its fast form only
 * after it has run a while, and a first large export would otherwise pay for that (about 3× slower).
 */
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

function warmUpRow(i: number): TDocumentRow {
  return {
    id: String(i + 1),
    transactionDatetime: new Date(Date.UTC(2026, 0, 1 + (i % 5), 8 + (i % 12), i % 60)).toISOString(),
    serviceDate: `2026-01-0${1 + (i % 5)}`,
    code: String(1000 + (i % 7) * 100),
    description: `${TEXTS[i % TEXTS.length]!} ${i}`,
    ...(i % 9 === 3 ? { notes: 'Posted to the wrong room' } : {}),
    quantity: '1',
    amount: i % 5 === 4 ? '-120.00' : '18.50',
    voided: i % 13 === 6,
    pending: i % 17 === 8,
    ...(i % 3 === 0 ? { room: '204' } : {}),
    ...(i % 5 === 4 ? { card: { brand: 'visa', lastFour: '1111' } } : {}),
    ...(i % 11 === 10 ? { foreign: { amount: '-20.00', currency: 'USD' } } : {}),
  };
}

export function warmUpDocument(): TFolioDocument {
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
        sections: [{ kind: 'all', rows: Array.from({ length: WARM_UP_ROWS }, (_, i) => warmUpRow(i)) }],
        totals: { charges: '1036.00', payments: '-1680.00', balance: '-644.00' },
      },
    ],
  };
}
