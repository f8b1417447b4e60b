/**
 * A keyring is written in the environment as `kid:base64key[,kid:base64key…]`. The first entry is
 * the active key (new data is sealed with it); the others stay readable so keys can rotate without
 * a flag day. Every key is 32 bytes (AES-256 / HMAC-SHA256).
 */
export interface TKeyring {
  activeId: string;
  keys: ReadonlyMap<string, Buffer>;
}

export const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function parseKeyring(value: string): TKeyring {
  const keys = new Map<string, Buffer>();
  let activeId: string | undefined;
  // Errors name the entry by position, never by content: a swapped "key:id" would put the key
  // where the id goes, and a settings error must not print a key.
  for (const [index, entry] of value.split(',').map((part) => part.trim()).filter(Boolean).entries()) {
    const which = `entry ${index + 1}`;
    const colon = entry.indexOf(':');
    if (colon <= 0) throw new Error(`${which} must be "keyId:base64Key"`);
    const id = entry.slice(0, colon);
    if (!KEY_ID.test(id)) throw new Error(`the key id of ${which} must be 1-64 of A-Z a-z 0-9 . _ -`);
    const key = Buffer.from(entry.slice(colon + 1), 'base64');
    if (key.length !== KEY_BYTES) throw new Error(`the key of ${which} must decode to ${KEY_BYTES} bytes of base64`);
    if (keys.has(id)) throw new Error(`the key id of ${which} appears twice`);
    keys.set(id, key);
    activeId ??= id;
  }
  if (!activeId) throw new Error('at least one "keyId:base64Key" entry is required');
  return { activeId, keys };
}

export function parseSingleKey(value: string): Buffer {
  const key = Buffer.from(value.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`must decode to ${KEY_BYTES} bytes of base64`);
  return key;
}
