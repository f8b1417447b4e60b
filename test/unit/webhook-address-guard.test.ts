import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { endpointUrlProblem, isNonPublicAddress, type TResolver } from '@folio-vault/shared/webhooks/address-guard';
import { generateSecret, openSecret, sealSecret } from '@folio-vault/shared/webhooks/secrets';
import { publicKeyring } from '@folio-vault/shared/vault/crypto/transit';
import { sendWebhook, WebhookSendError } from '@folio-vault/worker/webhooks/http-client';

/**
 * The webhook address rules with an injected resolver, at creation and at delivery time (a name
 * that now resolves to a private address is not contacted), and the sealing of secrets.
 */
const rules = { allowInsecure: false, allowPrivate: false };
const resolvingTo = (address: string): TResolver => async () => [{ address, family: address.includes(':') ? 6 : 4 }];

let server: Server;
let port = 0;
let requests = 0;
beforeAll(async () => {
  server = createServer((_req, res) => {
    requests += 1;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

describe('which addresses are public', () => {
  it.each(['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1'])(
    '%s is not public',
    (address) => expect(isNonPublicAddress(address)).toBe(true),
  );
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('%s is public', (address) => expect(isNonPublicAddress(address)).toBe(false));
});

describe('at creation', () => {
  it('refuses a name whose any address is private, and accepts a public one', async () => {
    expect(await endpointUrlProblem('https://hooks.example/x', rules, resolvingTo('10.9.8.7'))).toBe(
      'hooks.example resolves to 10.9.8.7, a private, loopback or link-local address; webhooks go to public addresses only',
    );
    expect(await endpointUrlProblem('https://hooks.example/x', rules, resolvingTo('93.184.216.34'))).toBeUndefined();
    expect(await endpointUrlProblem('https://user:pw@hooks.example/x', rules, resolvingTo('93.184.216.34'))).toBe('must not carry a user name or password');
    expect(await endpointUrlProblem('http://hooks.example/x', { ...rules, allowInsecure: true }, resolvingTo('93.184.216.34'))).toBeUndefined();
    expect(await endpointUrlProblem('ftp://hooks.example/x', { ...rules, allowInsecure: true }, resolvingTo('93.184.216.34'))).toBe('must be an http or https URL');
  });
});

describe('at delivery', () => {
  it('does not contact a name that now resolves to a private address', async () => {
    const before = requests;
    const send = sendWebhook(`http://hooks.example:${port}/x`, {}, '{}', { timeoutMs: 2_000, allowPrivate: false, resolve: resolvingTo('127.0.0.1') });
    await expect(send).rejects.toThrow(WebhookSendError);
    await expect(send).rejects.toThrow('hooks.example resolves to 127.0.0.1, a private, loopback or link-local address; webhooks go to public addresses only');
    await expect(sendWebhook(`http://hooks.example:${port}/x`, {}, '{}', { timeoutMs: 2_000, allowPrivate: false, resolve: resolvingTo('10.1.2.3') })).rejects.toThrow(
      'hooks.example resolves to 10.1.2.3',
    );
    await expect(sendWebhook(`http://127.0.0.1:${port}/x`, {}, '{}', { timeoutMs: 2_000, allowPrivate: false })).rejects.toThrow('127.0.0.1 is a private');
    expect(requests).toBe(before);
  });

  it('connects to the checked address when private addresses are allowed', async () => {
    const before = requests;
    const answer = await sendWebhook(`http://hooks.example:${port}/x`, {}, '{}', { timeoutMs: 2_000, allowPrivate: true, resolve: resolvingTo('127.0.0.1') });
    expect(answer.statusCode).toBe(200);
    expect(requests).toBe(before + 1);
  });
});

describe('sealed secrets', () => {
  it('opens with the worker key it was sealed to after a rotation, only for its endpoint, and never with the public keys', async () => {
    const old = parseKeyring(`t1:${Buffer.alloc(32, 1).toString('base64')}`);
    const rotated = parseKeyring(`t2:${Buffer.alloc(32, 2).toString('base64')},t1:${Buffer.alloc(32, 1).toString('base64')}`);
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const sealed = await sealSecret(publicKeyring(old), 'endpoint-a', secret);
    expect(sealed.includes(Buffer.from(secret))).toBe(false);
    expect(await openSecret(rotated, 'endpoint-a', sealed)).toBe(secret);
    await expect(openSecret(rotated, 'endpoint-b', sealed)).rejects.toThrow();
    await expect(openSecret(publicKeyring(rotated), 'endpoint-a', sealed)).rejects.toThrow();
    // Stored as 0x02 | key id length | key id | …: the newest key's id.
    expect((await sealSecret(publicKeyring(rotated), 'endpoint-a', secret)).subarray(2, 4).toString()).toBe('t2');
  });
});
