// The forward proxy's request template (docs/vault.md): a path and body written by the client with
// `{{card.number}}`-style placeholders that the worker fills with the stored card. Placeholders go
// into the query string and the body only, each escaped for where it lands, so a card value can
// neither change the path nor break out of the JSON string, form field or XML text it is in.
// Problems never quote a header value or body text: a card number must not come back in an error.

import { holdsPan } from '../card/redact-pan.js';
import { decodeCharacterReferences } from './char-references.js';
import { HEADER_NAME, templateHeaderRefusal } from './header-policy.js';

export const CARD_PLACEHOLDERS: readonly string[] = [
  'card.number',
  'card.cvv',
  'card.exp_month',
  'card.exp_year',
  'card.exp_year2',
  'card.holder_name',
  'card.brand',
  'card.first6',
  'card.last4',
];

export const BILLING_FIELDS: readonly string[] = [
  'address1',
  'address2',
  'city',
  'country',
  'document_number',
  'name',
  'postal_code',
  'phone',
  'state',
];

const KNOWN = new Set([...CARD_PLACEHOLDERS, ...BILLING_FIELDS.map((field) => `billing.${field}`)]);

/** `{{ … }}` with no braces inside; the name is what is between them, spaces around it ignored. */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
/** What stands in for a placeholder while the template around it is checked. */
const MARKER = 'FVPH';

export type TTemplateKind = 'json' | 'form' | 'xml' | 'none';

export function templateKindOf(contentType: string | undefined): TTemplateKind {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(type)) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'application/xml' || type === 'text/xml' || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+xml$/.test(type)) return 'xml';
  return 'none';
}

export function contentTypeOf(headers: Record<string, string> | undefined): string | undefined {
  if (!headers) return undefined;
  const name = Object.keys(headers).find((key) => key.toLowerCase() === 'content-type');
  return name === undefined ? undefined : headers[name];
}

export function placeholdersIn(text: string): Array<{ name: string; known: boolean }> {
  return Array.from(text.matchAll(PLACEHOLDER), (match) => {
    const name = match[1]!.trim();
    return { name, known: KNOWN.has(name) };
  });
}

/** Whether the template needs the CVV (which the vault may no longer hold). */
export function usesCvv(request: { path: string; body?: string }): boolean {
  const names = [...placeholdersIn(request.path), ...placeholdersIn(request.body ?? '')].map((p) => p.name);
  return names.includes('card.cvv');
}

export interface TForwardTemplate {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export type TTemplateProblem = { path: string; message: string };

const MAX_PATH = 2048;
const MAX_HEADERS = 30;
const MAX_HEADER_VALUE = 8192;

/** A placeholder named in a problem only when it is a plain dotted name that cannot hold a card number. */
function describe(name: string): string {
  const plain = /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)*$/.test(name) && name.length <= 64 && !holdsPan(name);
  return plain ? `unknown placeholder {{${name}}}` : 'unknown placeholder';
}

/**
 * A digit as the gateway will read it: plain, percent-encoded, a JSON \\u escape or a character
 * reference, its ';' optional as char-references.ts reads it.
 */
const DIGIT = String.raw`(?:\d|%3\d|\\u003\d|&#0*(?:4[89]|5[0-7])(?:;|(?!\d))|&#x0*3\d(?:;|(?![0-9a-f])))`;
const DIGIT_BEFORE = new RegExp(`${DIGIT}$`, 'i');
const DIGIT_AFTER = new RegExp(`^${DIGIT}`, 'i');

/**
 * The card number and the CVV must not touch a digit or another placeholder: a gateway echoing the
 * joined digits would hand back a run the answer's masking cannot take apart (mask.ts).
 */
function touchingPlaceholders(text: string): string[] {
  const messages: string[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = match[1]!.trim();
    if (name !== 'card.number' && name !== 'card.cvv') continue;
    const start = match.index;
    const end = start + match[0].length;
    const before = DIGIT_BEFORE.test(text.slice(0, start)) || text.slice(0, start).endsWith('}}');
    const after = DIGIT_AFTER.test(text.slice(end)) || text.slice(end).startsWith('{{');
    if (before || after) messages.push(`{{${name}}} must not touch a digit or another placeholder (the answer could not be masked)`);
  }
  return [...new Set(messages)];
}

function unknownPlaceholders(text: string): string[] {
  const messages = placeholdersIn(text)
    .filter((p) => !p.known)
    .map((p) => describe(p.name));
  return [...new Set(messages)];
}

function pathMessages(path: string): string[] {
  const messages: string[] = [];
  if (!path.startsWith('/')) messages.push('must start with /');
  if (path.length > MAX_PATH) messages.push(`must be at most ${MAX_PATH} characters`);
  // The characters are judged on the template with each placeholder as a plain marker: spaces
  // inside `{{ card.number }}` are allowed, and the value put there is percent-encoded.
  const plain = path.replace(PLACEHOLDER, MARKER);
  const pathPart = plain.split('?')[0]!;
  if (pathPart.split('/').includes('..')) messages.push('must not contain .. segments');
  if (pathPart.split('/').includes('.')) messages.push('must not contain . segments');
  // The part the destination's paths are matched on (destinations.ts normalisedPathPart): a ';'
  // starts matrix parameters (`..;/` climbs to some servers) and %25 decodes into another escape.
  if (pathPart.includes(';')) messages.push("must not contain ';' before the query");
  if (/%25/.test(pathPart)) messages.push('must not contain %25 (a percent-encoded %) before the query');
  if (plain.includes('//')) messages.push('must not contain //');
  if (/[@\\#]/.test(plain)) messages.push('must not contain @, \\ or #');
  if (plain.includes('://') || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(plain)) messages.push('must be a path, not a URL with a scheme');
  if (/[\s\p{Cc}]/u.test(plain)) messages.push('must not contain spaces or control characters');
  else if (/[^\x21-\x7e]/.test(plain)) messages.push('must be ASCII (percent-encode anything else)');
  if (/%(?:2e|2f|5c)/i.test(plain)) messages.push('must not contain percent-encoded ., / or \\');
  const [templatePathPart, ...query] = path.split('?');
  if (placeholdersIn(templatePathPart!).length > 0) messages.push('placeholders are only allowed in the query string');
  messages.push(...unknownPlaceholders(query.join('?')), ...touchingPlaceholders(query.join('?')));
  return messages;
}

function headerMessages(name: string, value: unknown): string[] {
  if (!HEADER_NAME.test(name)) return ['is not a valid header name'];
  const refusal = templateHeaderRefusal(name);
  if (refusal) return [refusal];
  if (typeof value !== 'string') return ['must be a string'];
  const messages: string[] = [];
  if (value.length > MAX_HEADER_VALUE) messages.push(`must be at most ${MAX_HEADER_VALUE} characters`);
  if (/[\r\n\0]/.test(value)) messages.push('must not contain line breaks or NUL characters');
  else if (/[^\t\x20-\x7e]/.test(value)) messages.push('must be visible ASCII, spaces or tabs');
  if (placeholdersIn(value).length > 0) messages.push('placeholders are not allowed in headers');
  return messages;
}

function bodyMessages(request: TForwardTemplate, body: string): string[] {
  const messages: string[] = [];
  if (request.method.toUpperCase() === 'GET') messages.push('a GET request has no body');
  messages.push(...unknownPlaceholders(body), ...touchingPlaceholders(body));
  if (placeholdersIn(body).length === 0) return messages;
  const kind = templateKindOf(contentTypeOf(request.headers));
  if (kind === 'none') {
    messages.push('placeholders need a Content-Type of application/json, application/x-www-form-urlencoded or XML');
  } else if (kind === 'json') {
    try {
      JSON.parse(body.replace(PLACEHOLDER, MARKER));
    } catch {
      messages.push('must be JSON with every placeholder inside a string');
      return messages;
    }
  }
  if (kind !== 'none' && NESTED_IN[kind](body.replace(PLACEHOLDER, SLOT))) messages.push(NESTED_MESSAGE);
  return messages;
}

/*
 * Nested documents. A value is escaped once, for the body's own content type; text that is itself
 * a document (JSON inside a JSON string, escaped XML in XML text, JSON in a form value…) is decoded
 * by the gateway and parsed again, and a value in it would need that document's escaping too. The
 * rule: the unit of text a placeholder stands in — a JSON string or key, an XML text run or
 * attribute value, a form value — read as the gateway reads it, holds none of the marks a
 * document is written with. A placeholder in an XML CDATA section, comment, processing instruction
 * or in a tag outside an attribute value is refused as well: XML escaping does not apply there.
 */
const NESTED_MESSAGE =
  'must not hold a placeholder in text that is itself a document (a string, text or value with " \\ { } [ ] < > & or =): its value would be escaped for the outer one only';
/** Stands in for a placeholder in the nesting check: a private-use character, a plain one in JSON, XML and forms. */
const SLOT = '\uE000';
const DOCUMENT_MARK = /["\\{}[\]<>&=]/;
const holdsNested = (text: string) => text.includes(SLOT) && DOCUMENT_MARK.test(text);

function jsonNested(body: string): boolean {
  const walk = (value: unknown): boolean => {
    if (typeof value === 'string') return holdsNested(value);
    if (Array.isArray(value)) return value.some(walk);
    if (value !== null && typeof value === 'object') return Object.entries(value).some(([key, item]) => holdsNested(key) || walk(item));
    return false;
  };
  return walk(JSON.parse(body));
}

/** XML text as the gateway reads it, with the reading the answer's masking uses (char-references.ts). */
const xmlDecoded = decodeCharacterReferences;

function xmlNested(body: string): boolean {
  let at = 0;
  while (at < body.length) {
    const open = body.indexOf('<', at);
    const text = body.slice(at, open === -1 ? body.length : open);
    if (holdsNested(xmlDecoded(text))) return true;
    if (open === -1) return false;
    // Sections where XML escaping does not apply: CDATA, comments, processing instructions, declarations.
    const section = [['<![CDATA[', ']]>'], ['<!--', '-->'], ['<?', '?>'], ['<!', '>']].find(([start]) => body.startsWith(start!, open));
    if (section) {
      const close = body.indexOf(section[1]!, open + section[0]!.length);
      const end = close === -1 ? body.length : close + section[1]!.length;
      if (body.slice(open, end).includes(SLOT)) return true;
      at = end;
      continue;
    }
    // A tag: a placeholder only inside a quoted attribute value.
    let i = open + 1;
    let outside = '';
    while (i < body.length && body[i] !== '>') {
      const quote = body[i];
      if (quote === '"' || quote === "'") {
        const close = body.indexOf(quote, i + 1);
        const value = body.slice(i + 1, close === -1 ? body.length : close);
        if (holdsNested(xmlDecoded(value))) return true;
        i = close === -1 ? body.length : close + 1;
      } else {
        outside += body[i];
        i += 1;
      }
    }
    if (outside.includes(SLOT)) return true;
    at = i + 1;
  }
  return false;
}

function formNested(body: string): boolean {
  return body.split('&').some((field) => {
    const decoded = (part: string) => {
      try {
        return decodeURIComponent(part.replace(/\+/g, ' '));
      } catch {
        return part;
      }
    };
    const eq = field.indexOf('=');
    if (eq === -1) return holdsNested(decoded(field));
    return holdsNested(decoded(field.slice(0, eq))) || holdsNested(decoded(field.slice(eq + 1)));
  });
}

const NESTED_IN: Record<Exclude<TTemplateKind, 'none'>, (body: string) => boolean> = { json: jsonNested, xml: xmlNested, form: formNested };

/** Field errors ({path, message}) for every template rule; empty when valid. Tolerates wrongly typed parts. */
export function templateProblems(request: TForwardTemplate): TTemplateProblem[] {
  const problems: TTemplateProblem[] = [];
  const add = (path: string, messages: string[]) => problems.push(...messages.map((message) => ({ path, message })));
  if (typeof request.path === 'string') add('path', pathMessages(request.path));
  const headers = request.headers;
  if (headers !== undefined && headers !== null && typeof headers === 'object') {
    const names = Object.keys(headers);
    if (names.length > MAX_HEADERS) add('headers', [`must have at most ${MAX_HEADERS} headers`]);
    const seen = new Set<string>();
    for (const name of names) {
      add(`headers.${name}`, headerMessages(name, headers[name]));
      // Names are case-insensitive: Content-Type and content-type would leave the escaping to chance.
      if (seen.has(name.toLowerCase())) add(`headers.${name}`, ['is given twice (header names are case-insensitive)']);
      seen.add(name.toLowerCase());
    }
  }
  if (typeof request.body === 'string' && request.body !== '') {
    add('body', bodyMessages({ ...request, method: typeof request.method === 'string' ? request.method : 'POST' }, request.body));
  }
  return problems;
}

/** Placeholder name (e.g. 'card.number', 'billing.city') → clear value. */
export type TCardValues = Record<string, string>;

export function cardValues(card: {
  pan: string;
  cvv?: string;
  expMonth: string;
  expYear: string;
  holderName: string;
  brand: string;
  billing?: Record<string, string>;
}): TCardValues {
  const values: TCardValues = {
    'card.number': card.pan,
    'card.exp_month': card.expMonth.padStart(2, '0'),
    'card.exp_year': card.expYear,
    'card.exp_year2': card.expYear.slice(-2),
    'card.holder_name': card.holderName,
    'card.brand': card.brand,
    'card.first6': card.pan.slice(0, 6),
    'card.last4': card.pan.slice(-4),
  };
  if (card.cvv !== undefined && card.cvv !== '') values['card.cvv'] = card.cvv;
  for (const field of BILLING_FIELDS) values[`billing.${field}`] = card.billing?.[field] ?? '';
  return values;
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

const ESCAPE_FOR: Record<TTemplateKind, ((value: string) => string) | undefined> = {
  json: (value) => JSON.stringify(value).slice(1, -1),
  form: encodeURIComponent,
  xml: (value) => value.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!),
  none: undefined,
};

function fill(text: string, values: TCardValues, escape: (value: string) => string): string {
  return text.replace(PLACEHOLDER, (_whole, inner: string) => {
    const name = inner.trim();
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (value === undefined) throw new Error(`forward template: no value for ${KNOWN.has(name) ? `{{${name}}}` : 'an unknown placeholder'}`);
    return escape(value);
  });
}

/**
 * Fills the query part of the path (percent-encoded) and the body (escaped for its Content-Type).
 * Throws when a placeholder has no value or stands where templateProblems() refuses one: the
 * caller validates first and checks usesCvv() before asking for a card without its CVV.
 */
export function substitute(request: TForwardTemplate, values: TCardValues): { path: string; body?: string } {
  const at = request.path.indexOf('?');
  const pathPart = at === -1 ? request.path : request.path.slice(0, at);
  if (placeholdersIn(pathPart).length > 0) throw new Error('forward template: placeholders are only allowed in the query string');
  const path = at === -1 ? pathPart : `${pathPart}?${fill(request.path.slice(at + 1), values, encodeURIComponent)}`;
  if (request.body === undefined) return { path };
  const escape = ESCAPE_FOR[templateKindOf(contentTypeOf(request.headers))];
  if (!escape) {
    if (placeholdersIn(request.body).length > 0) throw new Error('forward template: placeholders in a body without a JSON, form or XML Content-Type');
    return { path, body: request.body };
  }
  return { path, body: fill(request.body, values, escape) };
}
