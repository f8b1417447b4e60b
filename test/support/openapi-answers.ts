// Checks an HTTP answer against /openapi.json: the status is described for the operation, every
// header the description requires is there and matches its schema, and the body is valid for its
// content type. Objects are checked closed (no property the document does not name), so a field
// the service adds without describing it fails here. Paths the document leaves out on purpose
// (/docs, /admin/queues: apps/api/src/openapi.ts) are not judged; any other path or method the
// document does not have must be answered 404 in the Error schema.

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type * as OpenApiModule from '@folio-vault/api/openapi';

export interface TAnswer {
  method: string;
  /** The path as sent, without the query. */
  path: string;
  status: number;
  header: (name: string) => string | undefined;
  /** The body as text; undefined for a body that is not text (a file). */
  text: string | undefined;
}

type TJson = Record<string, unknown>;
interface TOperation {
  method: string;
  pattern: RegExp;
  templated: number;
  pointer: string;
  responses: Record<string, TJson>;
}

const EXCLUDED = /^\/(docs|admin\/queues)(\/|$)/i;
const DOC_ID = 'https://folio-vault.invalid/openapi.json';

/** Every object with named properties gets `additionalProperties: false` unless it says otherwise. */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const copy = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, closed(v)])) as TJson;
  if (copy.properties && typeof copy.properties === 'object' && !('additionalProperties' in copy)) copy.additionalProperties = false;
  return copy;
}

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The API's document builder, imported on demand: every test file loads this module (through
 * validate-answers.ts), and the unit tests that never start an API would otherwise pay for importing
 * the API's routes and the OpenAPI generator (about 1.9 s a file on a slow machine, a tenth of the
 * suite's time).
 */
let openapi: typeof OpenApiModule | undefined;

/** Loads what answerProblems needs; registerApiOrigin awaits it too. */
export async function openApiAnswersReady(): Promise<void> {
  openapi ??= await import('@folio-vault/api/openapi');
}

function load() {
  if (!openapi) throw new Error('openapi-answers: await openApiAnswersReady() or registerApiOrigin() before judging an answer');
  const doc = openapi.buildOpenApiDocument() as unknown as TJson & { paths: Record<string, Record<string, TJson>>; components: TJson };
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...(closed({ components: doc.components, paths: doc.paths }) as TJson), $id: DOC_ID });
  const operations: TOperation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      // Express matches case-insensitively and takes one trailing slash (apps/api/src/app.ts).
      const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+');
      operations.push({
        method: method.toUpperCase(),
        pattern: new RegExp(`^${source}/?$`, 'i'),
        templated: (path.match(/\{/g) ?? []).length,
        pointer: `#/paths/${escapePointer(path)}/${method}`,
        responses: op.responses as Record<string, TJson>,
      });
    }
  }
  const components = doc.components as Record<string, Record<string, TJson>>;
  return { ajv, operations, components };
}

/**
 * Origins of the API processes the tests started (support/world.ts registers each). Other servers
 * a test talks to, such as the worker's health server, answer other documents.
 */
const API_ORIGINS: Set<string> = ((globalThis as { folioApiOrigins?: Set<string> }).folioApiOrigins ??= new Set());

export async function registerApiOrigin(url: string): Promise<void> {
  await openApiAnswersReady();
  API_ORIGINS.add(new URL(url).origin);
}

export const isApiOrigin = (url: string): boolean => API_ORIGINS.has(new URL(url).origin);

let loaded: ReturnType<typeof load> | undefined;
const validators = new Map<string, ValidateFunction>();

function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    validate = loaded!.ajv.compile({ $ref: `${DOC_ID}${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

/** A `$ref` to a component (`#/components/responses/NotFound`) and the pointer it resolved to. */
function deref(node: TJson, pointer: string): { node: TJson; pointer: string } {
  const ref = node.$ref;
  if (typeof ref !== 'string') return { node, pointer };
  const [, kind, name] = ref.split('/').slice(1);
  return { node: loaded!.components[kind!]![name!]!, pointer: `#/components/${kind}/${escapePointer(name!)}` };
}

function bodyProblems(answer: TAnswer, response: TJson, pointer: string): string[] {
  const content = response.content as Record<string, TJson> | undefined;
  if (!content) return answer.text ? [`a body where the document describes none`] : [];
  const type = (answer.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!(type in content)) return [`Content-Type ${type || '(none)'} where the document has ${Object.keys(content).join(', ')}`];
  if (answer.text === undefined || type === 'application/octet-stream') return [];
  let value: unknown = answer.text;
  if (type === 'application/json') {
    try {
      value = JSON.parse(answer.text);
    } catch {
      return ['a JSON body that does not parse'];
    }
  }
  const validate = validatorAt(`${pointer}/content/${escapePointer(type)}/schema`);
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, 5).map((e) => `body${e.instancePath} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
}

function headerProblems(answer: TAnswer, response: TJson, pointer: string): string[] {
  const problems: string[] = [];
  for (const [name, raw] of Object.entries((response.headers ?? {}) as Record<string, TJson>)) {
    const { node: header, pointer: at } = deref(raw, `${pointer}/headers/${escapePointer(name)}`);
    const value = answer.header(name);
    if (value === undefined) {
      if (header.required) problems.push(`header ${name} is missing`);
      continue;
    }
    const validate = validatorAt(`${at}/schema`);
    if (!validate(value)) problems.push(`header ${name}: ${JSON.stringify(value)} ${validate.errors?.[0]?.message ?? ''}`);
  }
  return problems;
}

function findOperation(method: string, path: string): TOperation | undefined {
  const matches = loaded!.operations.filter((op) => op.method === method && op.pattern.test(path));
  // A literal path wins over a template (POST /vault/v1/tokens/card, not /vault/v1/tokens/{id}).
  return matches.sort((a, b) => a.templated - b.templated)[0];
}

/**
 * Express answers OPTIONS itself (RFC 9110 §9.3.7) on a path it has routes for: 200 and the methods
 * in Allow, no body to describe. They must be exactly the document's methods of that path.
 */
function optionsAllow(path: string): string | undefined {
  const methods = new Set(loaded!.operations.filter((op) => op.pattern.test(path)).map((op) => op.method));
  if (methods.size === 0) return undefined;
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort().join(', ');
}

/** What in the answer the document does not describe; `undefined` for a path left out on purpose. */
export function answerProblems(answer: TAnswer): string[] | undefined {
  loaded ??= load();
  if (EXCLUDED.test(answer.path)) return undefined;
  const method = answer.method.toUpperCase() === 'HEAD' ? 'GET' : answer.method.toUpperCase();
  if (method === 'OPTIONS') {
    const allowed = optionsAllow(answer.path);
    // Express decodes a matching path's parameters first: a parameter that is not valid
    // percent-encoding is answered 400 INVALID_REQUEST before OPTIONS is looked at.
    const badEncoding = answer.path.split('/').some((segment) => {
      try {
        decodeURIComponent(segment);
        return false;
      } catch {
        return true;
      }
    });
    if (allowed && badEncoding && answer.status === 400 && answer.text?.includes('"errorCode":"INVALID_REQUEST"')) return [];
    if (allowed) return answer.status === 200 && answer.header('allow') === allowed ? [] : [`OPTIONS ${answer.path} → ${answer.status} Allow ${answer.header('allow')}, not 200 Allow ${allowed}`];
  }
  const op = findOperation(method, answer.path);
  let response: TJson | undefined;
  let pointer: string;
  if (op) {
    const described = op.responses[String(answer.status)];
    if (!described) return [`status ${answer.status} is not described for ${method} ${op.pointer}`];
    ({ node: response, pointer } = deref(described, `${op.pointer}/responses/${answer.status}`));
  } else {
    // Express decodes the path parameters of a matching path before it looks at the method, so a
    // path that is not valid percent-encoding is a 400 even under a method the path lacks.
    const badEncoding = answer.status === 400 && /"path":"path"/.test(answer.text ?? '');
    if (answer.status !== 404 && !badEncoding) return [`${method} ${answer.path} is not in the document, yet answered ${answer.status}`];
    ({ node: response, pointer } = deref({ $ref: `#/components/responses/${badEncoding ? 'BadRequest' : 'NotFound'}` }, ''));
  }
  const problems = [...headerProblems(answer, response, pointer)];
  if (answer.method.toUpperCase() !== 'HEAD') problems.push(...bodyProblems(answer, response, pointer));
  return problems;
}
