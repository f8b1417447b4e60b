// Where a webhook may go (docs/export.md#webhooks): https only unless WEBHOOK_ALLOW_INSECURE, and
// never to a private, loopback, link-local or otherwise non-public address unless
// WEBHOOK_ALLOW_PRIVATE, so an endpoint cannot make the service probe its own network or a cloud
// metadata service. The rules in force apply at every send, so turning a setting off stops
// deliveries to endpoints created while it was on. An IPv6 address that embeds, translates or routes to IPv4 (mapped, compatible,
// NAT64, 6to4, Teredo) is judged by the IPv4 address it carries; other IPv6 space outside global
// unicast is refused. Checked at creation (an IP literal, or every address a hostname resolves to)
// and again at delivery: the worker resolves, checks, and connects to the address it checked
// (http-client.ts), so a name re-pointed after creation (DNS rebinding) gains nothing.

import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

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

/** IPv4 space that is not the public internet (IANA special-purpose registry, 6to4 relays included). */
const refusedIpv4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) refusedIpv4.addSubnet(network, prefix, 'ipv4');

const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 addresses an IPv6 address carries, when it is one of the forms that embed, translate or
 * route to IPv4 (its packets end up at those IPv4 addresses); undefined for any other address.
 */
function embeddedIpv4(parts: number[]): string[] | undefined {
  const [p0, p1, p2, p3, p4, p5, p6, p7] = parts as [number, number, number, number, number, number, number, number];
  const last = ipv4Of(p6, p7);
  const zeroTo = (end: number) => parts.slice(0, end).every((part) => part === 0);
  // ::a.b.c.d (IPv4-compatible, :: and ::1 included), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated, SIIT).
  if (zeroTo(5) && (p5 === 0 || p5 === 0xffff)) return [last];
  if (zeroTo(4) && p4 === 0xffff && p5 === 0) return [last];
  // 64:ff9b::a.b.c.d, NAT64's well-known prefix (RFC 6052).
  if (p0 === 0x64 && p1 === 0xff9b && p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0) return [last];
  // 2002:AABB:CCDD::/48, 6to4 (RFC 3056): the IPv4 address follows the prefix.
  if (p0 === 0x2002) return [ipv4Of(p1, p2)];
  // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, Teredo (RFC 4380): the server, and the client stored inverted.
  if (p0 === 0x2001 && p1 === 0) return [ipv4Of(p2, p3), ipv4Of(~p6 & 0xffff, ~p7 & 0xffff)];
  return undefined;
}

/**
 * IPv6 space refused whatever it holds: outside global unicast (2000::/3) every address is refused
 * (site-local, unique-local, link-local, discard-only, multicast, NAT64's local-use prefix, whose
 * IPv4 position the network chooses…) unless embeddedIpv4 decoded it; inside it, these.
 */
const refusedGlobalIpv6 = new BlockList();
for (const [network, prefix] of [
  // IETF protocol assignments (benchmarking, ORCHID, AMT…; Teredo is decoded first), documentation.
  ['2001::', 23], ['2001:db8::', 32], ['3fff::', 20],
] as const) refusedGlobalIpv6.addSubnet(network, prefix, 'ipv6');

/** True for an address that is not on the public internet, however it is written. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refusedIpv4.check(address, 'ipv4');
  if (family !== 6 || !ipaddr.IPv6.isValid(address)) return true;
  const ipv6 = ipaddr.IPv6.parse(address);
  const carried = embeddedIpv4(ipv6.parts);
  if (carried) return carried.some((ipv4) => refusedIpv4.check(ipv4, 'ipv4'));
  if (!ipv6.match(ipaddr.IPv6.parse('2000::'), 3)) return true;
  // The zone (fe80::1%eth0) is not part of the address BlockList compares.
  return refusedGlobalIpv6.check(ipv6.toNormalizedString(), 'ipv6');
}

export class WebhookAddressError extends Error {
  /** `non-public`: the address is refused by the rule WEBHOOK_ALLOW_PRIVATE lifts; `unresolved`: the name has no address. */
  constructor(message: string, readonly reason: 'non-public' | 'unresolved') {
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
  if (!first) throw new WebhookAddressError(`${hostname} does not resolve to any address`, 'unresolved');
  if (!rules.allowPrivate) {
    const bad = addresses.find((entry) => isNonPublicAddress(entry.address));
    if (bad) {
      throw new WebhookAddressError(
        literal ? `${hostname} is a private, loopback or link-local address; webhooks go to public addresses only`
          : `${hostname} resolves to ${bad.address}, a private, loopback or link-local address; webhooks go to public addresses only`,
        'non-public',
      );
    }
  }
  return first;
}

/**
 * What the URL itself must be, under the rules in force: its scheme and no credentials. Checked at
 * creation and again at every send (the settings may have changed since the endpoint was created).
 */
export function urlFormProblem(url: URL, rules: Pick<TAddressRules, 'allowInsecure'>): string | undefined {
  if (url.protocol !== 'https:' && !(rules.allowInsecure && url.protocol === 'http:')) {
    return rules.allowInsecure ? 'must be an http or https URL' : 'must be an https URL';
  }
  if (url.username || url.password) return 'must not carry a user name or password';
  return undefined;
}

/**
 * What a refusal at creation adds: the setting that lifts the rule, so a developer whose receiver
 * is local knows what to set. Only at creation: at a send the endpoint exists already, and the
 * delivery's last error says what the rules in force refused.
 */
const ALLOW_INSECURE_HINT = 'WEBHOOK_ALLOW_INSECURE=true allows http:// in development';
const ALLOW_PRIVATE_HINT = 'WEBHOOK_ALLOW_PRIVATE=true allows it in development';

/**
 * Every reason an endpoint URL is refused at creation (none: it may be used). A URL refused for
 * its form is still judged by the address rule when its host is an IP literal (no lookup), so a
 * local http:// receiver's refusal names both settings at once; a name is resolved only for a URL
 * whose form passed.
 */
export async function endpointUrlProblems(raw: string, rules: TAddressRules, resolve: TResolver = systemResolver): Promise<string[]> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return ['must be an absolute URL'];
  }
  const host = hostOf(url);
  const formProblem = urlFormProblem(url, rules);
  const problems = formProblem ? [url.protocol === 'http:' && !rules.allowInsecure ? `${formProblem} (${ALLOW_INSECURE_HINT})` : formProblem] : [];
  if (formProblem && !isIP(host)) return problems;
  try {
    await resolveChecked(host, rules, resolve);
  } catch (error) {
    if (!(error instanceof WebhookAddressError)) return [...problems, `${host} cannot be resolved`];
    return [...problems, error.reason === 'non-public' ? `${error.message} (${ALLOW_PRIVATE_HINT})` : error.message];
  }
  return problems;
}
