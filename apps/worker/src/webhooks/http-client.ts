// Sends one webhook attempt (docs/export.md#webhooks) with undici, as the forward's gateway client
// does: a POST on a connection of its own, and the rules, each kept here:
// - The URL is checked against the rules in force (an endpoint created under looser settings gets
//   nothing), and the connection goes to the address that passed the address rules: the socket's
//   `lookup` (undici's `connect` options go to net/tls.connect) resolves, refuses a private,
//   loopback or link-local answer unless allowed, and hands the socket that very address, so the
//   name cannot resolve to something else between the check and the connect.
// - One deadline for the whole exchange, connect to the last byte read.
// - No redirects: undici's `request` never follows one (that takes an interceptor, not used here);
//   a 3xx is a failed attempt like any non-2xx.
// - Only the status counts: at most MAX_ANSWER_BYTES of the answer are read, then the connection is closed.
// - TLS: undici verifies the certificate against the default roots (rejectUnauthorized always true).

import { isIP, type LookupFunction } from 'node:net';
import { Client } from 'undici';
import { hostOf, resolveChecked, systemResolver, urlFormProblem, WebhookAddressError, type TAddressRules, type TResolver } from '@folio-vault/shared/webhooks/address-guard';

export interface TSendOptions {
  timeoutMs: number;
  /** The address rules in force now (WEBHOOK_ALLOW_INSECURE, WEBHOOK_ALLOW_PRIVATE), whatever they were at creation. */
  rules: TAddressRules;
  resolve?: TResolver;
}

export interface TSendResult {
  statusCode: number;
}

/** The most of an answer's body read before the connection is closed. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** An attempt that got no HTTP answer: refused address, DNS, connect, TLS, time-out. */
export class WebhookSendError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookSendError';
  }
}

function checkedLookup(allowPrivate: boolean, resolve: TResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(hostname, { allowPrivate }, resolve).then(
      (checked) => {
        // net asks for every address when autoSelectFamily is on: answer with the one checked.
        if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [checked]);
        else callback(null, checked.address, checked.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

/** Why an attempt failed, in one line: the address rule's own sentence when it refused, else the error's message. */
function reasonOf(error: unknown): string {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (current instanceof WebhookAddressError) return current.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export async function sendWebhook(url: string, headers: Record<string, string>, body: string, options: TSendOptions): Promise<TSendResult> {
  const target = new URL(url);
  const { allowPrivate } = options.rules;
  const resolve = options.resolve ?? systemResolver;
  const formProblem = urlFormProblem(target, options.rules);
  if (formProblem) throw new WebhookSendError(`the endpoint URL ${formProblem}`);
  // An IP literal never reaches `lookup`: check it here.
  if (isIP(hostOf(target))) {
    await resolveChecked(hostOf(target), { allowPrivate }).catch((error: Error) => {
      throw new WebhookSendError(error.message, { cause: error });
    });
  }
  const client = new Client(target.origin, {
    connect: {
      lookup: checkedLookup(allowPrivate, resolve),
      timeout: options.timeoutMs + 1_000,
      ...(target.protocol === 'https:' ? { rejectUnauthorized: true } : {}),
    },
    // undici's own timers sit past the deadline below, which decides.
    headersTimeout: options.timeoutMs + 1_000,
    bodyTimeout: options.timeoutMs + 1_000,
  });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  try {
    const answer = await client.request({
      method: 'POST',
      path: `${target.pathname}${target.search}`,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'folio-vault-webhooks/1' },
      body,
      signal: deadline.signal,
    });
    await answer.body.dump({ limit: MAX_ANSWER_BYTES, signal: deadline.signal });
    return { statusCode: answer.statusCode };
  } catch (error) {
    if (deadline.signal.aborted) throw new WebhookSendError(`no answer within ${options.timeoutMs / 1000} s`, { cause: error });
    throw new WebhookSendError(reasonOf(error), { cause: error });
  } finally {
    clearTimeout(timer);
    await client.destroy().catch(() => undefined);
  }
}
