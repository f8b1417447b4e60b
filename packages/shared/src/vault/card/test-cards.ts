/**
 * Well-known public test card numbers (processor documentation), refused in live mode with
 * TEST_CARD_IN_LIVE_MODE. These are the only card numbers allowed in fixtures.
 */
export const PUBLIC_TEST_CARD_NUMBERS: ReadonlySet<string> = new Set([
  '4111111111111111',
  '4242424242424242',
  '4012888888881881',
  '4000056655665556',
  '4000000000000002',
  '4000000000009995',
  '5555555555554444',
  '5105105105105100',
  '5200828282828210',
  '2223003122003222',
  '378282246310005',
  '371449635398431',
  '6011111111111117',
  '6011000990139424',
  '3530111333300000',
  '3566002020360505',
  '30569309025904',
  '38520000023237',
  '6200000000000005',
]);

export function isPublicTestCard(pan: string): boolean {
  return PUBLIC_TEST_CARD_NUMBERS.has(pan);
}
