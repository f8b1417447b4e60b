import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, generatedPan } from '@folio-vault/test-kit/cards';
import { deleteToken, FORWARD_SCOPE, tokenize } from './support/forward.js';
import { postImport } from './support/ledger-fixture.js';
import { spawnTs } from '@folio-vault/test-kit/processes';
import { createWorld, type TWorld } from './support/world.js';

// A ledger payment's cardTokenId (docs/ledger.md#card-payments), with a real worker: the API asks
// the vault workers (card-token-labels job) whether the id is a current token of the property, test
// or live, and copies its brand code and last four into the payment when the import left them out.
// Any other id refuses the whole request. ledger:import does the same reading the vault tables.
// Property 1 holds the tokens and the accepted imports; property 3 only receives refused ones.

let world: TWorld;
let token: string;
let scratch: string;
const tokens = { visa: '', master: '', otherProperty: '', deleted: '', live: '', liveLast4: '' };

beforeAll(async () => {
  world = await createWorld();
  token = world.token({ properties: [1, 2, 3], scope: FORWARD_SCOPE });
  scratch = mkdtempSync(join(tmpdir(), 'fv-ledger-cards-'));
  tokens.visa = await tokenize(world, cardBody());
  tokens.master = await tokenize(world, cardBody({ card_number: '5555555555554444' }));
  tokens.otherProperty = await tokenize(world, cardBody({ card_number: '378282246310005', cvv: '1234' }), { property: '2' });
  tokens.deleted = await tokenize(world, cardBody({ card_number: '4012888888881881' }));
  expect((await deleteToken(world, tokens.deleted)).status).toBe(204);
  const livePan = generatedPan('52', 16);
  tokens.live = await tokenize(world, cardBody({ card_number: livePan }), { test: false });
  tokens.liveLast4 = livePan.slice(-4);
});
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await world?.close();
});

const reservation = (id: string) => ({ id, guestName: 'Sara Ryder', status: 'checked_out', checkinDate: '2026-03-09', checkoutDate: '2026-03-12' });
const folio = (id: string, sourceId: string) => ({ id, sourceKind: 'RESERVATION', sourceId, name: 'Guest folio' });
const cardPayment = (id: string, folioId: string, sourceId: string, payment: Record<string, unknown>) => ({
  id,
  folioId,
  sourceKind: 'RESERVATION',
  sourceId,
  transactionDatetime: '2026-03-12T10:00:00Z',
  serviceDate: '2026-03-12',
  internalTransactionCode: 'PAY',
  internalCodeGroup: 'PAYMENT',
  description: 'Card payment',
  quantity: '1',
  amount: '-120.00',
  currency: 'EUR',
  posted: true,
  payment: { paymentId: `9${id}`, transactionType: 'Purchase', ...payment },
});

async function storedPayments(propertyId: number, ids: string[]) {
  const result = await world.pool.query('SELECT id::text, payment FROM transactions WHERE property_id = $1 AND id = ANY($2::bigint[]) ORDER BY id', [propertyId, ids]);
  return result.rows;
}

/** Rows of a request's reservation, folio and transactions in a property. */
async function written(propertyId: number, reservationId: string, folioId: string, transactionIds: string[]) {
  const result = await world.pool.query(
    `SELECT (SELECT count(*)::int FROM reservations WHERE property_id = $1 AND id = $2) AS reservations,
            (SELECT count(*)::int FROM folios WHERE property_id = $1 AND id = $3) AS folios,
            (SELECT count(*)::int FROM transactions WHERE property_id = $1 AND id = ANY($4::bigint[])) AS transactions`,
    [propertyId, reservationId, folioId, transactionIds],
  );
  return result.rows[0];
}
const NOTHING = { reservations: 0, folios: 0, transactions: 0 };

describe('the API: a payment names a vault token of the property', () => {
  it("fills creditCardType and cardTrailingDigits from the token's brand and last four", async () => {
    const res = await postImport(world, token, 1, {
      reservations: [reservation('5001')],
      folios: [folio('101', '5001')],
      transactions: [cardPayment('1', '101', '5001', { cardTokenId: tokens.visa }), cardPayment('2', '101', '5001', { cardTokenId: tokens.master, transactionType: 'Capture' })],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ property: 0, recipients: 0, reservations: 1, users: 0, folios: 1, transactions: 2 });
    expect(await storedPayments(1, ['1', '2'])).toEqual([
      { id: '1', payment: { paymentId: '91', transactionType: 'Purchase', cardTokenId: tokens.visa, creditCardType: 'visa', cardTrailingDigits: '1111' } },
      { id: '2', payment: { paymentId: '92', transactionType: 'Capture', cardTokenId: tokens.master, creditCardType: 'master', cardTrailingDigits: '4444' } },
    ]);
  });

  it('keeps the creditCardType and cardTrailingDigits the import gives', async () => {
    const res = await postImport(world, token, 1, {
      transactions: [
        cardPayment('3', '101', '5001', { cardTokenId: tokens.visa, creditCardType: 'visa_debit' }),
        cardPayment('4', '101', '5001', { cardTokenId: tokens.visa, creditCardType: 'electron', cardTrailingDigits: '0000' }),
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await storedPayments(1, ['3', '4'])).toEqual([
      { id: '3', payment: { paymentId: '93', transactionType: 'Purchase', cardTokenId: tokens.visa, creditCardType: 'visa_debit', cardTrailingDigits: '1111' } },
      { id: '4', payment: { paymentId: '94', transactionType: 'Purchase', cardTokenId: tokens.visa, creditCardType: 'electron', cardTrailingDigits: '0000' } },
    ]);
  });

  it("takes a live-mode token of the property (a payment's token may be of either mode)", async () => {
    const res = await postImport(world, token, 1, { transactions: [cardPayment('5', '101', '5001', { cardTokenId: tokens.live })] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await storedPayments(1, ['5'])).toEqual([
      { id: '5', payment: { paymentId: '95', transactionType: 'Purchase', cardTokenId: tokens.live, creditCardType: 'master', cardTrailingDigits: tokens.liveLast4 } },
    ]);
  });
});

describe('the API: the same token in other spellings and on a re-run', () => {
  it('takes a token id written in upper case and stores it as the vault writes it', async () => {
    const res = await postImport(world, token, 1, { transactions: [cardPayment('6', '101', '5001', { cardTokenId: tokens.master.toUpperCase() })] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await storedPayments(1, ['6'])).toEqual([
      { id: '6', payment: { paymentId: '96', transactionType: 'Purchase', cardTokenId: tokens.master, creditCardType: 'master', cardTrailingDigits: '4444' } },
    ]);
  });

  it('re-imports a payment whose token was deleted since, keeping the card the first import copied', async () => {
    const gone = await tokenize(world, cardBody({ card_number: '4000056655665556' }));
    const first = await postImport(world, token, 1, { transactions: [cardPayment('7', '101', '5001', { cardTokenId: gone })] });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await deleteToken(world, gone)).status).toBe(204);
    const again = await postImport(world, token, 1, { transactions: [cardPayment('7', '101', '5001', { cardTokenId: gone }), cardPayment('8', '101', '5001', { cardTokenId: gone })] });
    // Transaction 8 never carried the token: for it the deleted token is unknown.
    expect(again.status).toBe(400);
    expect(again.body.fieldErrors).toEqual([{ path: 'transactions.1.payment.cardTokenId', message: 'is not a current card token of this property' }]);
    const rerun = await postImport(world, token, 1, { transactions: [cardPayment('7', '101', '5001', { cardTokenId: gone, transactionType: 'Capture' })] });
    expect(rerun.status, JSON.stringify(rerun.body)).toBe(200);
    expect(await storedPayments(1, ['7', '8'])).toEqual([
      { id: '7', payment: { paymentId: '97', transactionType: 'Capture', cardTokenId: gone, creditCardType: 'visa', cardTrailingDigits: '5556' } },
    ]);
  });
});

describe('the API refuses any other id, and writes nothing of the request', () => {
  it.each([
    ['a token of another property', () => tokens.otherProperty],
    ['a deleted token of the property', () => tokens.deleted],
    ['a UUID the vault never issued', () => '0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b'],
  ])('%s: 400 at transactions.N.payment.cardTokenId', async (_name, tokenId) => {
    const res = await postImport(world, token, 1, {
      reservations: [reservation('6001')],
      folios: [folio('601', '6001')],
      transactions: [cardPayment('601', '601', '6001', { cardTokenId: tokens.visa }), cardPayment('602', '601', '6001', { cardTokenId: tokenId() })],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(res.body.fieldErrors).toEqual([{ path: 'transactions.1.payment.cardTokenId', message: 'is not a current card token of this property' }]);
    expect(res.body.errorDetails).toBe('transactions.1.payment.cardTokenId: is not a current card token of this property.');
    expect(await written(1, '6001', '601', ['601', '602'])).toEqual(NOTHING);
  });

  it("refuses a token of property 1 imported for property 3, naming each payment and how many more", async () => {
    const res = await postImport(world, token, 3, {
      reservations: [reservation('7001')],
      folios: [folio('701', '7001')],
      transactions: [cardPayment('701', '701', '7001', { cardTokenId: tokens.visa }), cardPayment('702', '701', '7001', { cardTokenId: tokens.live })],
    });
    expect(res.status).toBe(400);
    expect(res.body.fieldErrors.map((error: { path: string }) => error.path)).toEqual(['transactions.0.payment.cardTokenId', 'transactions.1.payment.cardTokenId']);
    expect(res.body.errorDetails).toBe('transactions.0.payment.cardTokenId: is not a current card token of this property (and 1 more field error).');
    expect(await written(3, '7001', '701', ['701', '702'])).toEqual(NOTHING);
  });
});

describe('ledger:import', () => {
  const run = async (lines: object[]) => {
    const file = join(scratch, `import-${Math.random().toString(36).slice(2)}.ndjson`);
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const spawned = spawnTs('scripts/ledger-import.ts', ['--property', '1', file], world.env);
    return { code: await spawned.exited, output: spawned.output() };
  };

  it('imports NDJSON reservations, users and a card payment, labelled from the vault tables', async () => {
    const { code, output } = await run([
      { reservation: { ...reservation('8001'), rooms: [{ id: '8101', roomName: '301' }] } },
      { user: { id: '55', firstName: 'Night', lastName: 'Auditor' } },
      { folio: folio('801', '8001') },
      { transaction: { ...cardPayment('801', '801', '8001', { cardTokenId: tokens.master }), userId: '55' } },
    ]);
    expect(code, output).toBe(0);
    expect(output).toContain('imported for property 1: 0 property, 0 recipients, 1 reservations, 1 users, 1 folios, 1 transactions');
    expect(await storedPayments(1, ['801'])).toEqual([
      { id: '801', payment: { paymentId: '9801', transactionType: 'Purchase', cardTokenId: tokens.master, creditCardType: 'master', cardTrailingDigits: '4444' } },
    ]);
    const stay = await world.pool.query(
      `SELECT r.guest_name, m.room_name, u.first_name FROM reservations r JOIN reservation_rooms m ON m.property_id = r.property_id AND m.reservation_id = r.id
         JOIN users u ON u.property_id = r.property_id AND u.id = '55' WHERE r.property_id = 1 AND r.id = 8001`,
    );
    expect(stay.rows).toEqual([{ guest_name: 'Sara Ryder', room_name: '301', first_name: 'Night' }]);
  });

  it('takes reservations and users in a JSON document too', async () => {
    const file = join(scratch, 'document.json');
    writeFileSync(file, JSON.stringify({ reservations: [reservation('8501')], users: [{ id: '56', firstName: 'Front', lastName: 'Desk' }], transactions: [] }));
    const spawned = spawnTs('scripts/ledger-import.ts', ['--property', '1', file], world.env);
    expect(await spawned.exited, spawned.output()).toBe(0);
    expect(spawned.output()).toContain('imported for property 1: 0 property, 0 recipients, 1 reservations, 1 users, 0 folios, 0 transactions');
    const rows = await world.pool.query("SELECT (SELECT count(*)::int FROM reservations WHERE property_id = 1 AND id = 8501) AS r, (SELECT count(*)::int FROM users WHERE property_id = 1 AND id = '56') AS u");
    expect(rows.rows).toEqual([{ r: 1, u: 1 }]);
  });

  it('refuses a deleted token, naming its line, and writes nothing of the batch', async () => {
    const { code, output } = await run([
      { reservation: reservation('9001') },
      { folio: folio('901', '9001') },
      { transaction: cardPayment('901', '901', '9001', { cardTokenId: tokens.deleted }) },
    ]);
    expect(code, output).toBe(1);
    expect(output).toContain('ledger:import: line 3 (transaction) payment.cardTokenId: is not a current card token of this property');
    expect(await written(1, '9001', '901', ['901'])).toEqual(NOTHING);
  });
});
