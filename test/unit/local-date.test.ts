import { describe, expect, it } from 'vitest';
import { localDate } from '@folio-vault/shared/i18n/format';

/** localDate (packages/shared/src/i18n/format.ts): the file names', the invoices' and the night audit's "today". */
describe("a property's today", () => {
  it('is the calendar date in its time zone, whatever the process runs in', () => {
    const instant = new Date('2026-11-21T23:30:00Z');
    expect(localDate(instant, 'Europe/Madrid')).toBe('2026-11-22');
    expect(localDate(instant, 'America/New_York')).toBe('2026-11-21');
    expect(localDate(instant, 'UTC')).toBe('2026-11-21');
    // A zone's formatter is kept: it answers for another instant too.
    expect(localDate(new Date('2026-03-29T00:30:00Z'), 'Europe/Madrid')).toBe('2026-03-29');
  });
});
