import { createHmac, randomBytes } from 'node:crypto';
import { Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import { describe, expect, it } from 'vitest';
import { open, seal } from '@folio-vault/shared/vault/crypto/aes-gcm';
import { newDataKey, openField, sealField } from '@folio-vault/shared/vault/crypto/envelope';
import { digestMessage, fingerprintMessage } from '@folio-vault/shared/vault/crypto/fingerprint';
import { KEY_BYTES, parseKeyring, parseSingleKey, type TKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { formatKeyring, openTransit, publicKeyring, sealTransit, transitAad, transitPublicKey } from '@folio-vault/shared/vault/crypto/transit';
import { softwareKeyProvider } from '@folio-vault/shared/vault/keys/key-provider';
import { jobRefusal, jobVerifyKeyring, jobVerifyKeys, signJob, softwareJobSigner } from '@folio-vault/shared/vault/job-signature';

const key = () => randomBytes(32);
const b64 = (bytes: Buffer) => bytes.toString('base64');

function ringOf(...entries: Array<[string, Buffer]>): TKeyring {
  return parseKeyring(entries.map(([id, k]) => `${id}:${b64(k)}`).join(','));
}

describe('aes-gcm seal / open', () => {
  const plaintext = Buffer.from('4111111111111111', 'utf8');

  it('opens what it sealed with the same key and AAD', () => {
    const k = key();
    const sealed = seal(k, plaintext, 'card:1:pan');
    expect(open(k, sealed, 'card:1:pan').equals(plaintext)).toBe(true);
  });

  it('round-trips an empty plaintext and binary data', () => {
    const k = key();
    expect(open(k, seal(k, Buffer.alloc(0), 'a'), 'a').length).toBe(0);
    const binary = randomBytes(1000);
    expect(open(k, seal(k, binary, 'a'), 'a').equals(binary)).toBe(true);
  });

  it('never contains the plaintext in the sealed bytes and starts with version byte 1', () => {
    const sealed = seal(key(), plaintext, 'aad');
    expect(sealed.includes(plaintext)).toBe(false);
    expect(sealed[0]).toBe(1);
    expect(sealed.length).toBe(1 + 12 + 16 + plaintext.length);
  });

  it('fails to open with a different AAD (a ciphertext moved to another record or field)', () => {
    const k = key();
    const sealed = seal(k, plaintext, 'card:1:pan');
    expect(() => open(k, sealed, 'card:2:pan')).toThrow();
    expect(() => open(k, sealed, 'card:1:name')).toThrow();
    expect(() => open(k, sealed, '')).toThrow();
  });

  it('fails to open with the wrong key', () => {
    const sealed = seal(key(), plaintext, 'aad');
    expect(() => open(key(), sealed, 'aad')).toThrow();
  });

  it('fails to open when any byte after the version is flipped (IV, tag or ciphertext)', () => {
    const k = key();
    const sealed = seal(k, plaintext, 'aad');
    for (const index of [1, 12, 13, 28, 29, sealed.length - 1]) {
      const tampered = Buffer.from(sealed);
      tampered[index]! ^= 0x01;
      expect(() => open(k, tampered, 'aad'), `byte ${index}`).toThrow();
    }
  });

  it('fails to open when the ciphertext is truncated or extended', () => {
    const k = key();
    const sealed = seal(k, plaintext, 'aad');
    expect(() => open(k, sealed.subarray(0, sealed.length - 1), 'aad')).toThrow();
    expect(() => open(k, Buffer.concat([sealed, Buffer.from([0])]), 'aad')).toThrow();
    expect(() => open(k, sealed.subarray(0, 10), 'aad')).toThrow(/unknown layout/);
    expect(() => open(k, Buffer.alloc(0), 'aad')).toThrow(/unknown layout/);
  });

  it.each([0, 2, 255])('refuses an unknown version byte %i', (version) => {
    const k = key();
    const sealed = Buffer.from(seal(k, plaintext, 'aad'));
    sealed[0] = version;
    expect(() => open(k, sealed, 'aad')).toThrow(/unknown layout/);
  });

  it('gives two different ciphertexts (fresh IV) for the same key, plaintext and AAD', () => {
    const k = key();
    const a = seal(k, plaintext, 'aad');
    const b = seal(k, plaintext, 'aad');
    expect(a.equals(b)).toBe(false);
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
    expect(open(k, a, 'aad').equals(open(k, b, 'aad'))).toBe(true);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => seal(randomBytes(16), plaintext, 'aad')).toThrow();
  });
});

describe('transit seal / open (HPKE to the worker key)', () => {
  const card = { pan: '4111111111111111', cvv: '123', name: 'Sara Ryder' };
  /** A worker's private transit keys and the public ones an API is given. */
  const keysOf = (...entries: Array<[string, Buffer]>) => {
    const privateKeys = ringOf(...entries);
    return { privateKeys, publicKeys: publicKeyring(privateKeys) };
  };

  it('round-trips a JSON value sealed to the public key and writes v2.<keyId>.<enc>.<ciphertext>', async () => {
    const { privateKeys, publicKeys } = keysOf(['transit-1', key()]);
    const envelope = await sealTransit(publicKeys, card, 'tok:1:test');
    expect(envelope).toMatch(/^v2\.transit-1\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]+$/);
    expect(envelope).not.toContain('4111111111111111');
    expect(await openTransit(privateKeys, envelope, 'tok:1:test')).toEqual(card);
  });

  it('cannot be opened with what the API holds: its public keys', async () => {
    const { publicKeys } = keysOf(['transit-1', key()]);
    const envelope = await sealTransit(publicKeys, card, 'a');
    await expect(openTransit(publicKeys, envelope, 'a')).rejects.toThrow();
  });

  it('derives the X25519 public key the HPKE library derives from the same private key', async () => {
    const suite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
    const pair = await suite.kem.deriveKeyPair(randomBytes(32));
    const privateKey = Buffer.from(await suite.kem.serializePrivateKey(pair.privateKey));
    const publicKey = Buffer.from(await suite.kem.serializePublicKey(pair.publicKey));
    expect(transitPublicKey(privateKey).equals(publicKey)).toBe(true);
  });

  it('seals to the first (newest) public key', async () => {
    const { publicKeys } = keysOf(['new', key()], ['old', key()]);
    expect((await sealTransit(publicKeys, card, 'a')).split('.')[1]).toBe('new');
  });

  it('still opens an envelope sealed to an older worker key once a newer one is first', async () => {
    const oldKey = key();
    const before = keysOf(['transit-1', oldKey]);
    const envelope = await sealTransit(before.publicKeys, card, 'tok:1:test');
    const rotated = keysOf(['transit-2', key()], ['transit-1', oldKey]);
    expect(await openTransit(rotated.privateKeys, envelope, 'tok:1:test')).toEqual(card);
    const fresh = await sealTransit(rotated.publicKeys, card, 'tok:2:test');
    expect(fresh.startsWith('v2.transit-2.')).toBe(true);
    await expect(openTransit(before.privateKeys, fresh, 'tok:2:test')).rejects.toThrow(/transit-2 is not configured/);
  });

  it('fails for another private key under the same key id', async () => {
    const envelope = await sealTransit(keysOf(['transit-1', key()]).publicKeys, card, 'a');
    await expect(openTransit(ringOf(['transit-1', key()]), envelope, 'a')).rejects.toThrow();
  });

  it("binds a tokenize job's envelope to its token, property and mode (transitAad, as the API seals and the worker opens)", async () => {
    const { privateKeys, publicKeys } = keysOf(['transit-1', key()]);
    const job = { tokenId: '019c4d7e-4feb-73af-99f2-34c2771042f6', propertyId: '1', mode: 'test' as const };
    expect(transitAad(job)).toBe('019c4d7e-4feb-73af-99f2-34c2771042f6:1:test');
    const envelope = await sealTransit(publicKeys, card, transitAad(job));
    expect(await openTransit(privateKeys, envelope, transitAad({ ...job }))).toEqual(card);
    await expect(openTransit(privateKeys, envelope, transitAad({ ...job, mode: 'live' }))).rejects.toThrow();
    await expect(openTransit(privateKeys, envelope, transitAad({ ...job, propertyId: '2' }))).rejects.toThrow();
    await expect(openTransit(privateKeys, envelope, transitAad({ ...job, tokenId: '019c4d7e-4feb-73af-99f2-34c2771042f7' }))).rejects.toThrow();
  });

  it.each(['', 'v2', 'v2.transit-1', 'v2.transit-1.AAAA', 'v1.transit-1.AAAA.AAAA', 'v2..AAAA.AAAA', 'v2.transit-1..AAAA'])(
    'refuses the malformed envelope %j',
    async (envelope) => {
      await expect(openTransit(ringOf(['transit-1', key()]), envelope, 'a')).rejects.toThrow(/unknown format/);
    },
  );

  it('round-trips under a key id that contains a dot (key ids allow . _ -)', async () => {
    const { privateKeys, publicKeys } = keysOf(['transit.2026-01', key()]);
    expect(await openTransit(privateKeys, await sealTransit(publicKeys, card, 'a'), 'a')).toEqual(card);
  });

  it('writes a public keyring as its setting reads it, the active key first', () => {
    const { publicKeys } = keysOf(['b', key()], ['a', key()]);
    const again = parseKeyring(formatKeyring(publicKeys));
    expect(again.activeId).toBe('b');
    expect([...again.keys.keys()]).toEqual(['b', 'a']);
    expect(again.keys.get('a')!.equals(publicKeys.keys.get('a')!)).toBe(true);
  });
});

describe('envelope encryption with a software key provider', () => {
  const providerOf = (test: TKeyring, live = ringOf(['live-1', key()])) =>
    softwareKeyProvider('local', { kek: { test, live }, fingerprint: { id: 'fp', key: key() }, transit: ringOf(['t', key()]) });

  it('wraps a data key under the active KEK and unwraps it', async () => {
    const keys = providerOf(ringOf(['kek-1', key()]));
    const dek = newDataKey();
    const wrapped = await keys.wrapDataKey('test', dek, 'card-id');
    expect(wrapped.kekId).toBe('kek-1');
    expect(wrapped.wrapped.includes(dek)).toBe(false);
    expect((await keys.unwrapDataKey('test', wrapped, 'card-id')).equals(dek)).toBe(true);
  });

  it('makes a fresh 32-byte data key each time', () => {
    const a = newDataKey();
    const b = newDataKey();
    expect(a.length).toBe(32);
    expect(a.equals(b)).toBe(false);
  });

  it('unwraps a data key wrapped under a KEK that has rotated to second place', async () => {
    const oldKek = key();
    const dek = newDataKey();
    const wrapped = await providerOf(ringOf(['kek-1', oldKek])).wrapDataKey('test', dek, 'card-id');
    const rotated = providerOf(ringOf(['kek-2', key()], ['kek-1', oldKek]));
    expect(rotated.kekIds.test).toEqual(['kek-2', 'kek-1']);
    expect((await rotated.unwrapDataKey('test', wrapped, 'card-id')).equals(dek)).toBe(true);
    expect((await rotated.wrapDataKey('test', dek, 'card-id')).kekId).toBe('kek-2');
  });

  it("fails to unwrap under an unknown KEK id, another KEK, another AAD or the other mode's keys", async () => {
    const keys = providerOf(ringOf(['kek-1', key()]));
    const wrapped = await keys.wrapDataKey('test', newDataKey(), 'card-1');
    await expect(providerOf(ringOf(['kek-2', key()])).unwrapDataKey('test', wrapped, 'card-1')).rejects.toThrow(/kek-1 is not configured/);
    await expect(providerOf(ringOf(['kek-1', key()])).unwrapDataKey('test', wrapped, 'card-1')).rejects.toThrow();
    await expect(keys.unwrapDataKey('test', wrapped, 'card-2')).rejects.toThrow();
    await expect(keys.unwrapDataKey('live', wrapped, 'card-1')).rejects.toThrow(/kek-1 is not configured/);
  });

  it('keeps the DEK wrapping apart from field sealing (domain-separated AAD)', async () => {
    const kekKey = key();
    const wrapped = await providerOf(ringOf(['kek-1', kekKey])).wrapDataKey('test', newDataKey(), 'x');
    // The same key and the same caller AAD, opened as a plain field, does not match.
    expect(() => open(kekKey, wrapped.wrapped, 'x')).toThrow();
  });

  it('seals and opens a field under a data key', () => {
    const dek = newDataKey();
    const sealed = sealField(dek, 'Zoë Łukasiewicz 王小明', 'card-1:cardholder_name');
    expect(sealed.includes(Buffer.from('Zoë', 'utf8'))).toBe(false);
    expect(openField(dek, sealed, 'card-1:cardholder_name')).toBe('Zoë Łukasiewicz 王小明');
  });

  it('fails to open a field under another data key or another field AAD', () => {
    const dek = newDataKey();
    const sealed = sealField(dek, '4111111111111111', 'card-1:pan');
    expect(() => openField(newDataKey(), sealed, 'card-1:pan')).toThrow();
    expect(() => openField(dek, sealed, 'card-1:cardholder_name')).toThrow();
  });

  it('cannot recover a field once its wrapped data key is gone (crypto-shredding)', async () => {
    const kekKey = key();
    const keys = providerOf(ringOf(['kek-1', kekKey]));
    const dek = newDataKey();
    const wrapped = await keys.wrapDataKey('test', dek, 'card-1');
    const pan = sealField(dek, '4111111111111111', 'card-1:pan');
    expect(openField(await keys.unwrapDataKey('test', wrapped, 'card-1'), pan, 'card-1:pan')).toBe('4111111111111111');
    // Without the DEK only the KEK is left, and it does not open the field.
    expect(() => openField(kekKey, pan, 'card-1:pan')).toThrow();
  });
});

describe('fingerprints', () => {
  const hmacWith = (k: Buffer) => softwareKeyProvider('local', { kek: { test: ringOf(['t', key()]), live: ringOf(['l', key()]) }, fingerprint: { id: 'fp', key: k }, transit: ringOf(['x', key()]) });
  const fingerprint = async (k: Buffer, propertyId: string, pan: string) => (await hmacWith(k).hmac(fingerprintMessage(propertyId, pan))).toString('base64url');

  it('is deterministic for one key, one property and one PAN', async () => {
    const k = key();
    expect(await fingerprint(k, '1', '4111111111111111')).toBe(await fingerprint(k, '1', '4111111111111111'));
  });

  it('differs across properties for the same key and PAN (no cross-tenant correlation)', async () => {
    const k = key();
    expect(await fingerprint(k, '1', '4111111111111111')).not.toBe(await fingerprint(k, '2', '4111111111111111'));
    // The property id and the PAN cannot be shifted into each other: "1" + "24111…" is not "12" + "4111…".
    expect(fingerprintMessage('1', '24111111111111111')).not.toBe(fingerprintMessage('12', '4111111111111111'));
  });

  it('differs across keys for the same PAN', async () => {
    expect(await fingerprint(key(), '1', '4111111111111111')).not.toBe(await fingerprint(key(), '1', '4111111111111111'));
  });

  it('is HMAC-SHA256 of "pan:v2:<property>:<pan>", 43 characters of base64url, never containing the PAN', async () => {
    const k = key();
    const fp = await fingerprint(k, '1', '4111111111111111');
    expect(fp).toBe(createHmac('sha256', k).update('pan:v2:1:4111111111111111').digest('base64url'));
    expect(fp).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fp).not.toContain('4111111111111111');
  });

  it('separates keyed digests by purpose and from card fingerprints', () => {
    expect(digestMessage('idem', 'body')).not.toBe(digestMessage('other', 'body'));
    expect(digestMessage('pan', 'v2:1:4111111111111111')).toBe(fingerprintMessage('1', '4111111111111111'));
    expect(digestMessage('idem', 'v2:1:4111111111111111')).not.toBe(fingerprintMessage('1', '4111111111111111'));
  });
});

describe('keyring parsing', () => {
  it('parses one entry as the active key', () => {
    const k = key();
    const ring = parseKeyring(`kek-1:${b64(k)}`);
    expect(ring.activeId).toBe('kek-1');
    expect(ring.keys.size).toBe(1);
    expect(ring.keys.get(ring.activeId)!.equals(k)).toBe(true);
  });

  it('makes the first of several entries active, keeps the rest, and ignores spaces and empty entries', () => {
    const [a, b, c] = [key(), key(), key()];
    const ring = parseKeyring(` new.key_2:${b64(a)} , old-1:${b64(b)},,older:${b64(c)}, `);
    expect(ring.activeId).toBe('new.key_2');
    expect([...ring.keys.keys()]).toEqual(['new.key_2', 'old-1', 'older']);
    expect(ring.keys.get('old-1')!.equals(b)).toBe(true);
  });

  it.each([
    ['an empty value', ''],
    ['only commas and spaces', ' , ,'],
  ])('refuses %s', (_name, value) => {
    expect(() => parseKeyring(value)).toThrow(/at least one/);
  });

  it.each([
    ['no colon', () => b64(key())],
    ['an empty key id', () => `:${b64(key())}`],
  ])('refuses an entry with %s (bad format)', (_name, value) => {
    expect(() => parseKeyring(value())).toThrow(/keyId:base64Key/);
  });

  it.each([
    ['16 bytes', () => `kek-1:${b64(randomBytes(16))}`],
    ['31 bytes', () => `kek-1:${b64(randomBytes(31))}`],
    ['33 bytes', () => `kek-1:${b64(randomBytes(33))}`],
    ['nothing', () => 'kek-1:'],
    ['text that is not base64', () => 'kek-1:not-a-key'],
  ])('refuses a key of %s (wrong length)', (_name, value) => {
    expect(() => parseKeyring(value())).toThrow(new RegExp(`${KEY_BYTES} bytes`));
  });

  it('refuses a key id that appears twice', () => {
    expect(() => parseKeyring(`kek-1:${b64(key())},kek-1:${b64(key())}`)).toThrow(/appears twice/);
  });

  it.each(['kek 1', 'kek/1', 'kék', 'kek+1', 'k'.repeat(65)])('refuses the key id %j (bad characters or too long)', (id) => {
    expect(() => parseKeyring(`${id}:${b64(key())}`)).toThrow(/key id/);
  });

  it('accepts a 64-character key id', () => {
    expect(parseKeyring(`${'k'.repeat(64)}:${b64(key())}`).activeId).toBe('k'.repeat(64));
  });

  it('never puts the key material in an error message', () => {
    const secret = b64(key());
    const attempts = [
      `kek-1:${secret},kek-1:${secret}`,
      `kek-1:${secret.slice(0, 20)}`,
      `${secret}:kek-1`,
      `bad id:${secret}`,
    ];
    for (const value of attempts) {
      let message = '';
      try {
        parseKeyring(value);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, value).not.toBe('');
      expect(message).not.toContain(secret);
      expect(message).not.toContain(secret.slice(0, 20));
    }
  });

  it('parses a single 32-byte key and refuses other lengths', () => {
    const k = key();
    expect(parseSingleKey(` ${b64(k)} `).equals(k)).toBe(true);
    expect(() => parseSingleKey(b64(randomBytes(16)))).toThrow(/32 bytes/);
    expect(() => parseSingleKey('')).toThrow(/32 bytes/);
  });
});

describe('job signatures (packages/shared/src/vault/job-signature.ts)', () => {
  const signer = softwareJobSigner('job-1', key());
  const keys = jobVerifyKeys(jobVerifyKeyring(signer));
  const payload = { version: 2, tokenId: '0190f3c4-9c4e-7a3b-8c1d-2e3f4a5b6c7d', propertyId: '1', mode: 'test', requestId: 'r-1', destination: 'acme', body: '{"n":"{{card.number}}"}' };
  const signed = () => signJob(signer, 'forward-card-token', payload, 60_000);

  it('verifies what it signed, whatever the order of the keys as the queue hands them back', async () => {
    const job = await signed();
    expect(jobRefusal(keys, 'forward-card-token', job)).toBeUndefined();
    const reordered = Object.fromEntries(Object.entries(JSON.parse(JSON.stringify(job)) as Record<string, unknown>).reverse());
    expect(jobRefusal(keys, 'forward-card-token', reordered)).toBeUndefined();
  });

  it('refuses any field changed, added or dropped, and the same payload under another job name: bad_signature', async () => {
    const job = await signed();
    for (const change of [{ propertyId: '2' }, { mode: 'live' }, { destination: 'other' }, { body: '{}' }, { requestId: 'r-2' }, { extra: 1 }, { signedUntil: new Date(Date.now() + 3_600_000).toISOString() }]) {
      expect(jobRefusal(keys, 'forward-card-token', { ...job, ...change }), JSON.stringify(change)).toBe('bad_signature');
    }
    const { destination: _dropped, ...without } = job;
    expect(jobRefusal(keys, 'forward-card-token', without)).toBe('bad_signature');
    expect(jobRefusal(keys, 'read-card-token', job)).toBe('bad_signature');
  });

  it('names why: unsigned, unknown_key, expired (only once the signature verifies)', async () => {
    const { signature: _signature, ...unsigned } = await signed();
    for (const data of [unsigned, payload, null, 'text', [1], { ...(await signed()), signature: { keyId: 'job-1', value: 'short' } }]) {
      expect(jobRefusal(keys, 'forward-card-token', data)).toBe('unsigned');
    }
    expect(jobRefusal(keys, 'forward-card-token', await signJob(softwareJobSigner('job-2', key()), 'forward-card-token', payload, 60_000))).toBe('unknown_key');
    const expired = await signJob(signer, 'forward-card-token', payload, -1);
    expect(jobRefusal(keys, 'forward-card-token', expired)).toBe('expired');
    expect(jobRefusal(keys, 'forward-card-token', { ...expired, propertyId: '2' })).toBe('bad_signature');
  });
});
