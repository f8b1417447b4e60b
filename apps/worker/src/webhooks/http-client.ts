// Sends one webhook attempt (docs/export.md#webhooks): a POST with a deadline, no redirect followed
// (a 3xx is a failed attempt like any non-2xx), the URL checked against the rules in force (an
// endpoint created under looser settings gets nothing), and the connection made to the address
// that passed the address rules. The socket's `lookup` is ours: it resolves, refuses a private,
// loopback or link-local answer (unless allowed), and hands the socket that very address, so the
// name cannot resolve to something else between the check and the connect.

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { hostOf, resolveChecked, systemResolver, urlFormProblem, type TAddressRules, type TResolver } from '@folio-vault/shared/webhooks/address-guard';

export interface TSendOptions {
  timeoutMs: number;
  /** The address rules in force now (WEBHOOK_ALLOW_INSECURE, WEBHOOK_ALLOW_PRIVATE), whatever they were at creation. */
  rules: TAddressRules;
  resolve?: TResolver;
}

export interface TSendResult {
  statusCode: number;
}

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
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<TSendResult>((done, fail) => {
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'folio-vault-webhooks/1' },
        lookup: checkedLookup(allowPrivate, resolve),
        agent: false,
      },
      (res: IncomingMessage) => {
        // The body is not kept: only the status counts. Reading it lets the socket close cleanly.
        res.resume();
        res.on('end', () => {
          clearTimeout(timer);
          done({ statusCode: res.statusCode ?? 0 });
        });
        res.on('error', (error) => fail(new WebhookSendError(`reading the answer failed: ${error.message}`, { cause: error })));
      },
    );
    const timer = setTimeout(() => req.destroy(new WebhookSendError(`no answer within ${options.timeoutMs / 1000} s`)), options.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      fail(error instanceof WebhookSendError ? error : new WebhookSendError(error.message, { cause: error }));
    });
    req.end(body);
  });
}
