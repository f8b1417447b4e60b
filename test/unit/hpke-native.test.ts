import { randomBytes } from 'node:crypto';
import { Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import { describe, expect, it } from 'vitest';
import { nativeOpen, nativeSeal } from '@folio-vault/shared/vault/crypto/hpke-native';
import { parseKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { openTransit, publicKeyring, sealTransit, transitPublicKey, useNativeHpke } from '@folio-vault/shared/vault/crypto/transit';

// The `hpke-native` measure's module against @hpke/core, the RFC 9180 implementation it stands in
// for: each opens what the other sealed, for the same suite, info and associated data.
const suite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
const info = Buffer.from('folio-vault transit v2');
const aad = Buffer.from('transit:019c4d7e-4feb-73af-99f2-34c2771042f6:1:test');
const plaintext = Buffer.from(JSON.stringify({ card_number: '4111111111111111', cvv: '123', cardholder_name: 'Zoë Łukasiewicz' }));

describe('hpke-native (RFC 9180 base mode, X25519 / HKDF-SHA256 / AES-256-GCM)', () => {
  it('@hpke/core opens what it sealed', async () => {
    for (let i = 0; i < 20; i += 1) {
      const privateKey = randomBytes(32);
      const { enc, ct } = nativeSeal(transitPublicKey(privateKey), info, aad, plaintext);
      expect(enc).toHaveLength(32);
      expect(ct).toHaveLength(plaintext.length + 16);
      const recipientKey = await suite.kem.deserializePrivateKey(privateKey);
      const opened = Buffer.from(await suite.open({ recipientKey, enc, info }, ct, aad));
      expect(opened.equals(plaintext)).toBe(true);
    }
  });

  it('opens what @hpke/core sealed', async () => {
    for (let i = 0; i < 20; i += 1) {
      const privateKey = randomBytes(32);
      const recipientPublicKey = await suite.kem.deserializePublicKey(transitPublicKey(privateKey));
      const sealed = await suite.seal({ recipientPublicKey, info }, plaintext, aad);
      expect(nativeOpen(privateKey, info, aad, Buffer.from(sealed.enc), Buffer.from(sealed.ct)).equals(plaintext)).toBe(true);
    }
  });

  it('refuses another private key, other associated data, other info, a changed byte', () => {
    const privateKey = randomBytes(32);
    const { enc, ct } = nativeSeal(transitPublicKey(privateKey), info, aad, plaintext);
    expect(() => nativeOpen(randomBytes(32), info, aad, enc, ct)).toThrow();
    expect(() => nativeOpen(privateKey, info, Buffer.from('transit:other'), enc, ct)).toThrow();
    expect(() => nativeOpen(privateKey, Buffer.from('other'), aad, enc, ct)).toThrow();
    const flipped = Buffer.from(ct);
    flipped[0]! ^= 1;
    expect(() => nativeOpen(privateKey, info, aad, enc, flipped)).toThrow();
    expect(() => nativeOpen(privateKey, info, aad, enc.subarray(1), ct)).toThrow(/unknown layout/);
  });

  it('gives a fresh encapsulated key to every message', () => {
    const publicKey = transitPublicKey(randomBytes(32));
    const first = nativeSeal(publicKey, info, aad, plaintext);
    const second = nativeSeal(publicKey, info, aad, plaintext);
    expect(first.enc.equals(second.enc)).toBe(false);
    expect(first.ct.equals(second.ct)).toBe(false);
  });

  it('transit envelopes sealed with the measure on open with it off, and the other way round (PERFORMANCE_MEASURES_OFF=hpke-native)', async () => {
    const privateKeys = parseKeyring(`transit-1:${randomBytes(32).toString('base64')}`);
    const card = { card_number: '4111111111111111' };
    try {
      useNativeHpke(true);
      const sealedNative = await sealTransit(publicKeyring(privateKeys), card, 'job');
      useNativeHpke(false);
      expect(await openTransit(privateKeys, sealedNative, 'job')).toEqual(card);
      const sealedLibrary = await sealTransit(publicKeyring(privateKeys), card, 'job');
      useNativeHpke(true);
      expect(await openTransit(privateKeys, sealedLibrary, 'job')).toEqual(card);
    } finally {
      useNativeHpke(true);
    }
  });
});
