// What a gateway answers goes back to the client and into logs: the card that was forwarded must
// not come back with it. This card's number is cut to first six and last four wherever it stands —
// as digits, also inside a longer digit run, or written in groups with single spaces or dashes —
// and so is any other Luhn-valid run of 13 to 19 digits (a gateway echoing some other card). The
// CVV is replaced by '***' where it stands as a digit run of its own (a template cannot put it
// against other digits: template.ts). The cardholder's name is masked as the metadata masks it.
// Last, the log redaction (redactPans) catches other card numbers written in groups.

import { isLuhnValid } from '../card/luhn.js';
import { maskName } from '../card/mask.js';
import { maskPan, redactPans } from '../card/redact-pan.js';

/** A maximal digit run: digits with no digit right before or after. */
const DIGIT_RUN = '\\d+';

function digitsOf(value: string | undefined): string {
  return (value ?? '').replace(/\D/g, '');
}

/**
 * This card's number with an optional single space or dash between any two of its digits, anywhere,
 * with the CVV when it is written right against it (a gateway that concatenates what it got).
 */
function panPattern(pan: string, cvv: string | undefined): RegExp {
  const grouped = pan.split('').join('[ -]?');
  return cvv ? new RegExp(`(${cvv})?(${grouped})(${cvv})?`, 'g') : new RegExp(`()(${grouped})()`, 'g');
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** JSON text as ASCII-only encoders write it: every other character as \\uXXXX. */
const asciiJson = (text: string) =>
  JSON.stringify(text).slice(1, -1).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const xmlEscaped = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/**
 * The holder's name, in any case, as written and in every form the vault's own escaping or a JSON
 * encoder gives it (JSON, ASCII-only JSON, percent-encoding with %20 or +, XML), masked as the
 * token's metadata masks it.
 */
function maskNames(text: string, name: string | undefined): string {
  const trimmed = name?.trim();
  if (!trimmed || trimmed.length < 2) return text;
  const encoded = encodeURIComponent(trimmed);
  const forms = [trimmed, JSON.stringify(trimmed).slice(1, -1), asciiJson(trimmed), encoded, encoded.replace(/%20/g, '+'), xmlEscaped(trimmed)];
  return text.replace(new RegExp([...new Set(forms)].map(escapeRegExp).join('|'), 'giu'), () => maskName(trimmed));
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

export interface TMaskedSecrets {
  pan?: string;
  cvv?: string;
  holderName?: string;
}

export function maskSecrets(text: string, secrets: TMaskedSecrets): string {
  const pan = digitsOf(secrets.pan);
  const cvv = secrets.cvv !== undefined && /^\d{3,4}$/.test(secrets.cvv) ? secrets.cvv : undefined;
  // This card's number first, wherever it stands (a masked number has '*' and is not matched again).
  const maskFound = (_: string, before: string | undefined, found: string, after: string | undefined) =>
    `${before ? '***' : ''}${/^\d+$/.test(found) ? maskPan(found) : maskGrouped(found)}${after ? '***' : ''}`;
  const withoutPan = pan.length >= 12 ? text.replace(panPattern(pan, cvv), maskFound) : text;
  const masked = withoutPan.replace(new RegExp(DIGIT_RUN, 'g'), (run) => {
    if (run.length >= 13 && run.length <= 19 && isLuhnValid(run)) return maskPan(run);
    if (run === cvv) return '***';
    return run;
  });
  return redactPans(maskNames(masked, secrets.holderName));
}

export function maskHeaders(headers: Record<string, string>, secrets: TMaskedSecrets): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, maskSecrets(value, secrets)]));
}
