// Numbers, money and dates in the document's language (Intl), dates and times in the property's
// time zone. Formatters are built once per process and combination, not per document or row. Money
// is formatted from the exact decimal string (Intl formats a numeric string without going through a
// float).

import type { TLanguage } from './languages.js';

/** The Intl locale each export language formats with. */
export const LOCALES: Record<TLanguage, string> = { en: 'en-GB', es: 'es-ES', pt: 'pt-PT', fr: 'fr-FR', de: 'de-DE' };

export interface TFormatters {
  money(amount: string): string;
  /** An amount in another currency (a foreign tender), in the language's currency format. */
  foreignMoney(amount: string, currency: string): string;
  number(value: string): string;
  dateTime(iso: string): string;
  /** A calendar date (YYYY-MM-DD), not shifted by any time zone. */
  date(date: string): string;
  locale: string;
}

/**
 * Building Intl formatters costs as much as drawing a small folio's rows: a process keeps them per
 * language, time zone and currency (a property's few combinations), for the PDF and the XLSX
 * alike. Past FORMATTERS_KEPT combinations the memory starts over.
 */
const FORMATTERS_KEPT = 64;
const made = new Map<string, TFormatters>();

export function formatters(language: TLanguage, timezone: string, currency: string): TFormatters {
  const key = `${language}|${timezone}|${currency}`;
  let kept = made.get(key);
  if (!kept) {
    if (made.size >= FORMATTERS_KEPT) made.clear();
    kept = makeFormatters(language, timezone, currency);
    made.set(key, kept);
  }
  return kept;
}

/** The formatter of a time zone's ISO calendar date (en-CA writes YYYY-MM-DD), made once per zone as above. */
const isoDates = new Map<string, Intl.DateTimeFormat>();

/** `now`'s calendar date in `timezone`, as YYYY-MM-DD: a property's today. */
export function localDate(now: Date, timezone: string): string {
  let format = isoDates.get(timezone);
  if (!format) {
    if (isoDates.size >= FORMATTERS_KEPT) isoDates.clear();
    format = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' });
    isoDates.set(timezone, format);
  }
  return format.format(now);
}

/** Day, month and a four-digit year, in the locale's order and separators (19/11/2026, 19.11.2026). */
const DAY = { day: '2-digit', month: '2-digit', year: 'numeric' } as const;

function makeFormatters(language: TLanguage, timezone: string, currency: string): TFormatters {
  const locale = LOCALES[language];
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const number = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 });
  // Four-digit years in every language: the short date style of es, pt and de writes "21/11/26".
  const dateTime = new Intl.DateTimeFormat(locale, { timeZone: timezone, ...DAY, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const date = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', ...DAY });
  // One formatter per foreign currency met: few (ISO codes), and made once each.
  const foreign = new Map<string, Intl.NumberFormat | undefined>([[currency, money]]);
  const foreignMoney = (amount: string, code: string): string => {
    if (!foreign.has(code)) {
      let made: Intl.NumberFormat | undefined;
      try {
        made = new Intl.NumberFormat(locale, { style: 'currency', currency: code });
      } catch {
        made = undefined;
      }
      foreign.set(code, made);
    }
    const made = foreign.get(code);
    // A code Intl refuses still shows: the number and the code as given.
    return made ? made.format(amount as unknown as number) : `${number.format(amount as unknown as number)} ${code}`;
  };
  return {
    locale,
    money: (amount) => money.format(amount as unknown as number),
    foreignMoney,
    number: (value) => number.format(value as unknown as number),
    dateTime: (iso) => dateTime.format(new Date(iso)),
    date: (value) => date.format(new Date(`${value}T00:00:00Z`)),
  };
}
