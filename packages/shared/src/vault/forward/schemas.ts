// The forward request, POST /vault/v1/tokens/{id}/forward (docs/vault.md). Messages never quote a
// header value or the body.

import { z } from '../../schemas/zod.js';
import { ZVaultHeaders } from '../schemas.js';
import { FORWARD_METHODS } from './destinations.js';
import { templateProblems } from './template.js';

const MAX_BODY_BYTES = 65_536;
const MAX_PATH = 2048;
const PATH_TOO_LONG = `must be at most ${MAX_PATH} characters`;

const EXAMPLE_BODY =
  '{"amount":1000,"card":{"number":"{{card.number}}","cvc":"{{card.cvv}}","exp_month":"{{card.exp_month}}","exp_year":"{{card.exp_year}}"}}';

const ZForwardMethod = z
  .string()
  .transform((value) => value.toUpperCase())
  .pipe(z.enum(FORWARD_METHODS, { error: `must be one of ${FORWARD_METHODS.join(', ')}` }))
  .default('POST')
  .openapi({ type: 'string', enum: [...FORWARD_METHODS], default: 'POST', description: 'Upper or lower case' });

export const ZForwardRequest = z
  .strictObject({
    destination: z
      .string()
      .trim()
      .min(1, 'must name a destination')
      .max(100, 'must be at most 100 characters')
      .openapi({ description: 'A destination name from VAULT_FORWARD_DESTINATIONS', example: 'acme' }),
    method: ZForwardMethod,
    path: z
      .string()
      .min(1, 'must not be empty')
      .max(MAX_PATH, PATH_TOO_LONG)
      .openapi({ description: 'Path under the destination URL; placeholders only in the query string', example: '/v1/charges' }),
    headers: z.record(z.string(), z.string({ error: 'must be a string' })).optional(),
    body: z
      .string()
      .refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_BODY_BYTES, 'must be at most 64 kB')
      .optional()
      .openapi({ description: 'Request body with {{card.*}} and {{billing.*}} placeholders', example: EXAMPLE_BODY }),
  })
  .superRefine((request, ctx) => {
    // The path's length is a rule of both the field schema and the template: reported once.
    const pathTooLong = ctx.issues.some((issue) => issue.code === 'too_big' && issue.path?.[0] === 'path');
    const problems = templateProblems({
      method: typeof request.method === 'string' ? request.method : 'POST',
      path: request.path,
      headers: request.headers,
      body: request.body,
    });
    for (const problem of problems) {
      if (pathTooLong && problem.path === 'path' && problem.message === PATH_TOO_LONG) continue;
      const at = problem.path.indexOf('.');
      const path = at === -1 ? [problem.path] : [problem.path.slice(0, at), problem.path.slice(at + 1)];
      ctx.addIssue({ code: 'custom', path, message: problem.message });
    }
  })
  .openapi('ForwardRequest', {
    example: {
      destination: 'acme',
      method: 'POST',
      path: '/v1/charges',
      headers: { 'Content-Type': 'application/json' },
      body: EXAMPLE_BODY,
    },
  });

export type TForwardRequest = z.output<typeof ZForwardRequest>;

export const ZForwardHeaders = ZVaultHeaders.extend({
  'idempotency-key': z
    .string()
    .min(1, 'must not be empty')
    .max(255, 'must be at most 255 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters'),
});

export const ZForwardResponse = z
  .object({
    forward_id: z.string(),
    destination: z.string(),
    status: z.number().int().openapi({ description: "The gateway's status code" }),
    headers: z.record(z.string(), z.string()).openapi({
      description: "The gateway's answer headers the destination keeps (content-type, date and its request-id headers, or those its answer allowlist names), masked",
    }),
    body: z.string().nullable().openapi({
      description:
        "The gateway's body as text, masked; with an answer allowlist, only the members it names. null when the body was dropped (see dropped)",
    }),
    dropped: z.literal(true).optional().openapi({
      description:
        "Present when the gateway's body was dropped: its content type or shape is not one the destination's answer allowlist takes, or it could not be masked",
    }),
    duration_ms: z.number().int(),
  })
  .openapi('ForwardResponse');

export type TForwardResponse = z.output<typeof ZForwardResponse>;
