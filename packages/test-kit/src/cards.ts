/** Request bodies built only from public test card numbers (the only ones allowed in fixtures). */
export function futureYear(yearsAhead = 3): string {
  return String(new Date().getUTCFullYear() + yearsAhead);
}

export function cardBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    card_number: '4111111111111111',
    cvv: '123',
    cardholder_name: 'Sara Ryder',
    expiration: { month: '08', year: futureYear() },
    ...overrides,
  };
}

/**
 * A Luhn-valid number made up at run time (never written down in the repository), for the cases
 * a public test number cannot cover: live mode refuses those.
 */
export function generatedPan(prefix: string, length: number): string {
  let body = prefix;
  while (body.length < length - 1) body += String(Math.floor(Math.random() * 10));
  return body + luhnCheckDigit(body);
}

/** Luhn check digit for a body of digits (computed independently of the code under test). */
export function luhnCheckDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i += 1) {
    // Walking from the right of the body: the digit next to the check digit is doubled.
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}
