import { z } from 'zod';
import { isIP } from 'node:net';
import { parseKeyring, parseSingleKey, type TKeyring } from './vault/crypto/keyring.js';
import { isRedisClusterUrl, parseRedisClusterUrl } from './redis-url.js';
import { PERFORMANCE_MEASURE_NAMES, type TPerformanceMeasure } from './performance-measures.js';
import { DEFAULT_KEY_LABELS, ZKeyLabels, type TKeyLabels } from './vault/keys/key-labels.js';
import { WORKER_QUEUE_GROUP_NAMES, type TWorkerQueueGroup } from './queues.js';

// How one setting is read (config.ts puts them together): each schema turns an environment value
// into what the code uses, or gives the one line that says what is wrong with it.

/** The process that uses a setting: docs/settings.md lists the settings of each. */
export type TSettingReader = 'api' | 'worker' | 'both';

declare module 'zod' {
  // What a setting's `.meta()` says besides its `description` (config.ts; scripts/settings-doc.ts renders them).
  interface GlobalMeta {
    readBy?: TSettingReader;
    /** What the setting accepts, for a schema that is not a number range or a list of values. */
    accepts?: string;
  }
}

export const port = z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be 1-65535').max(65535, 'must be 1-65535');

/** A whole number in min-max; `unit` 'ms' names milliseconds in every message ("must be 1000-3600000 ms"). */
export function wholeNumberIn(min: number, max: number, unit?: 'ms') {
  const of = unit ? ' of milliseconds' : '';
  const range = `must be ${min}-${max}${unit ? ' ms' : ''}`;
  return z.coerce.number({ error: `must be a number${of}` }).int(`must be a whole number${of}`).min(min, range).max(max, range);
}

export const positiveMs = wholeNumberIn(1, 3_600_000, 'ms');
export const limitCount = wholeNumberIn(1, 1_000_000);

/** A URL with one of `protocols`; `alternative` names another accepted form in the message. */
export function urlWithProtocols(protocols: string[], alternative?: string) {
  return z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { error: `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}${alternative ? ` (${alternative})` : ''}` },
  );
}

const standaloneRedisUrl = urlWithProtocols(['redis:', 'rediss:'], 'or redis+cluster://host:port,host:port,… for a Redis Cluster');

/** redis:// or rediss://, or a cluster's seed nodes as redis+cluster://host:port,host:port,… (redis-url.ts). */
export const redisUrl = z.string().superRefine((value, ctx) => {
  if (!isRedisClusterUrl(value)) {
    const standalone = standaloneRedisUrl.safeParse(value);
    if (!standalone.success) ctx.addIssue({ code: 'custom', message: standalone.error.issues[0]?.message ?? 'is not a Redis URL' });
    return;
  }
  try {
    parseRedisClusterUrl(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

/** An optional key setting: blank is absent, and a value its parser refuses is one problem, with the parser's words. */
function keySetting<T>(parse: (value: string) => T) {
  return z
    .string()
    .optional()
    .transform((value, ctx): T | undefined => {
      if (value === undefined || value.trim() === '') return undefined;
      try {
        return parse(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });
}

export const keyringSetting = () => keySetting<TKeyring>(parseKeyring);
export const singleKeySetting = () => keySetting<Buffer>(parseSingleKey);

/** PKCS11_KEY_LABELS: JSON, any part given (key-labels.ts); unset is every default label. */
export const keyLabelsSetting = z
  .string()
  .optional()
  .transform((value, ctx): TKeyLabels => {
    if (value === undefined || value.trim() === '') return DEFAULT_KEY_LABELS;
    let json: unknown;
    try {
      json = JSON.parse(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be JSON, e.g. {"kekTest": ["folio-kek-test-2", "folio-kek-test-1"]}' });
      return z.NEVER;
    }
    const parsed = ZKeyLabels.safeParse(json);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: `${issue.path.join('.') || 'labels'}: ${issue.message}` });
    return z.NEVER;
  });

export const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value));

/** A port to listen on, or off: unset or 0 = off (undefined), 1-65535, or "ephemeral" = a free one (0). */
export const healthPort = z
  .string()
  .optional()
  .transform((value, ctx): number | undefined => {
    const text = value?.trim().toLowerCase();
    if (text === undefined || text === '' || text === '0') return undefined;
    if (text === 'ephemeral') return 0;
    const number = Number(text);
    if (/^\d+$/.test(text) && number >= 1 && number <= 65535) return number;
    ctx.addIssue({ code: 'custom', message: 'must be 0 (off), 1-65535 or "ephemeral"' });
    return z.NEVER;
  });

/** "true" or "false" (also 1/0, yes/no), for switches that are off unless set. */
export const booleanSetting = z
  .string()
  .transform((value, ctx) => {
    const text = value.trim().toLowerCase();
    if (['true', '1', 'yes'].includes(text)) return true;
    if (['false', '0', 'no'].includes(text)) return false;
    ctx.addIssue({ code: 'custom', message: 'must be true or false' });
    return z.NEVER;
  });

/** Seconds between attempts, comma-separated ("5,60,300"): whole numbers 1-604800, at most 20 of them. */
export const retrySchedule = z.string().transform((value, ctx) => {
  const parts = value.split(',').map((part) => part.trim());
  const seconds = parts.map(Number);
  if (parts.length > 20 || parts.some((part) => !/^\d+$/.test(part)) || seconds.some((n) => n < 1 || n > 604_800)) {
    ctx.addIssue({ code: 'custom', message: 'must be up to 20 whole numbers of seconds (1-604800) separated by commas, e.g. 5,60,300' });
    return z.NEVER;
  }
  return seconds;
});

/** Kinds of work a worker takes (queues.ts, WORKER_QUEUE_GROUPS), comma-separated; an unknown name, or none, is refused. */
export const workerQueueList = z.string().transform((value, ctx): TWorkerQueueGroup[] => {
  const names = value.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(WORKER_QUEUE_GROUP_NAMES as string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    const not = unknown.length > 0 ? ` (not ${unknown.join(', ')})` : '';
    ctx.addIssue({ code: 'custom', message: `must name one or more of ${WORKER_QUEUE_GROUP_NAMES.join(', ')}, comma-separated${not}` });
    return z.NEVER;
  }
  return [...new Set(names)] as TWorkerQueueGroup[];
});

/** Names of performance measures (performance-measures.ts), comma-separated; an unknown name is refused. */
export const measureList = z.string().transform((value, ctx): TPerformanceMeasure[] => {
  const names = value.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(PERFORMANCE_MEASURE_NAMES as string[]).includes(name));
  if (unknown.length > 0) {
    ctx.addIssue({ code: 'custom', message: `must name performance measures among ${PERFORMANCE_MEASURE_NAMES.join(', ')} (not ${unknown.join(', ')})` });
    return z.NEVER;
  }
  return [...new Set(names)] as TPerformanceMeasure[];
});

/** host:port (an IPv6 address in brackets) with the port required, as REDIS_SENTINELS lists them. */
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

/** REDIS_SENTINELS: `host:port,host:port,…`, at least one; unset is no Sentinel. */
export const sentinelList = z
  .string()
  .optional()
  .transform((value, ctx): Array<{ host: string; port: number }> | undefined => {
    if (value === undefined || value.trim() === '') return undefined;
    const entries = value.split(',').map((entry) => entry.trim());
    const nodes = entries.map((entry) => HOST_PORT.exec(entry));
    const bad = entries.filter((_, index) => {
      const match = nodes[index];
      return !match || Number(match[2]) < 1 || Number(match[2]) > 65535;
    });
    if (bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: `must be host:port,host:port,… (not "${bad[0]}")` });
      return z.NEVER;
    }
    return nodes.map((match) => ({ host: match![1]!.startsWith('[') ? match![1]!.slice(1, -1) : match![1]!, port: Number(match![2]) }));
  });

/** What Express's `trust proxy` takes (apps/api/src/app.ts): off, a hop count, or addresses and networks. */
export type TTrustProxy = false | number | string[];

/** The names Express (proxy-addr) gives to address ranges. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An IP address, or a network as address/prefix length. */
function isAddressOrNetwork(text: string): boolean {
  const [address, prefix, ...rest] = text.split('/');
  const version = isIP(address ?? '');
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: unset or `false` is off (the peer address is the client's); a whole number is the
 * hops of proxies in front; otherwise a comma-separated list of the proxies' addresses, networks
 * (CIDR) or Express's range names.
 */
export const trustProxySetting = z
  .string()
  .optional()
  .transform((value, ctx): TTrustProxy => {
    const text = value?.trim() ?? '';
    if (text === '' || text.toLowerCase() === 'false') return false;
    if (/^\d+$/.test(text)) {
      const hops = Number(text);
      if (hops >= 1 && hops <= 32) return hops;
      ctx.addIssue({ code: 'custom', message: 'a hop count must be 1-32' });
      return z.NEVER;
    }
    const entries = text.split(',').map((entry) => entry.trim());
    const bad = entries.find((entry) => !PROXY_RANGE_NAMES.includes(entry) && !isAddressOrNetwork(entry));
    if (bad !== undefined) {
      ctx.addIssue({ code: 'custom', message: `must be a hop count (1-32) or addresses and networks such as 10.0.0.5,10.1.0.0/16 (not "${bad}")` });
      return z.NEVER;
    }
    return entries;
  });

/**
 * OTEL_EXPORTER_OTLP_HEADERS: `name=value,name=value`, each value percent-decoded (the OpenTelemetry
 * specification's form). The messages name the entry's position, never its text: a value is a
 * collector's credential.
 */
export const otlpHeaders = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value.trim() === '') return undefined;
    const headers: Record<string, string> = {};
    for (const [index, entry] of value.split(',').entries()) {
      const at = entry.indexOf('=');
      const name = at > 0 ? entry.slice(0, at).trim() : '';
      let decoded: string | undefined;
      try {
        decoded = decodeURIComponent(entry.slice(at + 1).trim());
      } catch {
        decoded = undefined;
      }
      if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name) || decoded === undefined || /[\r\n\0]/.test(decoded)) {
        ctx.addIssue({ code: 'custom', message: `entry ${index + 1} must be name=value (the value percent-encoded)` });
        return z.NEVER;
      }
      headers[name.toLowerCase()] = decoded;
    }
    return headers;
  });
