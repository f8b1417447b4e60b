// Where a webhook may go (docs/export.md#webhooks): https only unless WEBHOOK_ALLOW_INSECURE, and
// never to a private, loopback, link-local or otherwise non-public address unless
// WEBHOOK_ALLOW_PRIVATE, so an endpoint cannot make the service probe its own network or a cloud
// metadata service. The rules in force apply at every send, so turning a setting off stops
// deliveries to endpoints created while it was on. An IPv6 address that embeds, translates or routes to IPv4 (mapped, compatible,
// NAT64, 6to4, Teredo) is judged by the IPv4 address it carries; other IPv6 space outside global
// unicast is refused. The ranges are ipaddr.js's (range()); only the IPv4 inside 6to4 and Teredo
// addresses is decoded here. Checked at creation (an IP literal, or every address a hostname resolves to)
// and again at delivery: the worker resolves, checks, and connects to the address it checked
// (http-client.ts), so a name re-pointed after creation (DNS rebinding) gains nothing.

import { isIP } from 'node:net';
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

/*
 * ipaddr.js's range() names every special-purpose range of the IANA registries (private,
 * loopback, linkLocal, carrierGradeNat, reserved, multicast, uniqueLocal, teredo, 6to4…) and calls
 * the rest `unicast`. Only `unicast` is public: a range a later version names is refused.
 */
const isPublicIpv4 = (ipv4: ipaddr.IPv4) => ipv4.range() === 'unicast';
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/** The IPv4 address in the last 32 bits of an IPv6 one (mapped, translated, NAT64, compatible). */
const lastIpv4 = (ipv6: ipaddr.IPv6) => new ipaddr.IPv4(ipv6.toByteArray().slice(12));
const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 addresses an IPv6 address carries, when it is one of the forms that embed, translate or
 * route to IPv4 (its packets end up at those IPv4 addresses); undefined for any other address.
 */
function carriedIpv4(ipv6: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const parts = ipv6.parts;
  switch (ipv6.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d, translated (SIIT)
      return [lastIpv4(ipv6)];
    case 'rfc6052': // NAT64: the well-known 64:ff9b::/96; in the local-use /48 the network chooses where the IPv4 part sits
      return ipv6.match(NAT64_WELL_KNOWN) ? [lastIpv4(ipv6)] : undefined;
    case '6to4': // 2002:AABB:CCDD::/48 (RFC 3056): the IPv4 address follows the prefix.
      return [ipv4Of(parts[1]!, parts[2]!)];
    case 'teredo': // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC (RFC 4380): the server, and the client stored inverted.
      return [ipv4Of(parts[2]!, parts[3]!), ipv4Of(~parts[6]! & 0xffff, ~parts[7]! & 0xffff)];
    case 'unicast': // ::a.b.c.d, IPv4-compatible (deprecated): range() does not name it.
      return parts.slice(0, 6).every((part) => part === 0) ? [lastIpv4(ipv6)] : undefined;
    default:
      return undefined;
  }
}

/**
 * True for an address that is not on the public internet, however it is written. IPv6 is public
 * when it is global unicast (2000::/3) that range() names no special range of, or when the IPv4
 * address it carries is.
 */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !isPublicIpv4(ipaddr.IPv4.parse(address));
  if (family !== 6 || !ipaddr.IPv6.isValid(address)) return true;
  const ipv6 = ipaddr.IPv6.parse(address);
  const carried = carriedIpv4(ipv6);
  if (carried) return !carried.every(isPublicIpv4);
  return ipv6.range() !== 'unicast' || !ipv6.match(GLOBAL_UNICAST);
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
