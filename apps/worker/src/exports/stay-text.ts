// Texts both writers show the same way about the stay and the payments (docs/export.md): the stay
// block's values ("20/11/2026", "3 nights", "101 · Double Deluxe", "2 adults, 1 child",
// "Checked out"), a payment's card ("Visa •••• 1111") and a foreign tender ("-108,50 US$").

import type { TDocumentCard, TDocumentStay, TForeignAmount } from '@folio-vault/shared/exports/folio-document';
import type { TLabel, TTranslate } from '@folio-vault/shared/i18n/catalog';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import type { TLanguage } from '@folio-vault/shared/i18n/languages';
import { countLabel } from '@folio-vault/shared/i18n/source-catalog';
import { RESERVATION_STATUSES } from '@folio-vault/shared/ledger/enums';

/** Display names of the brand codes the ledger imports; any other code shows as given, capitalised. */
const BRAND_NAMES: Readonly<Record<string, string>> = {
  visa: 'Visa',
  master: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
  maestro: 'Maestro',
};

export function brandName(code: string): string {
  return BRAND_NAMES[code] ?? `${code.charAt(0).toUpperCase()}${code.slice(1)}`;
}

/** "Visa •••• 1111"; just the brand when the last four are unknown. */
export function cardText(card: TDocumentCard): string {
  const brand = brandName(card.brand);
  return card.lastFour ? `${brand} •••• ${card.lastFour}` : brand;
}

/** The tendered amount in its own currency, in the document's language. */
export function foreignText(foreign: TForeignAmount, fmt: Pick<TFormatters, 'foreignMoney'>): string {
  return fmt.foreignMoney(foreign.amount, foreign.currency);
}

/** Each value of the stay block, in the document's language; absent parts are undefined. */
export interface TStayTexts {
  guest: string;
  arrival: string;
  departure: string;
  nights: string;
  /** "Room" or "Rooms", as many as listed. */
  roomsLabel: string;
  rooms?: string;
  guests?: string;
  status: string;
}

export function stayTexts(stay: TDocumentStay, language: TLanguage, t: TTranslate, fmt: Pick<TFormatters, 'date'>): TStayTexts {
  const count = (label: Parameters<typeof countLabel>[1], n: number) => t(countLabel(language, label, n), { count: n });
  // Zero adults or children says nothing a reader needs: only the counts above zero are named.
  const guests = [
    ...(stay.adults ? [count('stay.adults', stay.adults)] : []),
    ...(stay.children ? [count('stay.children', stay.children)] : []),
  ];
  const rooms = stay.rooms.map((room) => (room.type ? `${room.name} · ${room.type}` : room.name));
  const known = (RESERVATION_STATUSES as readonly string[]).includes(stay.status);
  return {
    guest: stay.guestName,
    arrival: fmt.date(stay.checkinDate),
    departure: fmt.date(stay.checkoutDate),
    nights: count('stay.nights', stay.nights),
    roomsLabel: t(countLabel(language, 'stay.rooms', Math.max(rooms.length, 1))),
    ...(rooms.length ? { rooms: rooms.join(', ') } : {}),
    ...(guests.length ? { guests: guests.join(', ') } : {}),
    status: known ? t(`stay.status.${stay.status}` as TLabel) : stay.status,
  };
}

/**
 * The stay block as lines of text (the PDF's block, docs/export.md#what-the-pdf-shows):
 *   Guest: Maria Gómez
 *   Arrival: 20/11/2026 · Departure: 23/11/2026 · 3 nights
 *   Rooms: 101 · Double Deluxe, 102 · Single
 *   Guests: 2 adults, 1 child · Status: Checked out
 * Absent rooms or guests leave their part out (the status line stays).
 */
export function stayLines(texts: TStayTexts, t: TTranslate): { guest: string; dates: string; rooms?: string; people: string } {
  const lv = (label: string, value: string) => t('labelValue', { label, value });
  const people = [...(texts.guests ? [lv(t('stay.guests'), texts.guests)] : []), lv(t('column.status'), texts.status)];
  return {
    guest: lv(t('stay.guest'), texts.guest),
    dates: [lv(t('stay.arrival'), texts.arrival), lv(t('stay.departure'), texts.departure), texts.nights].join(' · '),
    ...(texts.rooms ? { rooms: lv(texts.roomsLabel, texts.rooms) } : {}),
    people: people.join(' · '),
  };
}
