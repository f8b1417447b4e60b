import { isLuhnValid } from '../card/luhn.js';
import { maskPan, redactPans } from '../card/redact-pan.js';

/**
 * What a gateway answers goes back to the client and into logs: the card that was forwarded must
 * not come back with it. This card's number is cut to first six and last four — as one digit run
 * or written in groups with single spaces or dashes — and so is any other Luhn-valid run of 13 to
 * 19 digits (a gateway echoing some other card). The CVV is replaced by '***' where it stands as a
 * digit run of its own, never inside a longer number. Last, the log redaction (redactPans) catches
 * other card numbers written in groups.
 */

/** A maximal digit run: digits with no digit right before or after. */
const DIGIT_RUN = '\\d+';

function digitsOf(value: string | undefined): string {
  return (value ?? '').replace(/\D/g, '');
}

/** This card's number with an optional single space or dash between any two of its digits. */
function groupedPanPattern(pan: string): string {
  return `(?<!\\d)${pan.split('').join('[ -]?')}(?!\\d)`;
}

/** "4111 1111 1111 1111" → "4111 11** **** 1111": digits masked as maskPan does, separators kept. */
function maskGrouped(text: string): string {
  const total = text.replace(/\D/g, '').length;
  let seen = 0;
  return text.replace(/\d/g, (digit) => {
    seen += 1;
    return seen <= 6 || seen > total - 4 ? digit : '*';
  });
}

export function maskSecrets(text: string, secrets: { pan?: string; cvv?: string }): string {
  const pan = digitsOf(secrets.pan);
  const cvv = secrets.cvv !== undefined && /^\d{3,4}$/.test(secrets.cvv) ? secrets.cvv : undefined;
  // One pass, so a masked value is never looked at again: this card's grouped number first, else the whole digit run.
  const pattern = pan.length >= 12 ? `${groupedPanPattern(pan)}|${DIGIT_RUN}` : DIGIT_RUN;
  const masked = text.replace(new RegExp(pattern, 'g'), (run) => {
    if (!/^\d+$/.test(run)) return maskGrouped(run);
    if (run === pan) return maskPan(run);
    if (run.length >= 13 && run.length <= 19 && isLuhnValid(run)) return maskPan(run);
    if (run === cvv) return '***';
    return run;
  });
  return redactPans(masked);
}

export function maskHeaders(headers: Record<string, string>, secrets: { pan?: string; cvv?: string }): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, maskSecrets(value, secrets)]));
}
