// Labels of what the document says about its source — the source's kind, and for a reservation
// the stay block (guest, dates, nights, rooms, guests, status) and the payments' card and foreign
// tender columns — in each language, merged into catalog.ts's catalogs (kept apart so neither file
// outgrows its concern). Counted words come in a `.one` and an `.other` form, picked by
// `countLabel` with the language's plural rules (Intl.PluralRules: French says "0 nuit",
// Portuguese "0 noites").

import { LOCALES } from './format.js';
import type { TLanguage } from './languages.js';

const en = {
  'source.RESERVATION': 'Reservation',
  'source.HOUSE_ACCOUNT': 'House account',
  'source.GROUP_PROFILE': 'Group profile',
  'source.ACCOUNTS_RECEIVABLE_LEDGER': 'Accounts receivable ledger',
  'stay.guest': 'Guest',
  'stay.arrival': 'Arrival',
  'stay.departure': 'Departure',
  'stay.nightsLabel': 'Nights',
  'stay.nights.one': '{count} night',
  'stay.nights.other': '{count} nights',
  'stay.rooms.one': 'Room',
  'stay.rooms.other': 'Rooms',
  'stay.guests': 'Guests',
  'stay.adults.one': '{count} adult',
  'stay.adults.other': '{count} adults',
  'stay.children.one': '{count} child',
  'stay.children.other': '{count} children',
  'stay.status.checked_out': 'Checked out',
  'stay.status.checked_in': 'Checked in',
  'stay.status.confirmed': 'Confirmed',
  'stay.status.canceled': 'Canceled',
  'stay.status.not_confirmed': 'Not confirmed',
  'stay.status.inquiry': 'Inquiry',
  'stay.status.deleted': 'Deleted',
  'stay.status.no_show': 'No-show',
  'column.card': 'Card',
  'column.foreignAmount': 'Foreign amount',
  'column.foreignCurrency': 'Foreign currency',
};

export type TSourceLabel = keyof typeof en;
type TSourceCatalog = Record<TSourceLabel, string>;

const es: TSourceCatalog = {
  'source.RESERVATION': 'Reserva',
  'source.HOUSE_ACCOUNT': 'Cuenta de la casa',
  'source.GROUP_PROFILE': 'Perfil de grupo',
  'source.ACCOUNTS_RECEIVABLE_LEDGER': 'Libro de cuentas por cobrar',
  'stay.guest': 'Huésped',
  'stay.arrival': 'Llegada',
  'stay.departure': 'Salida',
  'stay.nightsLabel': 'Noches',
  'stay.nights.one': '{count} noche',
  'stay.nights.other': '{count} noches',
  'stay.rooms.one': 'Habitación',
  'stay.rooms.other': 'Habitaciones',
  'stay.guests': 'Huéspedes',
  'stay.adults.one': '{count} adulto',
  'stay.adults.other': '{count} adultos',
  'stay.children.one': '{count} niño',
  'stay.children.other': '{count} niños',
  'stay.status.checked_out': 'Salida realizada',
  'stay.status.checked_in': 'Entrada realizada',
  'stay.status.confirmed': 'Confirmada',
  'stay.status.canceled': 'Cancelada',
  'stay.status.not_confirmed': 'No confirmada',
  'stay.status.inquiry': 'Consulta',
  'stay.status.deleted': 'Eliminada',
  'stay.status.no_show': 'No presentado',
  'column.card': 'Tarjeta',
  'column.foreignAmount': 'Importe en divisa',
  'column.foreignCurrency': 'Divisa',
};

const pt: TSourceCatalog = {
  'source.RESERVATION': 'Reserva',
  'source.HOUSE_ACCOUNT': 'Conta da casa',
  'source.GROUP_PROFILE': 'Perfil de grupo',
  'source.ACCOUNTS_RECEIVABLE_LEDGER': 'Razão de contas a receber',
  'stay.guest': 'Hóspede',
  'stay.arrival': 'Chegada',
  'stay.departure': 'Partida',
  'stay.nightsLabel': 'Noites',
  'stay.nights.one': '{count} noite',
  'stay.nights.other': '{count} noites',
  'stay.rooms.one': 'Quarto',
  'stay.rooms.other': 'Quartos',
  'stay.guests': 'Hóspedes',
  'stay.adults.one': '{count} adulto',
  'stay.adults.other': '{count} adultos',
  'stay.children.one': '{count} criança',
  'stay.children.other': '{count} crianças',
  'stay.status.checked_out': 'Saída efetuada',
  'stay.status.checked_in': 'Entrada efetuada',
  'stay.status.confirmed': 'Confirmada',
  'stay.status.canceled': 'Cancelada',
  'stay.status.not_confirmed': 'Não confirmada',
  'stay.status.inquiry': 'Pedido de informação',
  'stay.status.deleted': 'Eliminada',
  'stay.status.no_show': 'Não comparência',
  'column.card': 'Cartão',
  'column.foreignAmount': 'Valor em divisa',
  'column.foreignCurrency': 'Divisa',
};

const fr: TSourceCatalog = {
  'source.RESERVATION': 'Réservation',
  'source.HOUSE_ACCOUNT': 'Compte maison',
  'source.GROUP_PROFILE': 'Profil de groupe',
  'source.ACCOUNTS_RECEIVABLE_LEDGER': 'Grand livre clients',
  'stay.guest': 'Client',
  'stay.arrival': 'Arrivée',
  'stay.departure': 'Départ',
  'stay.nightsLabel': 'Nuits',
  'stay.nights.one': '{count} nuit',
  'stay.nights.other': '{count} nuits',
  'stay.rooms.one': 'Chambre',
  'stay.rooms.other': 'Chambres',
  'stay.guests': 'Personnes',
  'stay.adults.one': '{count} adulte',
  'stay.adults.other': '{count} adultes',
  'stay.children.one': '{count} enfant',
  'stay.children.other': '{count} enfants',
  'stay.status.checked_out': 'Départ effectué',
  'stay.status.checked_in': 'Arrivée effectuée',
  'stay.status.confirmed': 'Confirmée',
  'stay.status.canceled': 'Annulée',
  'stay.status.not_confirmed': 'Non confirmée',
  'stay.status.inquiry': 'Demande',
  'stay.status.deleted': 'Supprimée',
  'stay.status.no_show': 'Non présenté',
  'column.card': 'Carte',
  'column.foreignAmount': 'Montant en devise',
  'column.foreignCurrency': 'Devise',
};

const de: TSourceCatalog = {
  'source.RESERVATION': 'Reservierung',
  'source.HOUSE_ACCOUNT': 'Hauskonto',
  'source.GROUP_PROFILE': 'Gruppenprofil',
  'source.ACCOUNTS_RECEIVABLE_LEDGER': 'Debitorenkonto',
  'stay.guest': 'Gast',
  'stay.arrival': 'Anreise',
  'stay.departure': 'Abreise',
  'stay.nightsLabel': 'Nächte',
  'stay.nights.one': '{count} Nacht',
  'stay.nights.other': '{count} Nächte',
  'stay.rooms.one': 'Zimmer',
  'stay.rooms.other': 'Zimmer',
  'stay.guests': 'Gäste',
  'stay.adults.one': '{count} Erwachsener',
  'stay.adults.other': '{count} Erwachsene',
  'stay.children.one': '{count} Kind',
  'stay.children.other': '{count} Kinder',
  'stay.status.checked_out': 'Abgereist',
  'stay.status.checked_in': 'Angereist',
  'stay.status.confirmed': 'Bestätigt',
  'stay.status.canceled': 'Storniert',
  'stay.status.not_confirmed': 'Nicht bestätigt',
  'stay.status.inquiry': 'Anfrage',
  'stay.status.deleted': 'Gelöscht',
  'stay.status.no_show': 'Nicht angereist',
  'column.card': 'Karte',
  'column.foreignAmount': 'Fremdwährungsbetrag',
  'column.foreignCurrency': 'Fremdwährung',
};

export const SOURCE_CATALOGS: Record<TLanguage, TSourceCatalog> = { en, es, pt, fr, de };

/** Labels that come in a `.one` and an `.other` form. */
export type TCountedLabel = 'stay.nights' | 'stay.rooms' | 'stay.adults' | 'stay.children';

const pluralRules = new Map<TLanguage, Intl.PluralRules>();

/**
 * The form of a counted label for `count` in `language`: `.one` where the language's plural rules
 * say "one", `.other` for everything else (no export language needs few/many forms for these words).
 */
export function countLabel(language: TLanguage, label: TCountedLabel, count: number): `${TCountedLabel}.${'one' | 'other'}` {
  let rules = pluralRules.get(language);
  if (!rules) pluralRules.set(language, (rules = new Intl.PluralRules(LOCALES[language])));
  return `${label}.${rules.select(count) === 'one' ? 'one' : 'other'}`;
}
