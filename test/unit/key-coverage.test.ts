import { describe, expect, it } from 'vitest';
import { keyGapsLine } from '@folio-vault/worker/vault/key-coverage';

/**
 * The one line a worker logs about what its keys cannot open (apps/worker/src/vault/key-coverage.ts;
 * test/key-custody.test.ts sees it at a real worker's start): nothing when they open everything,
 * else the counts by key id and how to move them.
 */
describe('keyGapsLine', () => {
  const none = { cards: { test: {}, live: {} }, webhookSecrets: {} };

  it('says nothing when the keys open every record and secret', () => {
    expect(keyGapsLine('pkcs11', none)).toBeUndefined();
  });

  it('names records by mode and key, in the singular for one, and the command with the provider', () => {
    expect(keyGapsLine('components', { ...none, cards: { test: { 'dev-test-1': 1 }, live: { 'dev-live-1': 2, 'dev-live-0': 1 } } })).toBe(
      'vault keys (components) cannot open 4 card records (test: 1 under dev-test-1; live: 2 under dev-live-1, 1 under dev-live-0), made with other keys: ' +
        'move them under these with VAULT_KEY_PROVIDER=components npm run keys:rotate -- --from local (until then those cards cannot be read or forwarded)',
    );
    expect(keyGapsLine('pkcs11', { ...none, webhookSecrets: { 'dev-transit-1': 1 } })).toBe(
      'vault keys (pkcs11) cannot open 1 webhook secret (sealed to dev-transit-1), made with other keys: ' +
        "move them under these with VAULT_KEY_PROVIDER=pkcs11 npm run keys:rotate -- --from local (until then those endpoints' deliveries fail)",
    );
  });

  it('points local keys back at the provider that made the data: keys:rotate does not read a token', () => {
    expect(keyGapsLine('local', { cards: { test: { 'folio-kek-test-1': 3 }, live: {} }, webhookSecrets: { 'folio-transit-1': 1 } })).toBe(
      'vault keys (local) cannot open 3 card records (test: 3 under folio-kek-test-1) and 1 webhook secret (sealed to folio-transit-1), made with other keys: ' +
        'start with the key provider that made them (VAULT_KEY_PROVIDER=pkcs11 or components), or, for a component set, move them under these with ' +
        "npm run keys:rotate -- --from components:FILE (until then those cards cannot be read or forwarded, and those endpoints' deliveries fail)",
    );
  });
});
