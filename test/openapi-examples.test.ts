import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@folio-vault/api/openapi';
import { startDemoGateway, type TDemoGateway } from '../scripts/demo-gateway.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * The request examples of the OpenAPI document, the bodies "Try it out" on /docs starts from: each
 * is posted as documented through the real service, in the document's order (the forward uses the
 * card the tokenize example stored; the listing, the exports and the invoice read the folio the import
 * example wrote, and the credit note credits that invoice), with a token and the headers the operation requires, and must be accepted. No example
 * value is a generator's placeholder ("string").
 */
type TSchema = { $ref?: string; example?: unknown };
type TParameter = { in: string; name: string; required?: boolean; schema?: { example?: unknown } };
type TOperation = { operationId: string; parameters?: TParameter[]; requestBody?: { content: Record<string, { schema: TSchema; example?: unknown }> } };
type TDocument = { paths: Record<string, Record<string, TOperation>>; components: { schemas: Record<string, TSchema> } };

const doc = buildOpenApiDocument() as unknown as TDocument;

/** The body example of an operation: its media type's, else its (referenced) schema's. */
function bodyExample(operation: TOperation): unknown {
  const media = operation.requestBody?.content['application/json'];
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const schema = media.schema.$ref ? doc.components.schemas[media.schema.$ref.split('/').pop()!]! : media.schema;
  return schema.example;
}

const withBodies = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([, operation]) => operation.requestBody)
    .map(([method, operation]) => ({ path, method, operation, example: bodyExample(operation) })),
);

/** Every `example` value in the document, with where it is. */
function examplesIn(value: unknown, at: string, found: Array<{ at: string; value: unknown }> = []): Array<{ at: string; value: unknown }> {
  if (Array.isArray(value)) value.forEach((item, index) => examplesIn(item, `${at}[${index}]`, found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'example') found.push({ at: `${at}.example`, value: item });
      examplesIn(item, `${at}.${key}`, found);
    }
  }
  return found;
}

/** The leaves of a value that are the string "string", by path. */
function placeholders(value: unknown, at: string): string[] {
  if (value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((item, index) => placeholders(item, `${at}[${index}]`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => placeholders(item, `${at}.${key}`));
  return [];
}

describe('the request examples /docs offers', () => {
  let world: TWorld;
  let gateway: TDemoGateway;
  const gatewayKey = `Bearer sk_test_${randomUUID()}`;

  beforeAll(async () => {
    gateway = await startDemoGateway({ authorization: gatewayKey });
    const forward = withBodies.find(({ operation }) => operation.operationId === 'forwardCardToken')!.example as { destination: string };
    world = await createWorld({
      env: {
        // The destination the forward example names, here the demo gateway.
        VAULT_FORWARD_DESTINATIONS: JSON.stringify([
          { name: forward.destination, url: gateway.origin, modes: ['test'], paths: ['/v1/charges'], methods: ['POST'], headers: { Authorization: 'env:EXAMPLE_GATEWAY_KEY' }, allowInsecure: true },
        ]),
        EXAMPLE_GATEWAY_KEY: gatewayKey,
      },
      // The webhook example's host, resolved as a public DNS server would (this machine may have none).
      api: { webhookResolver: async () => [{ address: '93.184.215.14', family: 4 }] },
    });
  });
  afterAll(async () => {
    await world?.close();
    await gateway?.close();
  });

  it('every request body has an example, and no example value anywhere is the placeholder "string"', () => {
    expect(withBodies.filter(({ example }) => example === undefined).map(({ operation }) => operation.operationId)).toEqual([]);
    expect(examplesIn(doc, '$').flatMap(({ at, value }) => placeholders(value, at))).toEqual([]);
  });

  it('each is accepted as documented, through the real service', { timeout: 60_000 }, async () => {
    const bearer = world.token({ properties: [1], scope: 'use:payment read:payment write:payment' });
    let cardToken: string | undefined;
    let invoiceId: string | undefined;
    const statuses: Record<string, number> = {};
    for (const { path, method, operation, example } of withBodies) {
      // A path id is the card the tokenize example stored, or the invoice the issue example made.
      const url = path.replace('{id}', (path.startsWith('/fiscal-document/v1/invoices/') ? invoiceId : cardToken) ?? 'not-made-yet');
      const req = request(world.url)[method as 'post'](url).set('Authorization', `Bearer ${bearer}`);
      // The headers as documented: every example value (Try it out fills them in), a new
      // Idempotency-Key (it has no example: a key is one request's), and no other.
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'header') continue;
        const name = parameter.name.toLowerCase();
        if (name === 'idempotency-key') req.set(name, randomUUID());
        else if (parameter.schema?.example !== undefined) req.set(name, String(parameter.schema.example));
        else expect(parameter.required, `${operation.operationId}: required header ${name} has no example`).not.toBe(true);
      }
      const res = await req.send(example as object);
      statuses[operation.operationId] = res.status;
      expect(res.status, `${operation.operationId}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      if (operation.operationId === 'tokenizeCard') cardToken = res.body.id as string;
      if (operation.operationId === 'issueInvoice') invoiceId = res.body.id as string;
    }
    expect(statuses).toEqual({
      tokenizeCard: 200,
      forwardCardToken: 200,
      importLedger: 200,
      listFolioTransactions: 200,
      exportFolios: 200,
      exportFoliosAlias: 200,
      issueInvoice: 201,
      creditInvoice: 201,
      startNightAudit: 202,
      createWebhookEndpoint: 201,
    });
    expect(gateway.charges()).toBe(1);
  });
});
