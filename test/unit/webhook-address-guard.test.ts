import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { endpointUrlProblems, isNonPublicAddress, type TResolver } from '@folio-vault/shared/webhooks/address-guard';
import { generateSecret, openSecret, sealSecret } from '@folio-vault/shared/webhooks/secrets';
import { publicKeyring } from '@folio-vault/shared/vault/crypto/transit';
import { createTestPki } from '@folio-vault/test-kit/gateway';
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
  server = createServer((req, res) => {
    requests += 1;
    if (req.url === '/redirect') res.writeHead(302, { location: '/x' }).end();
    else if (req.url === '/endless') {
      // An answer that never ends: the attempt needs its status only.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const write = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', write);
      };
      write();
    } else res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

describe('which addresses are public', () => {
  it.each(['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '192.88.99.1', '::1', '::', 'fe80::1', 'fd00::1'])(
    '%s is not public',
    (address) => expect(isNonPublicAddress(address)).toBe(true),
  );

  // IPv6 forms that embed, translate or route to IPv4, and IPv6 ranges that are not global unicast.
  // The Teredo client address is stored inverted: 80ff:fffe is 127.0.0.1, f5ff:fffe 10.0.0.1, f7f7:f7f7 8.8.8.8.
  it.each([
    ['IPv4-mapped', '::ffff:127.0.0.1'],
    ['IPv4-mapped, hex', '::ffff:7f00:1'],
    ['IPv4-mapped, link-local', '::ffff:169.254.169.254'],
    ['IPv4-compatible', '::127.0.0.1'],
    ['IPv4-compatible, hex', '::7f00:1'],
    ['IPv4-compatible, private', '::10.0.0.1'],
    ['IPv4-compatible, link-local', '::a9fe:a9fe'],
    ['IPv4-translated (SIIT)', '::ffff:0:127.0.0.1'],
    ['NAT64 well-known prefix', '64:ff9b::7f00:1'],
    ['NAT64 well-known prefix, dotted', '64:ff9b::192.168.1.1'],
    ['NAT64 local-use prefix', '64:ff9b:1::a00:1'],
    ['NAT64 local-use prefix, public IPv4', '64:ff9b:1::808:808'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['6to4 of a private address', '2002:a00:1::1'],
    ['6to4 of link-local', '2002:a9fe:a9fe::'],
    ['Teredo, client loopback', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
    ['Teredo, client private', '2001:0:4136:e378:8000:63bf:f5ff:fffe'],
    ['Teredo, server private', '2001:0:a00:1:8000:63bf:f7f7:f7f7'],
    ['site-local', 'fec0::1'],
    ['unique-local fc00::/8', 'fc00::1'],
    ['unique-local fd00::/8', 'fd12:3456:789a::1'],
    ['discard-only', '100::1'],
    ['discard-only, first', '100::'],
    ['link-local', 'fe80::1'],
    ['link-local, end of /10', 'febf:ffff::1'],
    ['link-local with a zone', 'fe80::1%eth0'],
    ['multicast', 'ff02::1'],
    ['documentation', '2001:db8::1'],
    ['documentation 3fff::/20', '3fff::1'],
    ['benchmarking', '2001:2::1'],
    ['ORCHIDv2', '2001:20::1'],
    ['outside global unicast', '4000::1'],
  ])('%s (%s) is not public', (_form, address) => expect(isNonPublicAddress(address)).toBe(true));

  it.each([
    '93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:81c::200e',
    // Embedded public IPv4: decoded and checked like the IPv4 address itself.
    '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('%s is public', (address) => expect(isNonPublicAddress(address)).toBe(false));

  // Each range ipaddr.js's range() names is refused; only what it calls unicast is public.
  it.each([
    ['carrierGradeNat', '100.127.255.254'],
    ['private', '172.31.255.255'],
    ['loopback', '127.255.255.254'],
    ['linkLocal', '169.254.0.1'],
    ['reserved', '198.18.0.1'],
    ['reserved', '240.0.0.1'],
    ['multicast', '239.255.255.250'],
    ['unspecified', '0.1.2.3'],
    ['broadcast', '255.255.255.255'],
    ['as112', '192.175.48.1'],
    ['amt', '192.52.193.1'],
    ['uniqueLocal', 'fdff:ffff::1'],
    ['linkLocal', 'fe80::abcd'],
    ['loopback', '::1'],
    ['unspecified', '::'],
    ['multicast', 'ff05::2'],
    ['ipv4Mapped', '::ffff:10.1.2.3'],
    ['rfc6145', '::ffff:0:192.168.0.1'],
    ['rfc6052', '64:ff9b::a9fe:a9fe'],
    ['reserved', '2001:db8:1::1'],
    ['benchmarking', '2001:2:0:1::1'],
    ['amt', '2001:3::1'],
    ['as112v6', '2620:4f:8000::1'],
    ['orchid2', '2001:2f::1'],
    ['segmentRouting', '5f00::1'],
  ])('range() %s: %s is not public', (range, address) => {
    expect(ipaddr.parse(address).range()).toBe(range);
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each(['not an address', '', '1.2.3', '::g'])('%j is not an address, so not public', (address) => expect(isNonPublicAddress(address)).toBe(true));
});

describe('at creation', () => {
  const PRIVATE = ' (WEBHOOK_ALLOW_PRIVATE=true allows it in development)';

  it('refuses a name whose any address is private, and accepts a public one', async () => {
    expect(await endpointUrlProblems('https://hooks.example/x', rules, resolvingTo('10.9.8.7'))).toEqual([
      `hooks.example resolves to 10.9.8.7, a private, loopback or link-local address; webhooks go to public addresses only${PRIVATE}`,
    ]);
    expect(await endpointUrlProblems('https://hooks.example/x', rules, resolvingTo('93.184.216.34'))).toEqual([]);
    // DNS answers in IPv6 forms that lead to IPv4 space are decoded like literals.
    for (const address of ['64:ff9b::a00:1', '2002:7f00:1::', '::127.0.0.1', 'fec0::1', '100::1']) {
      expect(await endpointUrlProblems('https://hooks.example/x', rules, resolvingTo(address))).toEqual([
        `hooks.example resolves to ${address}, a private, loopback or link-local address; webhooks go to public addresses only${PRIVATE}`,
      ]);
    }
    expect(await endpointUrlProblems('https://user:pw@hooks.example/x', rules, resolvingTo('93.184.216.34'))).toEqual(['must not carry a user name or password']);
    expect(await endpointUrlProblems('http://hooks.example/x', { ...rules, allowInsecure: true }, resolvingTo('93.184.216.34'))).toEqual([]);
    expect(await endpointUrlProblems('ftp://hooks.example/x', { ...rules, allowInsecure: true }, resolvingTo('93.184.216.34'))).toEqual(['must be an http or https URL']);
  });

  it('names the setting that lifts each rule, and resolves no name for a URL whose form is refused', async () => {
    const resolveNothing: TResolver = async () => {
      throw new Error('resolved a name for a refused URL');
    };
    expect(await endpointUrlProblems('http://hooks.example/x', rules, resolveNothing)).toEqual([
      'must be an https URL (WEBHOOK_ALLOW_INSECURE=true allows http:// in development)',
    ]);
    expect(await endpointUrlProblems('http://[::1]:9000/x', rules, resolveNothing)).toEqual([
      'must be an https URL (WEBHOOK_ALLOW_INSECURE=true allows http:// in development)',
      `::1 is a private, loopback or link-local address; webhooks go to public addresses only${PRIVATE}`,
    ]);
    expect(await endpointUrlProblems('http://[::1]:9000/x', { allowInsecure: true, allowPrivate: true }, resolveNothing)).toEqual([]);
    // A name without addresses: no setting helps.
    expect(await endpointUrlProblems('https://hooks.example/x', rules, async () => [])).toEqual(['hooks.example does not resolve to any address']);
  });
});

describe('at delivery', () => {
  it('does not contact a name that now resolves to a private address', async () => {
    const before = requests;
    const send = sendWebhook(`http://hooks.example:${port}/x`, {}, '{}', { timeoutMs: 2_000, rules: { allowInsecure: true, allowPrivate: false }, resolve: resolvingTo('127.0.0.1') });
    await expect(send).rejects.toThrow(WebhookSendError);
    await expect(send).rejects.toThrow('hooks.example resolves to 127.0.0.1, a private, loopback or link-local address; webhooks go to public addresses only');
    await expect(sendWebhook(`http://hooks.example:${port}/x`, {}, '{}', { timeoutMs: 2_000, rules: { allowInsecure: true, allowPrivate: false }, resolve: resolvingTo('10.1.2.3') })).rejects.toThrow(
      'hooks.example resolves to 10.1.2.3',
    );
    await expect(sendWebhook(`http://127.0.0.1:${port}/x`, {}, '{}', { timeoutMs: 2_000, rules: { allowInsecure: true, allowPrivate: false } })).rejects.toThrow('127.0.0.1 is a private');
    expect(requests).toBe(before);
  });

  it('does not contact an http URL once insecure URLs are no longer allowed', async () => {
    const before = requests;
    await expect(sendWebhook(`http://127.0.0.1:${port}/x`, {}, '{}', { timeoutMs: 2_000, rules: { allowInsecure: false, allowPrivate: true } })).rejects.toThrow(
      'the endpoint URL must be an https URL',
    );
    expect(requests).toBe(before);
  });

  it('connects to the checked address when private addresses are allowed', async () => {
    const before = requests;
    const answer = await sendWebhook(`http://hooks.example:${port}/x`, {}, '{}', { timeoutMs: 2_000, rules: { allowInsecure: true, allowPrivate: true }, resolve: resolvingTo('127.0.0.1') });
    expect(answer.statusCode).toBe(200);
    expect(requests).toBe(before + 1);
  });
});

describe('the attempt itself (undici)', () => {
  const open = { timeoutMs: 2_000, rules: { allowInsecure: true, allowPrivate: true } };

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const before = requests;
    expect(await sendWebhook(`http://127.0.0.1:${port}/redirect`, {}, '{}', open)).toEqual({ statusCode: 302 });
    expect(requests).toBe(before + 1);
  });

  it('reads a bounded part of the answer: one that never ends still gives its status', async () => {
    expect(await sendWebhook(`http://127.0.0.1:${port}/endless`, {}, '{}', open)).toEqual({ statusCode: 200 });
  });

  it('verifies TLS against the default roots: a certificate of another CA gets nothing sent', async () => {
    const pki = await createTestPki();
    let received = 0;
    const tlsServer = createHttpsServer({ cert: pki.serverCert, key: pki.serverKey }, (_req, res) => {
      received += 1;
      res.end();
    });
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    try {
      const send = sendWebhook(`https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}/x`, {}, '{}', open);
      await expect(send).rejects.toThrow(WebhookSendError);
      await expect(send).rejects.toThrow(/certificate/);
      expect(received).toBe(0);
    } finally {
      await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    }
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
