// Last line of defence for text that leaves the process (log lines): a card number that got in
// anyway — a PAN pasted into a URL path or a request id — is cut down to first six and last four
// (PCI DSS 3.4.1). Only runs that are a card by brand, length and Luhn are touched, so timestamps,
// pids and ids stay as they are.

import { detectBrand, validLengthsFor } from './brand.js';
import { isLuhnValid } from './luhn.js';
import { isPublicTestCard } from './test-cards.js';

/*
 * A UUID is matched first and left whole. When a few of its groups happen to be all digits, the
 * dashed run ("…567330-0004-4031-…") passes brand, length and Luhn about one time in ten, and a
 * request id cut to "5f567330****4031-…" would not find its request in the logs.
 */
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const CANDIDATE = new RegExp(`(?<![0-9A-Fa-f])${UUID}(?![0-9A-Fa-f])|(?<![0-9])[0-9](?:[ -]?[0-9]){11,18}(?![0-9])`, 'g');

export function maskPan(digits: string): string {
  return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
}

export function isPanShaped(digits: string): boolean {
  const brand = detectBrand(digits);
  return brand !== undefined && validLengthsFor(brand).includes(digits.length) && isLuhnValid(digits);
}

export function redactPans(text: string): string {
  return text.replace(CANDIDATE, (run) => {
    if (run.length === 36 && run[8] === '-') return run;
    const digits = run.replace(/[ -]/g, '');
    return isPanShaped(digits) ? maskPan(digits) : run;
  });
}

/** Whether a piece of text holds something that could be a card number. */
export function holdsPan(text: string): boolean {
  return redactPans(text) !== text;
}

const CARD_RUN = new RegExp(`(?<![0-9A-Fa-f])${UUID}(?![0-9A-Fa-f])|(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])`, 'g');

/**
 * Stricter than redactPans, for error answers (errors.ts toErrorBody): any run of 13–19 digits
 * that passes Luhn, whatever its brand, is cut down to first six and last four. The public test
 * numbers (test-cards.ts) are left as they are: they open nothing.
 */
export function redactCardRuns(text: string): string {
  return text.replace(CARD_RUN, (run) => {
    if (run.length === 36 && run[8] === '-') return run;
    const digits = run.replace(/[ -]/g, '');
    return isLuhnValid(digits) && !isPublicTestCard(digits) ? maskPan(digits) : run;
  });
}
