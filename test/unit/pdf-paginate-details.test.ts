import { describe, expect, it } from 'vitest';
import type { TDocumentRow, TDocumentStay } from '@folio-vault/shared/exports/folio-document';
import {
  FIRST_PAGE_ROWS,
  FIRST_PAGE_ROWS_WITH_RECIPIENT,
  FIRST_PAGE_ROWS_WITH_STAY,
  PAGE_SLOTS,
  RECIPIENT_SLOTS,
  ROWS_PER_PAGE,
  STAY_SLOTS,
  pageSlots,
  paginate,
  rowSlots,
  type TPagination,
} from '@folio-vault/worker/exports/pdf/paginate';
import { documentFolio, documentRow, documentRows, folioDocument } from '@folio-vault/test-kit/folio-document';

/**
 * paginate() with the stay block (a fixed STAY_SLOTS off the first page) and rows that carry a
 * detail line (a payment's card or foreign tender: two slots): no page overflows, every row once.
 */
const STAY: TDocumentStay = { guestName: 'Maria Gómez', checkinDate: '2026-11-20', checkoutDate: '2026-11-23', nights: 3, rooms: [{ name: '101' }], status: 'checked_in' };
const RECIPIENT = { type: 'GUEST', name: 'Anna Petrova', taxLabel: 'taxId', taxNumber: 'B1' } as const;

const rowsOnPage = (pagination: TPagination, index: number) =>
  pagination.pages[index]!.blocks.reduce((n, block) => n + (block.kind === 'rows' ? block.rows.length : 0), 0);

function checkInvariants(rows: TDocumentRow[], pagination: TPagination): void {
  for (const page of pagination.pages) expect(pageSlots(page)).toBeLessThanOrEqual(PAGE_SLOTS);
  const shown = pagination.pages.flatMap((page) => page.blocks.flatMap((block) => (block.kind === 'rows' ? block.rows.map((r) => r.row.id) : [])));
  expect(shown).toEqual(rows.map((row) => row.id));
  expect(pagination.rows).toBe(rows.length);
}

const paid = (index: number): TDocumentRow => documentRow(index, { amount: '-10.00', card: { brand: 'visa', lastFour: '1111' } });

describe('the stay block takes a fixed part of the first page', () => {
  it('puts the block under the header and leaves FIRST_PAGE_ROWS_WITH_STAY rows on the first page', () => {
    expect(FIRST_PAGE_ROWS_WITH_STAY).toBe(FIRST_PAGE_ROWS - STAY_SLOTS);
    const rows = documentRows(200);
    const pagination = paginate(folioDocument({ stay: STAY, folios: [documentFolio('1', rows)] }));
    checkInvariants(rows, pagination);
    expect(pagination.pages[0]!.blocks.slice(0, 3).map((block) => block.kind)).toEqual(['header', 'stay', 'folioHeading']);
    expect(rowsOnPage(pagination, 0)).toBe(FIRST_PAGE_ROWS_WITH_STAY);
    expect(rowsOnPage(pagination, 1)).toBe(ROWS_PER_PAGE);
    expect(pagination.pages.slice(1).every((page) => page.blocks.every((block) => block.kind !== 'stay'))).toBe(true);
  });

  it('with a recipient too, takes both blocks off the first page', () => {
    const rows = documentRows(100);
    const pagination = paginate(folioDocument({ stay: STAY, recipient: RECIPIENT, folios: [documentFolio('1', rows)] }));
    checkInvariants(rows, pagination);
    expect(pagination.pages[0]!.blocks.slice(0, 4).map((block) => block.kind)).toEqual(['header', 'stay', 'recipient', 'folioHeading']);
    expect(rowsOnPage(pagination, 0)).toBe(FIRST_PAGE_ROWS_WITH_RECIPIENT - STAY_SLOTS);
    expect(rowsOnPage(pagination, 0)).toBe(FIRST_PAGE_ROWS_WITH_STAY - RECIPIENT_SLOTS);
  });
});

describe('rows with a detail line', () => {
  it('take two slots: a card, a foreign tender or both; a plain row one', () => {
    expect(rowSlots(documentRow(0))).toBe(1);
    expect(rowSlots(paid(0))).toBe(2);
    expect(rowSlots(documentRow(0, { foreign: { amount: '-10.00', currency: 'USD' } }))).toBe(2);
  });

  it('fill a page by slots: half as many payment rows as plain rows fit', () => {
    const rows = Array.from({ length: 300 }, (_, i) => paid(i));
    const pagination = paginate(folioDocument({ folios: [documentFolio('1', rows)] }));
    checkInvariants(rows, pagination);
    expect(rowsOnPage(pagination, 0)).toBe(Math.floor(FIRST_PAGE_ROWS / 2));
    expect(rowsOnPage(pagination, 1)).toBe(ROWS_PER_PAGE / 2);
  });

  it('never split: a payment row that does not fit the last slot starts the next page', () => {
    // FIRST_PAGE_ROWS − 1 plain rows leave one slot: the payment row after them goes over.
    const rows = [...documentRows(FIRST_PAGE_ROWS - 1), paid(FIRST_PAGE_ROWS - 1), ...documentRows(5, FIRST_PAGE_ROWS)];
    const pagination = paginate(folioDocument({ folios: [documentFolio('1', rows)] }));
    checkInvariants(rows, pagination);
    expect(rowsOnPage(pagination, 0)).toBe(FIRST_PAGE_ROWS - 1);
    expect(pageSlots(pagination.pages[0]!)).toBe(PAGE_SLOTS - 1);
    const secondPage = pagination.pages[1]!.blocks.find((block) => block.kind === 'rows');
    expect(secondPage?.kind === 'rows' ? secondPage.rows[0]!.row.id : undefined).toBe(paid(FIRST_PAGE_ROWS - 1).id);
  });

  it('keeps a 20,000-row folio with a stay and mixed rows within every page', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => (i % 5 === 0 ? paid(i) : documentRow(i)));
    const pagination = paginate(folioDocument({ stay: STAY, recipient: RECIPIENT, folios: [documentFolio('1', rows)] }));
    checkInvariants(rows, pagination);
    const slots = rows.reduce((sum, row) => sum + rowSlots(row), 0);
    // Every page but the last is full to within one slot (a payment row that did not fit).
    for (const page of pagination.pages.slice(1, -1)) expect(pageSlots(page)).toBeGreaterThanOrEqual(PAGE_SLOTS - 1);
    expect(pagination.pages.length).toBeGreaterThanOrEqual(Math.ceil(slots / ROWS_PER_PAGE));
  });
});

describe('a section heading keeps its first row', () => {
  it('moves the credits heading to the next page when its first row (a card payment, two slots) does not fit under it', () => {
    // Sweep the debits' length so the credits heading lands on every slot near the page's foot.
    for (let debits = 40; debits <= 60; debits += 1) {
      const debitRows = documentRows(debits);
      const creditRows = [paid(1000), paid(1001), paid(1002)];
      const folio = documentFolio('1', [], {
        sections: [
          { kind: 'debits', rows: debitRows, subtotal: '1.00' },
          { kind: 'credits', rows: creditRows, subtotal: '-30.00' },
        ],
      });
      const pagination = paginate(folioDocument({ folios: [folio] }));
      for (const page of pagination.pages) {
        page.blocks.forEach((block, index) => {
          if (block.kind === 'sectionHeading' && !block.continued) expect(page.blocks[index + 1]?.kind, `${debits} debit rows, page ${page.number}`).toBe('rows');
        });
        expect(pageSlots(page)).toBeLessThanOrEqual(PAGE_SLOTS);
      }
    }
  });
});
