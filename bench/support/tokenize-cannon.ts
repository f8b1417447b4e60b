// The tokenize load the benchmarks send (tokenize-load.ts, tracing.ts): autocannon POSTing
// /vault/v1/tokens/card in test mode for property 1, a different Luhn-valid card each request, so
// no cache or duplicate path can flatter the figures.

import autocannon from 'autocannon';
import { futureYear, generatedPan } from '@folio-vault/test-kit/cards';

export function tokenizeCannon(url: string, token: string, options: { connections: number; seconds: number }): Promise<autocannon.Result> {
  const expiration = { month: '08', year: futureYear() };
  return autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    timeout: 20,
    requests: [
      {
        method: 'POST',
        path: '/vault/v1/tokens/card',
        headers: { authorization: `Bearer ${token}`, 'x-property-id': '1', 'svc-tokenization-mode': 'test', 'content-type': 'application/json' },
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ card_number: generatedPan('4', 16), cvv: '123', cardholder_name: 'Zoë Łukasiewicz', expiration }),
        }),
      },
    ],
  });
}
