import { Agent, request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '@folio-vault/shared/errors';
import { cardBody, futureYear } from '@folio-vault/test-kit/cards';
import { answerProblems } from './support/openapi-answers.js';
import { createWorld, type TWorld } from './support/world.js';

// Issue 7, fuzzing. Every operation of the running app's /openapi.json (so a new route is fuzzed
// without touching this file), plus the operational routes the document leaves out, gets
// schema-driven bodies that are then broken on purpose: wrong types, huge numbers, unicode,
// prototype-pollution keys, deep nesting, malformed JSON, wrong content types and encodings, bad or
// oversize headers, bad path ids and query strings, valid and invalid tokens.
//
// The claim checked is docs/api.md#errors: no 5xx at all, and every non-2xx JSON answer is exactly the
// error body (id = X-Request-Id, ISO timestamp, an errorCode whose status is the one answered, one
// sentence of details, fieldErrors only on INVALID_REQUEST) with no stack trace in it.
//
// Cases are drawn up front from a fixed seed (FUZZ_SEED overrides it, FUZZ_CASES the count) and
// sent over keep-alive node:http with a few in flight (lighter than fetch, and it sends any header
// byte and method as given), so a failure reproduces from the printed seed and case number.

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_807);
const CASES = Number(process.env.FUZZ_CASES ?? 10_000);
const IN_FLIGHT = 12;
// Figures for the CI log (the one place this file prints).
// eslint-disable-next-line no-console
const report = (line: string) => console.log(line);
const PROPERTIES = [1, 2];

// ---------------------------------------------------------------------------------------------
// A JSON tree that can also hold text JSON.stringify would never write: numbers beyond a double,
// "-0", own "__proto__" keys, duplicate keys.

class Raw {
  constructor(readonly text: string) {}
}
class JObject {
  constructor(readonly entries: Array<[string, TNode]>) {}
}
type TNode = null | boolean | number | string | Raw | JObject | TNode[];

function toNode(value: unknown): TNode {
  if (Array.isArray(value)) return value.map(toNode);
  if (value && typeof value === 'object') return new JObject(Object.entries(value).map(([k, v]) => [k, toNode(v)]));
  if (value === undefined) return null;
  return value as TNode;
}

function clone(node: TNode): TNode {
  if (Array.isArray(node)) return node.map(clone);
  if (node instanceof JObject) return new JObject(node.entries.map(([k, v]) => [k, clone(v)]));
  return node;
}

function serialize(node: TNode): string {
  if (node instanceof Raw) return node.text;
  if (node instanceof JObject) return `{${node.entries.map(([k, v]) => `${JSON.stringify(k)}:${serialize(v)}`).join(',')}}`;
  if (Array.isArray(node)) return `[${node.map(serialize).join(',')}]`;
  return JSON.stringify(node) ?? 'null';
}

interface TSlot {
  get: () => TNode;
  set: (value: TNode) => void;
  remove?: () => void;
}

/** Every place in the tree a mutation can hit, the root first. */
function slotsOf(root: { value: TNode }): TSlot[] {
  const slots: TSlot[] = [];
  const walk = (slot: TSlot) => {
    slots.push(slot);
    const node = slot.get();
    if (Array.isArray(node)) {
      node.forEach((_, i) => walk({ get: () => node[i]!, set: (v) => (node[i] = v), remove: () => node.splice(i, 1) }));
    } else if (node instanceof JObject) {
      node.entries.forEach((entry) => walk({ get: () => entry[1], set: (v) => (entry[1] = v), remove: () => node.entries.splice(node.entries.indexOf(entry), 1) }));
    }
  };
  walk({ get: () => root.value, set: (v) => (root.value = v) });
  return slots;
}

// ---------------------------------------------------------------------------------------------
// Hostile values

const raw = (...texts: string[]) => texts.map((t) => new Raw(t));

const nastyNumber: fc.Arbitrary<TNode> = fc.constantFrom<TNode>(
  ...raw('1e999', '-1e999', '9223372036854775807', '9223372036854775808', '-9223372036854775809', '123456789012345678901234567890', '-0', '1E-400', '0.1e1', '1.0'),
  0,
  -1,
  1.5,
  2 ** 53,
  2 ** 53 + 2,
  -Number.MAX_SAFE_INTEGER,
  1e308,
  Number.MIN_VALUE,
);

const NASTY_STRINGS = [
  '', ' ', '\u0000', 'null', 'NaN', 'Infinity', '-1', '0', '00', '1.0', '1e3', '0x10',
  '9223372036854775807', '9223372036854775808', '18446744073709551616', '99999999999999999999',
  '__proto__', 'constructor', 'prototype', "' OR '1'='1", "'; DROP TABLE folios; --", '../../../etc/passwd',
  '%00', '%zz', '${jndi:ldap://x}', '<script>alert(1)</script>', '\u202Eevil', 'Zoë Łukasiewicz', '王小明',
  '🏨💳', '\ud800', '\udfff', 'a\u0301', '\u200B', '\t\n\r', '2026-02-30', '2026-13-01', '0000-00-00',
  '9999-12-31T23:59:59.999Z', '2026-01-01T00:00:00+25:00', 'test', 'live', 'TEST', 'RESERVATION', 'asc', 'DESC', 'PDF',
];

const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 256, max: 70_000 }).map((n) => 'x'.repeat(n)) },
);

const nastyKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', ' ', '$where', 'a.b', '0', 'property_ids', 'sub'),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);

const pollution = (): TNode[] => [
  new JObject([['__proto__', new JObject([['polluted', true]])]]),
  new JObject([['constructor', new JObject([['prototype', new JObject([['polluted', true]])]])]]),
  new JObject([['__proto__', new JObject([['toString', 'x'], ['valueOf', 1]])]]),
];

const nastyValue: fc.Arbitrary<TNode> = fc.oneof(
  { weight: 3, arbitrary: nastyNumber },
  { weight: 4, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.constantFrom<TNode>(null, true, false, [], new JObject([])) },
  { weight: 1, arbitrary: fc.constantFrom(...pollution()) },
  { weight: 1, arbitrary: fc.array(nastyString, { maxLength: 3 }) },
);

const deep = (depth: number, kind: 'array' | 'object') =>
  kind === 'array' ? new Raw(`${'['.repeat(depth)}${']'.repeat(depth)}`) : new Raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

interface TMutation {
  kind: 'replace' | 'remove' | 'add-key' | 'duplicate-key' | 'wrap' | 'deep';
  at: number;
  value: TNode;
  key: string;
  depth: number;
  nesting: 'array' | 'object';
}

const mutation: fc.Arbitrary<TMutation> = fc.record({
  kind: fc.constantFrom('replace', 'replace', 'remove', 'add-key', 'add-key', 'duplicate-key', 'wrap', 'deep'),
  at: fc.nat(),
  value: nastyValue,
  key: nastyKey,
  depth: fc.integer({ min: 2, max: 5_000 }),
  nesting: fc.constantFrom('array', 'object'),
});

function mutate(root: { value: TNode }, m: TMutation): void {
  const slots = slotsOf(root);
  const slot = slots[m.at % slots.length]!;
  const node = slot.get();
  switch (m.kind) {
    case 'replace':
      return slot.set(clone(m.value));
    case 'remove':
      return slot.remove ? slot.remove() : slot.set(clone(m.value));
    case 'add-key':
      if (node instanceof JObject) node.entries.push([m.key, clone(m.value)]);
      else slot.set(new JObject([[m.key, clone(m.value)]]));
      return;
    case 'duplicate-key':
      if (node instanceof JObject && node.entries.length > 0) node.entries.push([node.entries[0]![0], clone(m.value)]);
      else slot.set(clone(m.value));
      return;
    case 'wrap':
      return slot.set([node]);
    case 'deep':
      return slot.set(deep(m.depth, m.nesting));
  }
}

type TTextMutation =
  | { kind: 'none' }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'replace'; text: string }
  | { kind: 'pad'; size: number };

const textMutation: fc.Arbitrary<TTextMutation> = fc.oneof(
  { weight: 14, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      at: fc.nat(),
      text: fc.constantFrom('{', '}', ',', '"', '\\', '\u0000', "'", ']', ':', 'NaN', '\uFEFF', '/*x*/', '\n', 'undefined'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      text: fc.constantFrom('', ' ', 'null', 'true', '"x"', '1', '[]', 'undefined', "{'a':1}", '{"a":1,}', '[1,]', '{"a":1}}', '\uFEFF{}', '{"a":01}', '{"a":.5}', '{"a":0x10}', '{"a":"\\x41"}', '{"a":"\\ud800"}', '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}'),
    }),
  },
  // Whitespace keeps the JSON valid while pushing it past a route's body limit (8 kB to 64 kB).
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pad' as const), size: fc.integer({ min: 4_000, max: 80_000 }) }) },
);

function applyText(text: string, m: TTextMutation): string {
  switch (m.kind) {
    case 'none':
      return text;
    case 'truncate':
      return text.slice(0, m.at % (text.length + 1));
    case 'insert': {
      const at = m.at % (text.length + 1);
      return text.slice(0, at) + m.text + text.slice(at);
    }
    case 'replace':
      return m.text;
    case 'pad':
      return text + ' '.repeat(m.size);
  }
}

// ---------------------------------------------------------------------------------------------
// Schema-driven valid values (the OpenAPI 3.0 subset zod-to-openapi writes)

interface TSchema {
  $ref?: string;
  /** OpenAPI 3.1 writes a nullable value as [type, 'null']. */
  type?: string | string[];
  properties?: Record<string, TSchema>;
  required?: string[];
  items?: TSchema;
  enum?: unknown[];
  anyOf?: TSchema[];
  oneOf?: TSchema[];
  allOf?: TSchema[];
  nullable?: boolean;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  example?: unknown;
}

interface TOpenApi {
  paths: Record<string, Record<string, TOperationDoc>>;
  components?: { schemas?: Record<string, TSchema> };
}

interface TOperationDoc {
  parameters?: Array<{ name: string; in: 'header' | 'path' | 'query'; required?: boolean; schema?: TSchema }>;
  requestBody?: { content?: Record<string, { schema?: TSchema }> };
}

function resolve(schema: TSchema, doc: TOpenApi): TSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.split('/').pop()!;
  return resolve(doc.components?.schemas?.[name] ?? {}, doc);
}

/**
 * Values a field of that name takes in real requests, where the schema alone (a bare string) would
 * almost never produce one: without them nearly every generated body stops at validation. Only
 * public test card numbers.
 */
const FIELD_HINTS: Record<string, fc.Arbitrary<string>> = {
  card_number: fc.constantFrom('4111 1111 1111 1111', '4242424242424242', '5555-5555-5555-4444', '378282246310005'),
  cvv: fc.constantFrom('123', '1234'),
  year: fc.integer({ min: -1, max: 21 }).map((n) => futureYear(n)),
  cardholder_name: fc.constantFrom('Sara Ryder', 'Zoë Łukasiewicz', '王小明'),
  name: fc.constantFrom('Hotel Aurora', 'Zoë Łukasiewicz', '王小明'),
  country: fc.constantFrom('DE', 'US', 'PT'),
  currency: fc.constantFrom('EUR', 'USD', 'JPY'),
  timezone: fc.constantFrom('Europe/Berlin', 'UTC', 'America/Sao_Paulo'),
  direction: fc.constantFrom('asc', 'desc', 'ASC', 'DESC'),
  quantity: fc.integer({ min: 1, max: 10 }).map(String),
  amount: fc.integer({ min: -100_000, max: 100_000 }).map((n) => (n / 100).toFixed(2)),
};

function validString(schema: TSchema, field?: string): fc.Arbitrary<string> {
  const hint = field ? FIELD_HINTS[field] : undefined;
  return hint ? fc.oneof({ weight: 4, arbitrary: hint }, { weight: 1, arbitrary: fromSchema(schema) }) : fromSchema(schema);
}

function fromSchema(schema: TSchema): fc.Arbitrary<string> {
  // The empty string is among the hostile values already; here it would only stop bodies early.
  const minLength = schema.minLength ?? 1;
  const maxLength = Math.min(schema.maxLength ?? 30, Math.max(minLength, 30));
  let arb: fc.Arbitrary<string>;
  if (schema.format === 'date') {
    arb = fc.date({ min: new Date('2000-01-01'), max: new Date('2045-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  } else if (schema.format === 'date-time') {
    arb = fc.date({ min: new Date('2000-01-01'), max: new Date('2045-12-31'), noInvalidDate: true }).map((d) => d.toISOString());
  } else if (schema.format === 'email') {
    arb = fc.emailAddress();
  } else if (schema.format === 'uuid') {
    arb = fc.uuid();
  } else if (schema.pattern) {
    try {
      arb = fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
    } catch {
      arb = fc.string({ minLength, maxLength });
    }
  } else if (typeof schema.example === 'string' && /^\d+$/.test(schema.example)) {
    // int64 ids travel as digit strings (docs/api.md#conventions): small ones mostly, the full range sometimes.
    arb = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }).map(String) }, { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 9_223_372_036_854_775_807n }).map(String) });
  } else {
    arb = fc.string({ unit: 'grapheme', minLength, maxLength }).filter((s) => s.trim().length >= Math.min(minLength, 1));
  }
  return typeof schema.example === 'string' ? fc.oneof({ weight: 2, arbitrary: fc.constant(schema.example) }, { weight: 1, arbitrary: arb }) : arb;
}

function valid(input: TSchema, doc: TOpenApi, depth = 0, field?: string): fc.Arbitrary<unknown> {
  const schema = resolve(input, doc);
  if (depth > 8) return fc.constant(null);
  const inner = (): fc.Arbitrary<unknown> => {
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (alternatives) return fc.oneof(...alternatives.map((s) => valid(s, doc, depth + 1, field)));
    if (schema.allOf?.[0]) return valid(schema.allOf[0], doc, depth + 1, field);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    switch (Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type) {
      case 'string':
        return validString(schema, field);
      case 'integer': {
        const min = Math.max(schema.minimum ?? -1_000, Number.MIN_SAFE_INTEGER);
        const max = Math.min(schema.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER);
        return fc.oneof(fc.integer({ min, max: Math.min(max, min + 20) }), fc.integer({ min, max }));
      }
      case 'number': {
        const min = schema.minimum ?? -100_000;
        const max = schema.maximum ?? 100_000;
        return fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((n) => n / 100);
      }
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(valid(schema.items ?? {}, doc, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
      case 'object':
      case undefined: {
        if (!schema.properties) return schema.type === 'object' ? fc.constant({}) : fc.constantFrom(null, 'x', 1, true);
        const props = Object.fromEntries(Object.entries(schema.properties).map(([k, s]) => [k, valid(s, doc, depth + 1, k)]));
        return fc.record(props, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
      }
      default:
        return fc.constant(null);
    }
  };
  const nullable = schema.nullable || (Array.isArray(schema.type) && schema.type.includes('null'));
  return nullable ? fc.option(inner(), { nil: null, freq: 6 }) : inner();
}

// ---------------------------------------------------------------------------------------------
// Operations and cases

interface TOperation {
  method: string;
  path: string;
  documented: boolean;
  headers: Array<{ name: string; schema: TSchema }>;
  pathParams: Array<{ name: string; schema: TSchema }>;
  body?: TSchema;
}

/** Routes the OpenAPI document does not describe (docs/api.md#operations); an unknown path stands for the rest. */
const OPERATIONAL: Array<Pick<TOperation, 'method' | 'path'>> = [
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/readyz' },
  { method: 'GET', path: '/metrics' },
  { method: 'GET', path: '/admin/queues' },
  { method: 'GET', path: '/openapi.json' },
  { method: 'GET', path: '/vault/v1/{id}' },
  { method: 'POST', path: '/no/such/route/{id}' },
];

function operationsOf(doc: TOpenApi): TOperation[] {
  const ops: TOperation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      ops.push({
        method: method.toUpperCase(),
        path,
        documented: true,
        headers: params.filter((p) => p.in === 'header').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  for (const op of OPERATIONAL) {
    const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1]!, schema: { type: 'string', format: 'uuid' } }));
    ops.push({ ...op, documented: false, headers: [], pathParams });
  }
  return ops;
}

type TAuth =
  | 'valid'
  | 'read-only'
  | 'write-only'
  | 'admin-only'
  | 'other-property'
  | 'expired'
  | 'alg-none'
  | 'bad-signature'
  | 'garbage'
  | 'basic'
  | 'absent'
  | 'oversize';

interface TCase {
  op: number;
  method: string;
  auth: TAuth;
  pathValues: string[];
  pathSuffix: string;
  query: Array<[string, string]>;
  headers: Record<string, string | undefined>;
  body?: { value: unknown; mutations: TMutation[]; text: TTextMutation; contentType?: string; encoding?: string; charset: 'utf8' | 'latin1' | 'utf16le' };
}

/** encodeURIComponent throws on a lone surrogate; the UTF-8 round trip makes it U+FFFD first. */
const pct = (value: string) => encodeURIComponent(Buffer.from(value, 'utf8').toString('utf8'));

/** Header values go out as Latin-1 bytes: send UTF-8 text as its bytes, minus the control bytes HTTP forbids. */
// eslint-disable-next-line no-control-regex
const headerSafe = (value: string) => Buffer.from(value, 'utf8').toString('latin1').replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '');

const nastyHeader: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('', ' ', '0', '-1', '01', '1.5', '1e3', '0x1', '+1', '9223372036854775807', '9223372036854775808', '99999999999999999999999', 'abc', 'null', 'undefined', '1, 2', 'test', 'live', 'TEST', 'Test ', 'respond-async', '__proto__', 'constructor', "' OR 1=1 --", '../../x', 'Zoë', '王小明', '🏨', '\u202E1'),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 20_000 }).map((n) => '9'.repeat(n)) },
);

const KNOWN_HEADERS: Record<string, fc.Arbitrary<string>> = {
  'x-property-id': fc.constantFrom('1', '1', '2', '01'),
  'svc-tokenization-mode': fc.constant('test'),
  'idempotency-key': fc.stringMatching(/^[\x21-\x7e]{1,64}$/),
  'accept-language': fc.constantFrom('en', 'de', 'pt-BR;q=0.8, en;q=0.5', '*', 'fr-CH, fr;q=0.9'),
  prefer: fc.constantFrom('respond-async', 'wait=1', 'respond-async, wait=5'),
};

const headerArb = (validArb: fc.Arbitrary<string>, required: boolean) =>
  fc.oneof(
    { weight: 10, arbitrary: validArb },
    { weight: required ? 1 : 4, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: nastyHeader },
  );

const NASTY_SEGMENTS = [
  '1', '-1', '0', '9223372036854775807', '9223372036854775808', '99999999999999999999999999', 'not-a-uuid',
  '00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF', '{00000000-0000-0000-0000-000000000000}',
  '0000000000000000000000000000000', '%00', '%zz', '%', '%2e%2e%2f%2e%2e', '..', '.', '%E2%80%AE', '%F0%9F%8F%A8',
  '%C3%28', '__proto__', 'constructor', "'%20OR%201=1", '%0d%0aX-Injected:%201', 'a'.repeat(5_000),
];

const QUERY_KEYS = ['access_token', 'token', 'limit', 'pageToken', '__proto__', '__proto__[polluted]', 'constructor[prototype][polluted]', 'a[]', 'a[b][c]', 'sort', '%zz'];

function caseArb(ops: TOperation[], doc: TOpenApi, realIds: string[]): fc.Arbitrary<TCase> {
  const perOp = ops.map((op, index) => {
    const headers = Object.fromEntries(
      op.headers.map((h) => [h.name, headerArb(KNOWN_HEADERS[h.name] ?? validString(h.schema), h.name === 'x-property-id')]),
    );
    for (const extra of ['x-request-id', 'idempotency-key', 'svc-tokenization-mode', 'prefer', 'x-property-id']) {
      if (!(extra in headers)) {
        headers[extra] = fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: KNOWN_HEADERS[extra] ?? fc.uuid() }, { weight: 1, arbitrary: nastyHeader });
      }
    }
    const pathValue = (schema: TSchema) =>
      fc.oneof(
        { weight: 3, arbitrary: validString(schema).map(pct) },
        { weight: 1, arbitrary: fc.constantFrom(...realIds) },
        { weight: 3, arbitrary: fc.constantFrom(...NASTY_SEGMENTS) },
        { weight: 1, arbitrary: nastyString.map((s) => pct(s.slice(0, 3_000))) },
      );
    const body = op.body
      ? fc.option(
          fc.record({
            value: valid(op.body, doc),
            mutations: fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) }),
            text: textMutation,
            contentType: fc.oneof(
              { weight: 14, arbitrary: fc.constant('application/json') },
              {
                weight: 3,
                arbitrary: fc.constantFrom(
                  undefined, 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=utf-16',
                  'application/json; charset=bogus', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
                  'application/xml', 'application/vnd.api+json', '*/*', '', 'application/json, text/plain', 'APPLICATION/JSON', 'application/jsonp',
                ),
              },
            ),
            encoding: fc.oneof({ weight: 20, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip') }),
            charset: fc.oneof({ weight: 20, arbitrary: fc.constant('utf8' as const) }, { weight: 1, arbitrary: fc.constantFrom('latin1' as const, 'utf16le' as const) }),
          }),
          { freq: 12 },
        )
      : fc.option(fc.record({ value: fc.constant({ unexpected: 'body' }), mutations: fc.constant([]), text: textMutation, contentType: fc.constant('application/json'), encoding: fc.constant(undefined), charset: fc.constant('utf8' as const) }), { freq: 1 });
    return fc.record({
      op: fc.constant(index),
      method: fc.oneof({ weight: 14, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') }),
      auth: fc.oneof(
        { weight: 16, arbitrary: fc.constant<TAuth>('valid') },
        { weight: 1, arbitrary: fc.constantFrom<TAuth>('read-only', 'write-only', 'admin-only', 'other-property', 'expired', 'alg-none', 'bad-signature', 'garbage', 'basic', 'absent', 'oversize') },
      ),
      pathValues: fc.tuple(...op.pathParams.map((p) => pathValue(p.schema))),
      pathSuffix: fc.oneof({ weight: 20, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('/', '//', '/extra', '%2F', '/..', '/.') }),
      query: fc.oneof(
        { weight: 5, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 8 })), fc.oneof(nastyString.map((s) => s.slice(0, 2_000)), fc.constant('%zz'))), { minLength: 1, maxLength: 4 }) },
      ),
      headers: fc.record(headers),
      body,
    }) as fc.Arbitrary<TCase>;
  });
  return fc.oneof(...perOp);
}

// ---------------------------------------------------------------------------------------------
// Sending and judging

interface TRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface TAnswer {
  status: number;
  header: (name: string) => string | undefined;
  text: string;
}

function send(agent: Agent, req: TRequest): Promise<TAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(req.url, { method: req.method, headers: req.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const value = (name: string) => {
          const v = res.headers[name];
          return Array.isArray(v) ? v.join(', ') : v;
        };
        resolve({ status: res.statusCode ?? 0, header: value, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

function buildRequest(c: TCase, op: TOperation, base: string, tokens: Record<TAuth, string | undefined>): TRequest {
  let index = 0;
  const path = op.path.replace(/\{\w+\}/g, () => c.pathValues[index++] ?? 'x') + c.pathSuffix;
  const query = c.query.map(([k, v]) => `${k.includes('%') ? k : pct(k)}=${v === '%zz' ? v : pct(v)}`).join('&');
  const headers: Record<string, string> = {};
  const authorization = tokens[c.auth];
  if (authorization !== undefined) headers.authorization = headerSafe(authorization);
  for (const [name, value] of Object.entries(c.headers)) if (value !== undefined) headers[name] = headerSafe(value);
  let body: Buffer | undefined;
  if (c.body && c.method !== 'GET' && c.method !== 'HEAD') {
    const root = { value: toNode(c.body.value) };
    for (const m of c.body.mutations) mutate(root, m);
    body = Buffer.from(applyText(serialize(root.value), c.body.text), c.body.charset);
    // Explicit: node:http frames a DELETE or OPTIONS body with neither length nor chunking otherwise.
    headers['content-length'] = String(body.length);
    if (c.body.contentType !== undefined) headers['content-type'] = c.body.contentType;
    if (c.body.encoding !== undefined) headers['content-encoding'] = c.body.encoding;
  }
  return { url: `${base}${path}${query ? `?${query}` : ''}`, method: c.method, headers, body };
}

const ERROR_KEYS = new Set(['id', 'timestamp', 'errorCode', 'errorDetails', 'fieldErrors']);
const STACK_TRACE = /\n\s+at |\bat [\w.<>$]+ \(|\.(?:ts|js|mjs|cjs):\d+|node_modules|\b(?:TypeError|RangeError|SyntaxError|ReferenceError)\b/;
/** One sentence: no line breaks, ends with a full stop, no second sentence starting after it. */
const ONE_SENTENCE = /^[^\r\n]+[.!?]$/;
const SECOND_SENTENCE = /[.!?] +\p{Lu}/u;

/** docs/api.md#errors for one answer; an empty list when it holds. */
function contractProblems({ status, header, text }: TAnswer): string[] {
  if (status < 400) return [];
  const type = header('content-type') ?? '';
  // Node's HTTP parser answers 431 itself, before any app code runs, when the headers pass 16 kB.
  if (status === 431) return [];
  if (!/^application\/json\b/i.test(type)) return [`a ${status} answer that is not JSON (${type || 'no Content-Type'})`];
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return ['a JSON error answer that does not parse'];
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return ['an error body that is not an object'];
  const b = body as Record<string, unknown>;
  const problems: string[] = [];
  const extra = Object.keys(b).filter((k) => !ERROR_KEYS.has(k));
  if (extra.length) problems.push(`unexpected keys ${extra.join(', ')}`);
  if (typeof b.id !== 'string' || b.id.length === 0 || b.id !== header('x-request-id')) problems.push('id is not the X-Request-Id');
  if (typeof b.timestamp !== 'string' || Number.isNaN(Date.parse(b.timestamp)) || new Date(b.timestamp).toISOString() !== b.timestamp) {
    problems.push('timestamp is not ISO-8601');
  }
  const code = b.errorCode as keyof typeof ERROR_STATUS;
  if (typeof code !== 'string' || !(code in ERROR_STATUS)) problems.push(`unknown errorCode ${String(code)}`);
  else if (ERROR_STATUS[code] !== status) problems.push(`errorCode ${code} answered with ${status}`);
  if (typeof b.errorDetails !== 'string' || !ONE_SENTENCE.test(b.errorDetails) || SECOND_SENTENCE.test(b.errorDetails)) {
    problems.push(`errorDetails is not one sentence: ${JSON.stringify(b.errorDetails)}`);
  }
  if ('fieldErrors' in b) {
    if (code !== 'INVALID_REQUEST') problems.push(`fieldErrors on ${String(code)}`);
    const list = b.fieldErrors;
    const wellFormed =
      Array.isArray(list) &&
      list.length > 0 &&
      list.every(
        (e) => e && typeof e === 'object' && Object.keys(e).sort().join() === 'message,path' && typeof e.path === 'string' && typeof e.message === 'string' && e.message.length > 0,
      );
    if (!wellFormed) problems.push('fieldErrors is not a list of {path, message}');
  }
  if (code === 'UNAUTHENTICATED' && !/error="invalid_token"/.test(header('www-authenticate') ?? '')) problems.push('401 without WWW-Authenticate invalid_token');
  if ((code === 'RATE_LIMITED' || code === 'SERVICE_UNAVAILABLE') && !header('retry-after')) problems.push(`${code} without Retry-After`);
  if (STACK_TRACE.test(text)) problems.push('looks like a stack trace');
  return problems;
}

/** A reproduction line for the report: card-like digit runs and CVVs blanked, long runs cut. */
function describeCase(n: number, req: TRequest, c: TCase, status: number | string, answer: string, problems: string[]): string {
  const redact = (s: string) =>
    s
      .replace(/\d(?:[ -]?\d){11,18}/g, '[digits]')
      .replace(/("cvv"\s*:\s*)"[^"]*"/g, '$1"[cvv]"')
      .replace(/(.)\1{40,}/g, (run, ch: string) => `${ch}×${run.length}`)
      .slice(0, 400);
  const headers = Object.entries(req.headers).filter(([k]) => k !== 'authorization').map(([k, v]) => `${k}: ${redact(v)}`);
  return [
    `case #${n} (seed ${SEED}): ${req.method} ${redact(req.url)} auth=${c.auth}`,
    `  headers: ${headers.join(' | ')}`,
    `  body: ${req.body ? redact(req.body.toString('utf8')) : '(none)'}`,
    `  → ${status} ${redact(answer)}`,
    `  problems: ${problems.join('; ')}`,
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------

let world: TWorld;
let doc: TOpenApi;
let cardId: string;

beforeAll(async () => {
  world = await createWorld({
    env: {
      // Error lines only: what the fuzz looks for in the log ("unexpected error") is one of them.
      LOG_LEVEL: 'error',
      // Bounded so a fuzzed export that does start answers 202 quickly instead of holding a slot.
      EXPORT_WAIT_MS: '1500',
      // Limits and caps are other tests' subject: out of reach here.
      TOKENIZE_RATE_LIMIT_PER_PROPERTY: '1000000',
      TOKENIZE_RATE_LIMIT_PER_SUBJECT: '1000000',
      IMPORT_RATE_LIMIT_PER_PROPERTY: '1000000',
      EXPORT_QUEUE_CAP_PER_PROPERTY: '1000000',
    },
  });
  const created = await fetch(`${world.url}/vault/v1/tokens/card`, {
    method: 'POST',
    headers: { authorization: `Bearer ${world.token({ properties: PROPERTIES })}`, 'x-property-id': '1', 'svc-tokenization-mode': 'test', 'content-type': 'application/json' },
    body: JSON.stringify(cardBody()),
  });
  expect(created.status).toBe(200);
  cardId = ((await created.json()) as { id: string }).id;
  doc = (await (await fetch(`${world.url}/openapi.json`)).json()) as TOpenApi;
});

afterAll(async () => world?.close());

describe('fuzz: every route, hostile input', () => {
  it(`answers ${CASES} generated requests with no 5xx and every error in the contract's shape`, { timeout: 120_000 }, async () => {
    const ops = operationsOf(doc);
    expect(ops.filter((op) => op.documented).length).toBeGreaterThanOrEqual(11);
    const scope = 'read:payment write:payment admin';
    const tokens: Record<TAuth, string | undefined> = {
      valid: `Bearer ${world.token({ properties: PROPERTIES, scope })}`,
      'read-only': `Bearer ${world.token({ properties: PROPERTIES, scope: 'read:payment' })}`,
      'write-only': `Bearer ${world.token({ properties: PROPERTIES, scope: 'write:payment' })}`,
      'admin-only': `Bearer ${world.token({ properties: PROPERTIES, scope: 'admin' })}`,
      'other-property': `Bearer ${world.token({ properties: [9], scope })}`,
      expired: `Bearer ${world.token({ properties: PROPERTIES, scope }, { expiresIn: -120 })}`,
      'alg-none': `Bearer ${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${world.token({ properties: PROPERTIES, scope }).split('.')[1]}.`,
      'bad-signature': `Bearer ${world.token({ properties: PROPERTIES, scope }).slice(0, -6)}AAAAAA`,
      garbage: 'Bearer not.a.jwt',
      basic: `Basic ${Buffer.from('admin:admin').toString('base64')}`,
      absent: undefined,
      oversize: `Bearer ${world.token({ properties: PROPERTIES, scope, padding: 'x'.repeat(9_000) })}`,
    };

    const cases = fc.sample(caseArb(ops, doc, [cardId]), { seed: SEED, numRuns: CASES });
    const byStatus = new Map<number | string, number>();
    const fiveXx: string[] = [];
    const violations: string[] = [];
    let next = 0;
    /** Cases on a documented operation, sent with its own method, that the handler answered 2xx. */
    let handled = 0;
    const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    const startedAt = Date.now();

    const runOne = async (n: number) => {
      const c = cases[n]!;
      const req = buildRequest(c, ops[c.op]!, world.url, tokens);
      let status: number | string;
      let text = '';
      let problems: string[];
      try {
        const answer = await send(agent, req);
        status = answer.status;
        text = answer.text;
        problems = contractProblems(answer);
        // Garbage in still gets an answer /openapi.json describes (support/openapi-answers.ts).
        if (answer.header('x-request-id') !== undefined) {
          problems.push(...(answerProblems({ method: req.method, path: new URL(req.url).pathname, status: answer.status, header: (name) => answer.header(name.toLowerCase()), text: answer.text }) ?? []));
        }
      } catch (error) {
        // Only Node's own 431 may cut a connection; anything else the server dropped is a finding.
        status = `no answer (${(error as { code?: string }).code ?? (error as Error).message})`;
        const headerBytes = Object.entries(req.headers).reduce((sum, [k, v]) => sum + k.length + v.length, 0);
        problems = headerBytes > 15_000 ? [] : ['the connection ended without an answer'];
      }
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      const op = ops[c.op]!;
      if (op.documented && c.method === op.method && typeof status === 'number' && status < 300) handled += 1;
      if (typeof status === 'number' && status >= 500) fiveXx.push(describeCase(n, req, c, status, text, problems));
      else if (problems.length) violations.push(describeCase(n, req, c, status, text, problems));
    };

    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < cases.length) await runOne(next++);
      }),
    );

    agent.destroy();
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    const statuses = [...byStatus.entries()].sort(([a], [b]) => String(a).localeCompare(String(b))).map(([s, n]) => `${s}:${n}`).join(' ');
    report(`fuzz: seed ${SEED}, ${ops.length} operations (${ops.filter((op) => op.documented).length} from /openapi.json), ${seconds} s`);
    report(`fuzz: statuses ${statuses}; ${handled} cases on documented operations got past validation (2xx)`);
    report(`fuzz: ${cases.length} cases, ${fiveXx.length} 5xx, ${violations.length} shape violations`);
    for (const line of [...fiveXx, ...violations].slice(0, 8)) report(line);

    expect(cases.length).toBeGreaterThanOrEqual(10_000);
    expect(fiveXx.slice(0, 5)).toEqual([]);
    expect(violations.slice(0, 5)).toEqual([]);
    // The generator reaches the handlers too, not only the validation in front of them.
    expect(handled).toBeGreaterThan(CASES / 100);
    // The API runs in this process: a pollution key that reached a merge would show here.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(world.logs.filter((line) => line.includes('"unexpected error"'))).toEqual([]);
  });
});

describe('fuzz: what it found, pinned', () => {
  const auth = () => ({ authorization: `Bearer ${world.token({ properties: PROPERTIES, scope: 'read:payment write:payment admin' })}`, 'x-property-id': '1' });

  it.each(['/vault/v1/tokens/%zz', '/vault/v1/tokens/%', '/fiscal-document/v1/night-audit/exports/%E0%A4%A'])(
    'a path that is not valid percent-encoding (%s) → 400 INVALID_REQUEST, not 500',
    async (path) => {
      const answer = await send(new Agent(), { url: `${world.url}${path}`, method: 'GET', headers: auth() });
      expect(answer.status, answer.text).toBe(400);
      expect(contractProblems(answer)).toEqual([]);
      expect(JSON.parse(answer.text)).toMatchObject({ errorCode: 'INVALID_REQUEST', fieldErrors: [{ path: 'path', message: 'is not valid percent-encoding' }] });
    },
  );

  it.each(['gzip', 'deflate', 'br'])('a Content-Encoding: %s body that does not inflate → 400 INVALID_REQUEST, not 500', async (encoding) => {
    const body = Buffer.from('{"folios":[]}');
    const headers = { ...auth(), 'content-type': 'application/json', 'content-encoding': encoding, 'content-length': String(body.length) };
    const answer = await send(new Agent(), { url: `${world.url}/accounting/v1.0/import`, method: 'POST', headers, body });
    expect(answer.status, answer.text).toBe(400);
    expect(contractProblems(answer)).toEqual([]);
    expect(JSON.parse(answer.text)).toMatchObject({ errorCode: 'INVALID_REQUEST', fieldErrors: [{ path: 'body', message: 'could not be read' }] });
  });
});
