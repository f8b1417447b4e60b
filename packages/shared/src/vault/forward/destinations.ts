// The payment gateways a card may be forwarded to (VAULT_FORWARD_DESTINATIONS, docs/vault.md):
// inline JSON or the path of a JSON file. Every problem is one line that names the setting and the
// place in it; all of them are reported at once. Problems never quote a URL (it might hold
// credentials) or a header value (it might be a secret).

import { readFileSync } from 'node:fs';
import type { TTokenizationMode } from '../schemas.js';

export const FORWARD_METHODS = ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'] as const;
export type TForwardMethod = (typeof FORWARD_METHODS)[number];

export interface TForwardDestination {
  name: string;
  /** As configured, trailing slash removed. */
  url: string;
  origin: string;
  /** URL pathname without trailing slash, '' for root. */
  basePath: string;
  modes: TTokenizationMode[];
  paths: string[];
  methods: TForwardMethod[];
  /** Raw values, may be "env:NAME". */
  headers: Record<string, string>;
  timeoutMs: number;
  ca?: string;
  cert?: string;
  key?: string;
  allowInsecure: boolean;
}

export interface TResolvedDestination extends TForwardDestination {
  resolvedHeaders: Record<string, string>;
  tls: { ca?: string; cert?: string; key?: string };
}

const SETTING = 'VAULT_FORWARD_DESTINATIONS';
const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_TIMEOUT_MS = 60_000;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FIELDS = new Set(['name', 'url', 'modes', 'paths', 'methods', 'headers', 'timeoutMs', 'ca', 'cert', 'key', 'allowInsecure']);
// The vault sets these per request: a fixed Idempotency-Key would make every forward one to the gateway.
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'idempotency-key', 'user-agent']);
const TLS_FIELDS = ['ca', 'cert', 'key'] as const;

const defaultReadFile = (path: string) => readFileSync(path, 'utf8');
const line = (location: string, message: string) => `${SETTING}: ${location}: ${message}`;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const headerLocation = (name: string) => (TOKEN.test(name) ? `headers.${name}` : `headers[${JSON.stringify(name)}]`);

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unreadable';
}

/** The setting's text as a JSON value, or the one problem that stops reading it. */
function readSetting(setting: string, readFile: (path: string) => string): { value?: unknown; problem?: string } {
  const trimmed = setting.trim();
  // JSON of any shape is inline (and never echoed: it may hold credentials or keys); a path is one line.
  const inline = /^[[{"]/.test(trimmed) || /[\r\n]/.test(trimmed);
  let text = trimmed;
  if (!inline) {
    try {
      text = readFile(trimmed);
    } catch (error) {
      return { problem: `${SETTING}: cannot read file ${trimmed} (${errorCode(error)})` };
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message may quote the text, and the text may hold a secret: not passed on.
    return { problem: inline ? `${SETTING}: is not valid JSON` : `${SETTING}: file ${trimmed} is not valid JSON` };
  }
  if (!Array.isArray(value)) return { problem: `${SETTING}: must be a JSON array of destinations` };
  return { value };
}

function urlProblems(raw: unknown, allowInsecure: boolean): { problems: string[]; url?: URL } {
  if (raw === undefined) return { problems: ['is required'] };
  if (typeof raw !== 'string' || !URL.canParse(raw)) return { problems: ['must be an absolute URL'] };
  const url = new URL(raw);
  const problems: string[] = [];
  if (url.username !== '' || url.password !== '') problems.push('must not contain credentials (user:password@)');
  if (raw.includes('?')) problems.push('must not contain a query');
  if (raw.includes('#')) problems.push('must not contain a fragment');
  const protocolOk = url.protocol === 'https:' || (allowInsecure && url.protocol === 'http:');
  if (!protocolOk) problems.push('must be an https URL (or set allowInsecure: true outside production)');
  return { problems, url: problems.length === 0 ? url : undefined };
}

function modesProblems(raw: unknown, at: string, out: string[]): TTokenizationMode[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    out.push(line(`${at}.modes`, 'must be a non-empty array of "test" and "live"'));
    return [];
  }
  const modes: TTokenizationMode[] = [];
  raw.forEach((mode: unknown, j) => {
    if (mode !== 'test' && mode !== 'live') out.push(line(`${at}.modes[${j}]`, 'must be "test" or "live"'));
    else if (modes.includes(mode)) out.push(line(`${at}.modes[${j}]`, `"${mode}" is listed twice`));
    else modes.push(mode);
  });
  return modes;
}

function pathsProblems(raw: unknown, at: string, out: string[]): string[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    out.push(line(`${at}.paths`, 'must be a non-empty array of paths'));
    return [];
  }
  raw.forEach((path: unknown, j) => {
    const where = `${at}.paths[${j}]`;
    if (typeof path !== 'string') return out.push(line(where, 'must be a string'));
    if (!path.startsWith('/')) out.push(line(where, 'must start with /'));
    if (path.includes('..')) out.push(line(where, 'must not contain ..'));
    if (path.includes('//')) out.push(line(where, 'must not contain //'));
    if (path.indexOf('*') !== -1 && path.indexOf('*') !== path.length - 1) out.push(line(where, 'may contain * only as its last character'));
  });
  return raw.filter((path): path is string => typeof path === 'string');
}

function methodsProblems(raw: unknown, at: string, out: string[]): TForwardMethod[] {
  if (raw === undefined) return ['POST'];
  if (!Array.isArray(raw) || raw.length === 0) {
    out.push(line(`${at}.methods`, `must be a non-empty array of ${FORWARD_METHODS.join(', ')}`));
    return [];
  }
  const methods = new Set<TForwardMethod>();
  raw.forEach((method: unknown, j) => {
    const upper = typeof method === 'string' ? method.toUpperCase() : '';
    if ((FORWARD_METHODS as readonly string[]).includes(upper)) methods.add(upper as TForwardMethod);
    else out.push(line(`${at}.methods[${j}]`, `must be one of ${FORWARD_METHODS.join(', ')}`));
  });
  return [...methods];
}

function headersProblems(raw: unknown, at: string, out: string[]): Record<string, string> {
  if (raw === undefined) return {};
  if (!isObject(raw)) {
    out.push(line(`${at}.headers`, 'must be an object of header names to strings'));
    return {};
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    const where = `${at}.${headerLocation(name)}`;
    if (!TOKEN.test(name)) out.push(line(where, 'is not a valid header name'));
    else if (RESERVED_HEADERS.has(name.toLowerCase())) out.push(line(where, 'is not allowed: the vault sets it'));
    else if (typeof value !== 'string') out.push(line(where, 'must be a string'));
    else if (/[\r\n]/.test(value)) out.push(line(where, 'must not contain line breaks'));
    else if (/[^\t\x20-\x7e]/.test(value)) out.push(line(where, 'must be visible ASCII, spaces or tabs'));
    else if (value.startsWith('env:') && !ENV_NAME.test(value.slice(4))) out.push(line(where, 'must name an environment variable after env:'));
    else headers[name] = value;
  }
  return headers;
}

function optionProblems(entry: Record<string, unknown>, at: string, production: boolean, out: string[]): void {
  for (const field of Object.keys(entry)) if (!FIELDS.has(field)) out.push(line(`${at}.${field}`, 'is not a known field'));
  const timeout = entry.timeoutMs;
  if (timeout !== undefined && !(Number.isInteger(timeout) && (timeout as number) >= 1 && (timeout as number) <= MAX_TIMEOUT_MS)) {
    out.push(line(`${at}.timeoutMs`, `must be an integer from 1 to ${MAX_TIMEOUT_MS}`));
  }
  for (const field of TLS_FIELDS) {
    const value = entry[field];
    if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) out.push(line(`${at}.${field}`, 'must be PEM text or a file path'));
  }
  if (entry.cert !== undefined && entry.key === undefined) out.push(line(`${at}.key`, 'is required with cert'));
  if (entry.key !== undefined && entry.cert === undefined) out.push(line(`${at}.cert`, 'is required with key'));
  if (entry.allowInsecure !== undefined && typeof entry.allowInsecure !== 'boolean') out.push(line(`${at}.allowInsecure`, 'must be true or false'));
  if (entry.allowInsecure === true && production) out.push(line(`${at}.allowInsecure`, 'is not allowed in production'));
  if (entry.allowInsecure === true && Array.isArray(entry.modes) && entry.modes.includes('live')) {
    out.push(line(`${at}.allowInsecure`, 'is not allowed for a destination of live tokens (real cards go over https only)'));
  }
}

function parseEntry(entry: unknown, at: string, production: boolean, out: string[]): TForwardDestination | undefined {
  if (!isObject(entry)) {
    out.push(line(at, 'must be an object'));
    return undefined;
  }
  const before = out.length;
  if (typeof entry.name !== 'string' || !NAME.test(entry.name)) {
    out.push(line(`${at}.name`, entry.name === undefined ? 'is required' : "must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"));
  }
  const allowInsecure = entry.allowInsecure === true;
  const { problems: urlIssues, url } = urlProblems(entry.url, allowInsecure && !production);
  out.push(...urlIssues.map((message) => line(`${at}.url`, message)));
  const modes = modesProblems(entry.modes, at, out);
  const paths = pathsProblems(entry.paths, at, out);
  const methods = methodsProblems(entry.methods, at, out);
  const headers = headersProblems(entry.headers, at, out);
  optionProblems(entry, at, production, out);
  if (out.length > before || !url) return undefined;
  const destination: TForwardDestination = {
    name: entry.name as string,
    url: (entry.url as string).replace(/\/+$/, ''),
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ''),
    modes,
    paths,
    methods,
    headers,
    timeoutMs: (entry.timeoutMs as number | undefined) ?? DEFAULT_TIMEOUT_MS,
    allowInsecure,
  };
  for (const field of TLS_FIELDS) if (typeof entry[field] === 'string') destination[field] = entry[field];
  return destination;
}

export function parseDestinations(
  setting: string | undefined,
  options: { production: boolean; readFile?: (path: string) => string },
): { destinations: TForwardDestination[]; problems: string[] } {
  if (setting === undefined || setting.trim() === '') return { destinations: [], problems: [] };
  const { value, problem } = readSetting(setting, options.readFile ?? defaultReadFile);
  if (problem !== undefined) return { destinations: [], problems: [problem] };
  const problems: string[] = [];
  const destinations: TForwardDestination[] = [];
  const firstIndexOf = new Map<string, number>();
  (value as unknown[]).forEach((entry, i) => {
    const name = isObject(entry) && typeof entry.name === 'string' ? entry.name : undefined;
    const duplicateOf = name === undefined ? undefined : firstIndexOf.get(name);
    if (name !== undefined && duplicateOf === undefined) firstIndexOf.set(name, i);
    const destination = parseEntry(entry, `[${i}]`, options.production, problems);
    if (duplicateOf !== undefined) problems.push(line(`[${i}].name`, `"${name}" is already used by [${duplicateOf}]`));
    else if (destination) destinations.push(destination);
  });
  return { destinations, problems };
}

/** Header values "env:NAME" read from env, and ca/cert/key read when they are file paths. */
export function resolveDestinationSecrets(
  destinations: TForwardDestination[],
  env: Record<string, string | undefined>,
  readFile: (path: string) => string = defaultReadFile,
): { resolved: TResolvedDestination[]; problems: string[] } {
  const problems: string[] = [];
  const resolved: TResolvedDestination[] = [];
  destinations.forEach((destination, i) => {
    const before = problems.length;
    const resolvedHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(destination.headers)) {
      const where = `[${i}].${headerLocation(name)}`;
      if (!value.startsWith('env:')) {
        resolvedHeaders[name] = value;
        continue;
      }
      const variable = value.slice(4);
      const secret = env[variable];
      if (secret === undefined || secret.trim() === '') problems.push(line(where, `environment variable ${variable} is not set`));
      else if (/[\r\n]/.test(secret)) problems.push(line(where, `environment variable ${variable} contains a line break`));
      else if (/[^\t\x20-\x7e]/.test(secret)) problems.push(line(where, `environment variable ${variable} holds characters other than visible ASCII, spaces or tabs`));
      else resolvedHeaders[name] = secret;
    }
    const tls: TResolvedDestination['tls'] = {};
    for (const field of TLS_FIELDS) {
      const value = destination[field];
      if (value === undefined) continue;
      if (value.includes('-----BEGIN')) {
        tls[field] = value;
        continue;
      }
      try {
        tls[field] = readFile(value);
      } catch (error) {
        problems.push(line(`[${i}].${field}`, `cannot read file ${value} (${errorCode(error)})`));
      }
    }
    if (problems.length === before) resolved.push({ ...destination, resolvedHeaders, tls });
  });
  return { resolved, problems };
}

export function findDestination(destinations: readonly TForwardDestination[], name: string): TForwardDestination | undefined {
  return destinations.find((destination) => destination.name === name);
}

/**
 * What the destination's rules say of a forward of a `mode` token: the request field that breaks
 * one and why, or undefined when all hold. The API answers it 400 at that field; the worker, which
 * opens the card, judges every job again by the same rules whatever wrote it to the queue.
 */
export function destinationRefusal(
  destination: TForwardDestination | TResolvedDestination,
  request: { method: string; path: string; headers?: Record<string, string> },
  mode: TTokenizationMode,
): { path: string; message: string } | undefined {
  if (!destination.modes.includes(mode)) return { path: 'destination', message: `takes ${destination.modes.join(' and ')} tokens only, not ${mode} ones` };
  if (!(destination.methods as readonly string[]).includes(request.method)) {
    return { path: 'method', message: `is not allowed for this destination (allowed: ${destination.methods.join(', ')})` };
  }
  if (!pathAllowed(destination, request.path)) return { path: 'path', message: 'is not among the paths this destination allows' };
  return contentTypeRefusal(destination, request.headers);
}

const headerNamed = (headers: Record<string, string> | undefined, lower: string) =>
  Object.keys(headers ?? {}).find((name) => name.toLowerCase() === lower);
const mediaType = (value: string) => value.split(';')[0]!.trim().toLowerCase();

/**
 * A destination's own Content-Type wins on the wire over the template's (gateway-client.ts), and
 * the template's placeholders are escaped for the template's: the two must name the same media
 * type (parameters such as charset aside), or a value escaped for one would be read as the other
 * (a JSON-escaped `x&amount=1` read as a form adds a field). The API judges a configured
 * `env:NAME` value unknown; the worker, with the value resolved, judges it.
 */
function contentTypeRefusal(
  destination: TForwardDestination | TResolvedDestination,
  headers: Record<string, string> | undefined,
): { path: string; message: string } | undefined {
  const configured = 'resolvedHeaders' in destination ? destination.resolvedHeaders : destination.headers;
  const configuredName = headerNamed(configured, 'content-type');
  const templateName = headerNamed(headers, 'content-type');
  if (configuredName === undefined || templateName === undefined) return undefined;
  const own = configured[configuredName]!;
  const fromEnv = destination.headers[configuredName]?.startsWith('env:') === true;
  if (fromEnv && !('resolvedHeaders' in destination)) return undefined;
  if (mediaType(own) === mediaType(headers![templateName]!)) return undefined;
  // A configured value is quoted, one read from the environment is not (it could be anything).
  const named = fromEnv ? '' : ` (${mediaType(own)})`;
  return { path: `headers.${templateName}`, message: `must be the destination's own Content-Type${named}, which the gateway receives` };
}

/** RFC 3986 unreserved characters: a server reads `%41` and `A` as the same path. */
const ENCODED_UNRESERVED = /%([0-9A-Fa-f]{2})/g;
const UNRESERVED = /^[A-Za-z0-9._~-]$/;

/**
 * The part of a path before '?' as a gateway reads it — percent-encoded unreserved characters
 * decoded, every other escape kept as written — or undefined when it is one the match must not
 * trust: a '.' or '..' segment (also spelled %2e), '//', a backslash, a ';' (matrix parameters:
 * `..;/` is a parent segment to some servers), a percent-encoded '/', '\\', '.' or '%' (%25: a second
 * decoding could make any of the others).
 */
export function normalisedPathPart(path: string): string | undefined {
  const raw = path.split('?')[0]!;
  if (raw.includes(';') || raw.includes('\\') || /%(?:2e|2f|5c|25)/i.test(raw)) return undefined;
  const decoded = raw.replace(ENCODED_UNRESERVED, (escape, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escape.toUpperCase();
  });
  const segments = decoded.split('/');
  if (segments.includes('..') || segments.includes('.') || decoded.includes('//')) return undefined;
  return decoded;
}

/**
 * The path part (before '?'), normalised (normalisedPathPart), matches one entry of
 * destination.paths: exact, or an entry ending in '*' as a prefix. A path that could climb out of
 * a prefix, or that a gateway could read otherwise than the match did, matches nothing.
 */
export function pathAllowed(destination: TForwardDestination, path: string): boolean {
  const pathPart = normalisedPathPart(path);
  if (pathPart === undefined) return false;
  return destination.paths.some((entry) => (entry.endsWith('*') ? pathPart.startsWith(entry.slice(0, -1)) : pathPart === entry));
}
