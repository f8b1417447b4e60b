// What the CII (cii.ts) and the UBL (ubl.ts) renderings of a frozen fiscal document share: the
// EN 16931 decisions that do not depend on the syntax, so both files say the same thing.

import type { TFiscalDocument, TParty, TPaymentMeans } from '@folio-vault/shared/fiscal/document-model';

/** BT-24: the specification both files follow (EN 16931 itself; for CII also Factur-X's EN 16931 profile). */
export const EN16931 = 'urn:cen.eu:en16931:2017';

/**
 * BT-23, business process. A French seller's invoice names its billing mode (BR-FR-08): "S1", an
 * invoice for services (a hotel's stay, its meals and extras), whatever was paid in advance.
 * Elsewhere the term is optional and left out.
 */
export function businessProcess(document: TFiscalDocument): string | undefined {
  return document.seller.postalAddress.countryCode === 'FR' ? 'S1' : undefined;
}

/**
 * BT-27 / BT-44 (the registered name) and BT-28 / BT-45 (a trading name): a party's `legalName` is its
 * registered name when it has one, and then `name` is the name it trades under.
 */
export function partyNames(party: TParty): { registered: string; trading?: string } {
  if (party.legalName && party.legalName !== party.name) return { registered: party.legalName, trading: party.name };
  return { registered: party.name };
}

/**
 * BT-87 as the XML carries it: the card's last four digits. The printed form ("411111******1111")
 * shows the most PCI DSS allows, but EN 16931's BR-51 counts characters, masking included, and allows
 * ten; the last four are what a buyer matches a statement line with.
 */
export function cardNumberForXml(cardNumber: string): string {
  return cardNumber.slice(-4);
}

/**
 * BG-16 as the XML carries it. EN 16931 has one payment instruction per invoice (BG-16 is 0..1;
 * CII-SR-467 wants one type code across CII's payment means), while the document lists every
 * payment before the issue and how to pay the rest. The instruction is what the buyer acts on: when
 * an amount is due, the first means with no amount paid (how to pay the rest: a transfer to the
 * IBAN); when nothing is due, the first means that paid (the card, with its last four digits). The
 * payments themselves are the prepaid amount (BT-113); the PDF prints each.
 */
export function paymentInstruction(document: TFiscalDocument): TPaymentMeans | undefined {
  if (Number(document.totals.due) > 0) return document.paymentMeans.find((means) => means.amount === undefined);
  return document.paymentMeans.find((means) => means.amount !== undefined) ?? document.paymentMeans[0];
}

/** "2026-11-23" → "20261123" (CII's date format 102). */
export function compactDate(date: string): string {
  return date.replaceAll('-', '');
}

/** A rounding amount (BT-114) worth writing: not zero. */
export function hasRounding(document: TFiscalDocument): boolean {
  return Number(document.totals.rounding) !== 0;
}

/**
 * Text as XML 1.0 can carry it: characters it cannot represent (C0 controls other than tab, line
 * feed and carriage return, lone surrogates, U+FFFE/U+FFFF) are left out. Escaping is the
 * builder's (xmlbuilder2).
 */
export function xmlText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '');
}
