import { describe, expect, it } from 'vitest';
import type { TDocumentStay } from '@folio-vault/shared/exports/folio-document';
import { translator } from '@folio-vault/shared/i18n/catalog';
import { formatters } from '@folio-vault/shared/i18n/format';
import { LANGUAGES, type TLanguage } from '@folio-vault/shared/i18n/languages';
import { SOURCE_CATALOGS } from '@folio-vault/shared/i18n/source-catalog';
import { RESERVATION_STATUSES } from '@folio-vault/shared/ledger/enums';
import { brandName, cardText, foreignText, stayTexts } from '@folio-vault/worker/exports/stay-text';

/**
 * The texts of the stay block, the card and the foreign tender (apps/worker/src/exports/stay-text.ts)
 * in every export language: exact strings, plural forms, every status translated.
 */
const STAY: TDocumentStay = {
  guestName: 'Maria Gómez',
  checkinDate: '2026-11-20',
  checkoutDate: '2026-11-21',
  nights: 1,
  rooms: [{ name: '101', type: 'Double Deluxe' }],
  adults: 1,
  status: 'no_show',
};

const texts = (language: TLanguage, stay: TDocumentStay = STAY) =>
  stayTexts(stay, language, translator(language), formatters(language, 'Europe/Madrid', 'EUR'));

describe('stay texts', () => {
  it.each<[TLanguage, { nights: [string, string, string]; room: string; guests: [string, string]; status: string }]>([
    ['en', { nights: ['0 nights', '1 night', '2 nights'], room: 'Room', guests: ['1 adult', '3 adults, 2 children'], status: 'No-show' }],
    ['es', { nights: ['0 noches', '1 noche', '2 noches'], room: 'Habitación', guests: ['1 adulto', '3 adultos, 2 niños'], status: 'No presentado' }],
    ['pt', { nights: ['0 noites', '1 noite', '2 noites'], room: 'Quarto', guests: ['1 adulto', '3 adultos, 2 crianças'], status: 'Não comparência' }],
    ['fr', { nights: ['0 nuit', '1 nuit', '2 nuits'], room: 'Chambre', guests: ['1 adulte', '3 adultes, 2 enfants'], status: 'Non présenté' }],
    ['de', { nights: ['0 Nächte', '1 Nacht', '2 Nächte'], room: 'Zimmer', guests: ['1 Erwachsener', '3 Erwachsene, 2 Kinder'], status: 'Nicht angereist' }],
  ])('pluralises nights and guests and names the status in %s', (language, expected) => {
    expect([0, 1, 2].map((nights) => texts(language, { ...STAY, nights }).nights)).toEqual(expected.nights);
    const one = texts(language);
    expect(one).toMatchObject({ guest: 'Maria Gómez', roomsLabel: expected.room, rooms: '101 · Double Deluxe', guests: expected.guests[0], status: expected.status });
    expect(texts(language, { ...STAY, adults: 3, children: 2 }).guests).toBe(expected.guests[1]);
  });

  it('leaves out unknown or zero guest counts, an empty room list, and joins several rooms', () => {
    expect(texts('en', { ...STAY, adults: undefined, children: 1 }).guests).toBe('1 child');
    expect(texts('en', { ...STAY, adults: 0, children: 0 }).guests).toBeUndefined();
    expect(texts('en', { ...STAY, rooms: [] }).rooms).toBeUndefined();
    const two = texts('en', { ...STAY, rooms: [{ name: '101', type: 'Double Deluxe' }, { name: '102' }] });
    expect([two.roomsLabel, two.rooms]).toEqual(['Rooms', '101 · Double Deluxe, 102']);
  });

  it('translates every reservation status in every language, and no new label is left in English', () => {
    const english = SOURCE_CATALOGS.en;
    const expectedEnglish = ['Checked out', 'Checked in', 'Confirmed', 'Canceled', 'Not confirmed', 'Inquiry', 'Deleted', 'No-show'];
    expect(RESERVATION_STATUSES.map((status) => texts('en', { ...STAY, status }).status)).toEqual(expectedEnglish);
    for (const language of LANGUAGES.filter((l) => l !== 'en')) {
      const catalog = SOURCE_CATALOGS[language];
      const same = (Object.keys(english) as Array<keyof typeof english>).filter((label) => catalog[label] === english[label]);
      expect(same, language).toEqual([]);
      const statuses = RESERVATION_STATUSES.map((status) => texts(language, { ...STAY, status }).status);
      expect(new Set(statuses).size, language).toBe(RESERVATION_STATUSES.length);
    }
  });
});

describe('card and foreign tender', () => {
  it('names the brands, with the last four when known', () => {
    expect(['visa', 'master', 'amex', 'discover', 'diners', 'jcb', 'unionpay', 'maestro', 'elo'].map(brandName)).toEqual([
      'Visa',
      'Mastercard',
      'American Express',
      'Discover',
      'Diners Club',
      'JCB',
      'UnionPay',
      'Maestro',
      'Elo',
    ]);
    expect(cardText({ brand: 'visa', lastFour: '1111' })).toBe('Visa •••• 1111');
    expect(cardText({ brand: 'amex' })).toBe('American Express');
  });

  it.each<[TLanguage, string]>([
    ['en', '-US$108.50'],
    ['es', '-108,50 US$'],
    ['pt', '-108,50 US$'],
    ['fr', '-108,50 $US'],
    ['de', '-108,50 $'],
  ])('formats a foreign tender in %s', (language, expected) => {
    const fmt = formatters(language, 'Europe/Madrid', 'EUR');
    expect(foreignText({ amount: '-108.50', currency: 'USD' }, fmt).replace(/[\u00a0\u202f]/g, ' ')).toBe(expected);
  });
});
