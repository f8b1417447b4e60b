// What this worker's keys cannot open of what is stored: card records whose data key a KEK wraps
// that its key provider does not hold, and webhook endpoints' secrets sealed to a transit key it
// does not hold. A change of key provider over existing data (`VAULT_KEY_PROVIDER=pkcs11 npm start`
// after a start with the local keys) leaves exactly these until `npm run keys:rotate -- --from …`
// moves them under the new keys. Said in one line: at worker start, and again by the vault sweep
// when the counts change (and once when nothing is left). The counts come from key ids alone
// (cards.kek_id, the id a sealed secret names): nothing is opened to find them.

import { CardRepository } from './card-repository.js';
import type { TPgPool } from '@folio-vault/shared/connections';
import type { Logger } from '@folio-vault/shared/logger';
import type { TKeyProvider } from '@folio-vault/shared/vault/keys/key-provider';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import { secretKeyId } from '@folio-vault/shared/webhooks/secrets';
import { endpointSecrets } from '@folio-vault/shared/webhooks/store';

const MODES: TTokenizationMode[] = ['test', 'live'];

/** What the keys cannot open, by the key id each needs. */
export interface TKeyGaps {
  /** Readable card records by mode and by the KEK id that wraps them, of KEKs the provider does not hold. */
  cards: Record<TTokenizationMode, Record<string, number>>;
  /** Live endpoints' secrets by the transit key id they are sealed to, of keys the provider does not hold ("unknown layout" for bytes of none). */
  webhookSecrets: Record<string, number>;
}

export async function keyGaps(pool: TPgPool, keys: TKeyProvider): Promise<TKeyGaps> {
  const repository = new CardRepository(pool);
  const cards = { test: {}, live: {} } as TKeyGaps['cards'];
  for (const mode of MODES) {
    const held = new Set(keys.kekIds[mode]);
    cards[mode] = Object.fromEntries(Object.entries(await repository.countKeysByKek(mode)).filter(([kekId]) => !held.has(kekId)));
  }
  const webhookSecrets: Record<string, number> = {};
  for (const { secretCt } of await endpointSecrets(pool)) {
    const keyId = secretKeyId(secretCt) ?? 'unknown layout';
    if (!keys.transitKeys.keys.has(keyId)) webhookSecrets[keyId] = (webhookSecrets[keyId] ?? 0) + 1;
  }
  return { cards, webhookSecrets };
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((total, n) => total + n, 0);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const byKey = (counts: Record<string, number>) => Object.entries(counts).map(([id, n]) => `${n} under ${id}`).join(', ');

/** The number of card records of `mode` the keys cannot open. */
export const missingCards = (gaps: TKeyGaps, mode: TTokenizationMode) => sum(gaps.cards[mode]);

/**
 * The one line for `gaps`, or undefined when the keys open everything: what they cannot open, by key
 * id, and the command that moves it under these keys (from the `local` ones, unless these are).
 */
export function keyGapsLine(kind: TKeyProvider['kind'], gaps: TKeyGaps): string | undefined {
  const cards = MODES.reduce((total, mode) => total + missingCards(gaps, mode), 0);
  const secrets = sum(gaps.webhookSecrets);
  if (cards === 0 && secrets === 0) return undefined;
  const what: string[] = [];
  const until: string[] = [];
  if (cards > 0) {
    const modes = MODES.filter((mode) => missingCards(gaps, mode) > 0).map((mode) => `${mode}: ${byKey(gaps.cards[mode])}`);
    what.push(`${plural(cards, 'card record')} (${modes.join('; ')})`);
    until.push('those cards cannot be read or forwarded');
  }
  if (secrets > 0) {
    what.push(`${plural(secrets, 'webhook secret')} (sealed to ${Object.keys(gaps.webhookSecrets).join(', ')})`);
    until.push("those endpoints' deliveries fail");
  }
  // keys:rotate reads old keys that are local ones or a component set: from a token, the way back is the token.
  const how =
    kind === 'local'
      ? 'start with the key provider that made them (VAULT_KEY_PROVIDER=pkcs11 or components), or, for a component set, ' +
        'move them under these with npm run keys:rotate -- --from components:FILE'
      : `move them under these with VAULT_KEY_PROVIDER=${kind} npm run keys:rotate -- --from local`;
  return `vault keys (${kind}) cannot open ${what.join(' and ')}, made with other keys: ${how} (until then ${until.join(', and ')})`;
}

/** Says what the keys cannot open when it differs from what it said last (nothing, at first). */
export class KeyCoverage {
  private said: string | undefined;

  constructor(
    private readonly pool: TPgPool,
    private readonly keys: TKeyProvider,
    private readonly logger: Logger,
  ) {}

  async report(): Promise<TKeyGaps> {
    const gaps = await keyGaps(this.pool, this.keys);
    const line = keyGapsLine(this.keys.kind, gaps);
    if (line !== this.said) {
      if (line) this.logger.warn({ provider: this.keys.kind, ...gaps }, line);
      else this.logger.info({ provider: this.keys.kind }, 'vault keys open every card record and webhook secret now');
    }
    this.said = line;
    return gaps;
  }
}
