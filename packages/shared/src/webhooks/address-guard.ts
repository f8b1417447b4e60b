// Where a webhook may go (docs/export.md#webhooks): https only unless WEBHOOK_ALLOW_INSECURE, and
// never to a private, loopback, link-local or otherwise non-public address unless
// WEBHOOK_ALLOW_PRIVATE, so an endpoint cannot make the service probe its own network or a cloud
// metadata service. Checked at creation (an IP literal, or every address a hostname resolves to)
// and again at delivery: the worker resolves, checks, and connects to the address it checked
// (http-client.ts), so a name re-pointed after creation (DNS rebinding) gains nothing.

import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

/** One address a hostname resolves to. */
export interface TResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a hostname to every address; tests inject their own. */
export type TResolver = (hostname: string) => Promise<TResolvedAddress[]>;

export const systemResolver: TResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));

export interface TAddressRules {
  allowInsecure: boolean;
  allowPrivate: boolean;
}

const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) refused.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  // Unspecified, loopback, NAT64 (it reaches IPv4 space), documentation, unique-local, link-local, multicast.
  // Not ::ffff:0:0/96 here: BlockList matches IPv4 addresses against it too (isNonPublicAddress handles mapped ones).
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) refused.addSubnet(network, prefix, 'ipv6');

/** True for an address that is not on the public internet. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  // IPv4-mapped IPv6 (::ffff:a.b.c.d, ::ffff:7f00:1) reaches IPv4 space: never a webhook's address.
  if (family === 6 && /^(0{1,4}:){5}ffff:/i.test(address.replace(/^::/, '0:0:0:0:0:'))) return true;
  return refused.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

export class WebhookAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookAddressError';
  }
}

/** The URL's host without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * The address to connect to for `hostname`: an IP literal itself, else the first resolved address,
 * once every resolved address has passed (one bad answer refuses the name: a resolver may rotate).
 */
export async function resolveChecked(hostname: string, rules: Pick<TAddressRules, 'allowPrivate'>, resolve: TResolver = systemResolver): Promise<TResolvedAddress> {
  const literal = isIP(hostname);
  const addresses = literal ? [{ address: hostname, family: literal as 4 | 6 }] : await resolve(hostname);
  const first = addresses[0];
  if (!first) throw new WebhookAddressError(`${hostname} does not resolve to any address`);
  if (!rules.allowPrivate) {
    const bad = addresses.find((entry) => isNonPublicAddress(entry.address));
    if (bad) {
      throw new WebhookAddressError(
        literal ? `${hostname} is a private, loopback or link-local address; webhooks go to public addresses only`
          : `${hostname} resolves to ${bad.address}, a private, loopback or link-local address; webhooks go to public addresses only`,
      );
    }
  }
  return first;
}

/** The reason an endpoint URL is refused, or undefined when it may be used. */
export async function endpointUrlProblem(raw: string, rules: TAddressRules, resolve: TResolver = systemResolver): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(rules.allowInsecure && url.protocol === 'http:')) {
    return rules.allowInsecure ? 'must be an http or https URL' : 'must be an https URL';
  }
  if (url.username || url.password) return 'must not carry a user name or password';
  try {
    await resolveChecked(hostOf(url), rules, resolve);
  } catch (error) {
    if (error instanceof WebhookAddressError) return error.message;
    return `${hostOf(url)} cannot be resolved`;
  }
  return undefined;
}
