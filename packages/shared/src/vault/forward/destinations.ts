// The payment gateways a card may be forwarded to (VAULT_FORWARD_DESTINATIONS, docs/vault.md):
// inline JSON or the path of a JSON file, each entry checked by one zod schema (ZDestination).
// Every problem is one line that names the setting and the place in it ("[0].url: …"), entry by
// entry and field by field in the documented order; all of them are reported at once. Problems
// never quote a URL (it might hold credentials) or a header value (it might be a secret).

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { TTokenizationMode } from '../schemas.js';
import { answerHeaderRefusal, destinationHeaderRefusal, HEADER_NAME } from './header-policy.js';

export const FORWARD_METHODS = ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'] as const;
export type TForwardMethod = (typeof FORWARD_METHODS)[number];

/**
 * What of a gateway's answer comes back (docs/vault.md#the-answer): the status always,
 * content-type and date and the `headers` named, the members of a JSON body at `json` (each a
 * path of keys and array indices), the keys of a form body in `form`; any other body is dropped.
 */
export interface TAnswerAllowlist {
  /** Lower-case names. */
  headers?: string[];
  json?: string[][];
  form?: string[];
}

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
  answer?: TAnswerAllowlist;
}

export interface TResolvedDestination extends TForwardDestination {
  resolvedHeaders: Record<string, string>;
  tls: { ca?: string; cert?: string; key?: string };
}

const SETTING = 'VAULT_FORWARD_DESTINATIONS';
const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_TIMEOUT_MS = 60_000;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The fields of an entry, in the order its problems are listed. */
const FIELDS = ['name', 'url', 'modes', 'paths', 'methods', 'headers', 'timeoutMs', 'ca', 'cert', 'key', 'allowInsecure', 'answer'] as const;
const TLS_FIELDS = ['ca', 'cert', 'key'] as const;

const NAME_RULE = "must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit";
const MODES_RULE = 'must be a non-empty array of "test" and "live"';
const METHODS_RULE = `must be a non-empty array of ${FORWARD_METHODS.join(', ')}`;
const METHOD_RULE = `must be one of ${FORWARD_METHODS.join(', ')}`;
const TIMEOUT_RULE = `must be an integer from 1 to ${MAX_TIMEOUT_MS}`;
const PEM_RULE = 'must be PEM text or a file path';
const POINTER_RULE = 'must be a JSON pointer ("/outcome/code") or a dotted path of letters, digits, \'_\', \'-\' or \'$\' ("outcome.code")';

const defaultReadFile = (path: string) => readFileSync(path, 'utf8');
const line = (location: string, message: string) => `${SETTING}: ${location}: ${message}`;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** `.name` for a plain key, `["a b"]` for any other, `[3]` for an index. */
const segment = (key: PropertyKey) => (typeof key === 'number' ? `[${key}]` : HEADER_NAME.test(String(key)) ? `.${String(key)}` : `[${JSON.stringify(String(key))}]`);
const headerLocation = (name: string) => `headers${segment(name)}`;
/** Runs a check even when another part of the value failed its own, so every problem is listed at once. */
const ALWAYS = { when: () => true } as const;

/** Each element of an array that equals an earlier one, as `"x" is listed twice` at its index. */
function listedTwice<T>(items: readonly T[], ctx: z.RefinementCtx, keyOf: (item: T) => string | undefined, show: (item: T) => string): void {
  if (!Array.isArray(items)) return;
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const key = keyOf(item);
    if (key === undefined) return;
    if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [index], message: `${show(item)} is listed twice` });
    seen.add(key);
  });
}

/**
 * A JSON pointer (RFC 6901: "/outcome/code", "~1" for '/', "~0" for '~') or a dotted path
 * ("outcome.code") as the keys and indices it walks, or undefined when it is neither.
 */
export function jsonPathOf(text: string): string[] | undefined {
  if (text.startsWith('/')) {
    if (/~(?![01])/.test(text)) return undefined;
    return text.slice(1).split('/').map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return /^[A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*$/.test(text) ? text.split('.') : undefined;
}

const ZStringList = (rule: string) => z.array(z.unknown(), { error: rule });

const ZModes = z
  .array(z.enum(['test', 'live'], { error: 'must be "test" or "live"' }), { error: MODES_RULE })
  .min(1, MODES_RULE)
  .superRefine((modes, ctx) => listedTwice(modes, ctx, (mode) => (typeof mode === 'string' ? mode : undefined), (mode) => `"${mode}"`), ALWAYS);

const ZPath = z.string({ error: 'must be a string' }).superRefine((path, ctx) => {
  const problem = (message: string) => ctx.addIssue({ code: 'custom', message });
  if (!path.startsWith('/')) problem('must start with /');
  if (path.includes('..')) problem('must not contain ..');
  if (path.includes('//')) problem('must not contain //');
  if (path.indexOf('*') !== -1 && path.indexOf('*') !== path.length - 1) problem('may contain * only as its last character');
});

const ZMethods = z
  .array(z.string({ error: METHOD_RULE }).transform((method) => method.toUpperCase()).pipe(z.enum(FORWARD_METHODS, { error: METHOD_RULE })), { error: METHODS_RULE })
  .min(1, METHODS_RULE)
  .transform((methods) => [...new Set(methods)])
  .default(['POST']);

/** Header name → value; one problem per header, the first rule it breaks. */
const ZHeaders = z
  .record(z.string(), z.unknown(), { error: 'must be an object of header names to strings' })
  .superRefine((headers, ctx) => {
    for (const [name, value] of Object.entries(headers)) {
      const problem = (message: string) => ctx.addIssue({ code: 'custom', path: [name], message });
      const refusal = HEADER_NAME.test(name) ? destinationHeaderRefusal(name) : 'is not a valid header name';
      if (refusal) problem(refusal);
      else if (typeof value !== 'string') problem('must be a string');
      else if (/[\r\n]/.test(value)) problem('must not contain line breaks');
      else if (/[^\t\x20-\x7e]/.test(value)) problem('must be visible ASCII, spaces or tabs');
      else if (value.startsWith('env:') && !ENV_NAME.test(value.slice(4))) problem('must name an environment variable after env:');
    }
  })
  .transform((headers) => headers as Record<string, string>)
  .default({});

const ZPem = z.string({ error: PEM_RULE }).refine((value) => value.trim() !== '', PEM_RULE).optional();

const ZAnswerHeaders = ZStringList('must be an array of header names').superRefine((names, ctx) => {
  names.forEach((name, index) => {
    const problem = (message: string) => ctx.addIssue({ code: 'custom', path: [index], message });
    if (typeof name !== 'string' || !HEADER_NAME.test(name)) return problem('is not a valid header name');
    const refusal = answerHeaderRefusal(name);
    if (refusal) problem(refusal);
  });
  listedTwice(names, ctx, (name) => (typeof name === 'string' ? name.toLowerCase() : undefined), (name) => `"${String(name)}"`);
});

const ZAnswerJson = ZStringList('must be an array of JSON pointers or dotted paths').superRefine((paths, ctx) => {
  const walked = paths.map((path) => (typeof path === 'string' ? jsonPathOf(path) : undefined));
  walked.forEach((keys, index) => keys === undefined && ctx.addIssue({ code: 'custom', path: [index], message: POINTER_RULE }));
  listedTwice(walked, ctx, (keys) => (keys ? JSON.stringify(keys) : undefined), () => 'the same member');
});

const ZAnswerForm = ZStringList('must be an array of form keys').superRefine((keys, ctx) => {
  keys.forEach((key, index) => {
    if (typeof key !== 'string' || key === '') ctx.addIssue({ code: 'custom', path: [index], message: 'must be a non-empty string' });
  });
  listedTwice(keys, ctx, (key) => (typeof key === 'string' ? key : undefined), (key) => JSON.stringify(key));
});

const ZAnswer = z
  .looseObject({ headers: ZAnswerHeaders.optional(), json: ZAnswerJson.optional(), form: ZAnswerForm.optional() }, { error: 'must be an object with headers, json or form' })
  .superRefine((answer, ctx) => {
    if (!isObject(answer)) return;
    for (const field of Object.keys(answer)) {
      if (!['headers', 'json', 'form'].includes(field)) ctx.addIssue({ code: 'custom', path: [field], message: 'is not a known field' });
    }
  }, ALWAYS)
  .transform((answer): TAnswerAllowlist => ({
    ...(answer.headers ? { headers: (answer.headers as string[]).map((name) => name.toLowerCase()) } : {}),
    ...(answer.json ? { json: (answer.json as string[]).map((path) => jsonPathOf(path)!) } : {}),
    ...(answer.form ? { form: answer.form as string[] } : {}),
  }));

function urlProblems(raw: unknown, allowInsecure: boolean): string[] {
  if (raw === undefined) return ['is required'];
  if (typeof raw !== 'string' || !URL.canParse(raw)) return ['must be an absolute URL'];
  const url = new URL(raw);
  const problems: string[] = [];
  if (url.username !== '' || url.password !== '') problems.push('must not contain credentials (user:password@)');
  if (raw.includes('?')) problems.push('must not contain a query');
  if (raw.includes('#')) problems.push('must not contain a fragment');
  const protocolOk = url.protocol === 'https:' || (allowInsecure && url.protocol === 'http:');
  if (!protocolOk) problems.push('must be an https URL (or set allowInsecure: true outside production)');
  return problems;
}

/** One entry of the setting; `production` is NODE_ENV=production, where allowInsecure is refused. */
function destinationSchema(production: boolean) {
  return z
    .looseObject(
      {
        name: z.string({ error: (issue) => (issue.input === undefined ? 'is required' : NAME_RULE) }).regex(NAME, NAME_RULE),
        url: z.unknown().optional(),
        modes: ZModes,
        paths: z.array(ZPath, { error: 'must be a non-empty array of paths' }).min(1, 'must be a non-empty array of paths'),
        methods: ZMethods,
        headers: ZHeaders,
        timeoutMs: z.number({ error: TIMEOUT_RULE }).int(TIMEOUT_RULE).min(1, TIMEOUT_RULE).max(MAX_TIMEOUT_MS, TIMEOUT_RULE).default(DEFAULT_TIMEOUT_MS),
        ca: ZPem,
        cert: ZPem,
        key: ZPem,
        allowInsecure: z.boolean({ error: 'must be true or false' }).default(false),
        answer: ZAnswer.optional(),
      },
      { error: 'must be an object' },
    )
    .superRefine((entry, ctx) => {
      // Rules across fields: the URL's scheme, the TLS pair, where allowInsecure may stand.
      if (!isObject(entry)) return;
      const problem = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
      for (const field of Object.keys(entry)) if (!(FIELDS as readonly string[]).includes(field)) problem(field, 'is not a known field');
      const insecure = entry.allowInsecure === true;
      for (const message of urlProblems(entry.url, insecure && !production)) problem('url', message);
      if (entry.cert !== undefined && entry.key === undefined) problem('key', 'is required with cert');
      if (entry.key !== undefined && entry.cert === undefined) problem('cert', 'is required with key');
      if (insecure && production) problem('allowInsecure', 'is not allowed in production');
      if (insecure && Array.isArray(entry.modes) && entry.modes.includes('live')) {
        problem('allowInsecure', 'is not allowed for a destination of live tokens (real cards go over https only)');
      }
    }, ALWAYS)
    .transform((entry): TForwardDestination => {
      const url = new URL(entry.url as string);
      return {
        name: entry.name,
        url: (entry.url as string).replace(/\/+$/, ''),
        origin: url.origin,
        basePath: url.pathname.replace(/\/+$/, ''),
        modes: entry.modes,
        paths: entry.paths,
        methods: entry.methods,
        headers: entry.headers,
        timeoutMs: entry.timeoutMs,
        allowInsecure: entry.allowInsecure,
        ...Object.fromEntries(TLS_FIELDS.filter((field) => entry[field] !== undefined).map((field) => [field, entry[field]])),
        ...(entry.answer ? { answer: entry.answer } : {}),
      };
    });
}

/** Where a problem is listed: its entry's fields in FIELDS order, unknown fields after headers. */
function rankOf(path: readonly PropertyKey[]): number {
  const field = path[0];
  if (field === undefined) return -1;
  const index = (FIELDS as readonly PropertyKey[]).indexOf(field);
  return index === -1 ? FIELDS.indexOf('headers') + 0.5 : index;
}

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

export function parseDestinations(
  setting: string | undefined,
  options: { production: boolean; readFile?: (path: string) => string },
): { destinations: TForwardDestination[]; problems: string[] } {
  if (setting === undefined || setting.trim() === '') return { destinations: [], problems: [] };
  const { value, problem } = readSetting(setting, options.readFile ?? defaultReadFile);
  if (problem !== undefined) return { destinations: [], problems: [problem] };
  const schema = destinationSchema(options.production);
  const problems: string[] = [];
  const destinations: TForwardDestination[] = [];
  const firstIndexOf = new Map<string, number>();
  (value as unknown[]).forEach((entry, i) => {
    const parsed = schema.safeParse(entry);
    const issues = parsed.success ? [] : parsed.error.issues.map((issue, order) => ({ issue, order }));
    issues.sort((a, b) => rankOf(a.issue.path) - rankOf(b.issue.path) || a.order - b.order);
    problems.push(...issues.map(({ issue }) => line(`[${i}]${issue.path.map(segment).join('')}`, issue.message)));
    const name = isObject(entry) && typeof entry.name === 'string' ? entry.name : undefined;
    const duplicateOf = name === undefined ? undefined : firstIndexOf.get(name);
    if (name !== undefined && duplicateOf === undefined) firstIndexOf.set(name, i);
    if (duplicateOf !== undefined) problems.push(line(`[${i}].name`, `"${name}" is already used by [${duplicateOf}]`));
    else if (parsed.success) destinations.push(parsed.data);
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
