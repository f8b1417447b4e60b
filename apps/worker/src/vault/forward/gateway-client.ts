// The forward proxy's outbound HTTP: one undici Pool per configured destination, bound to that
// destination's origin. The safety rules (docs/vault.md#safety), and where each one is kept:
// - Only the configured host: a Pool connects to the origin it was built with and nowhere else,
//   whatever the request path says (a path that is not origin-form is refused before sending).
//   undici reads no HTTP(S)_PROXY from the environment (only its EnvHttpProxyAgent does, and it is
//   not used here), and these pools do not go through the global dispatcher.
// - No redirects: undici's `request` never follows one (that takes a redirect interceptor, not
//   used here); a 3xx answer is refused as a failure and its body dropped.
// - TLS: the destination's `ca` replaces the default roots, `rejectUnauthorized` is always true,
//   and the destination's client certificate is presented when it has one.
// - One deadline for the whole exchange (sending to the last body byte), and an answer cap
//   (FORWARD_MAX_ANSWER_BYTES) counted while the body streams in: reading stops at the first byte
//   past it, so a hostile answer costs the worker no more than the cap.
// - Headers (header-policy.ts): what the template and the configuration may put on the wire, and
//   which answer headers are kept (the destination's allowlist, or the default set).
// Nothing is logged here (the caller logs), and no error message holds the request's body or headers.

import { Pool, type Dispatcher } from 'undici';
import { inSpan } from '@folio-vault/shared/tracing/spans';
import type { TResolvedDestination } from '@folio-vault/shared/vault/forward/destinations';
import { keptAnswerHeaders, leavesForGateway } from '@folio-vault/shared/vault/forward/header-policy';

export interface TGatewayRequest {
  method: string;
  /** Starts with '/', may hold a query; appended to the destination's basePath. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface TGatewayAnswer {
  status: number;
  /** Lower-case names; only those header-policy.ts keeps for the destination, when present. */
  headers: Record<string, string>;
  /** UTF-8 text. */
  body: string;
  /** Integer milliseconds from sending to the last body byte. */
  durationMs: number;
}

export type TGatewayFailure = 'connect' | 'reset' | 'tls' | 'redirect' | 'too_large' | 'timeout' | 'protocol';

const FAILURE_PHRASES: Record<Exclude<TGatewayFailure, 'too_large'>, string> = {
  connect: 'could not be reached (nothing was sent)',
  reset: 'closed the connection without an answer: it may have received the request',
  tls: 'failed TLS verification against the certificates configured for it',
  redirect: 'answered with a redirect, which is never followed',
  timeout: 'did not answer within its time-out',
  protocol: 'answered with malformed HTTP',
};

const CODE_OF: Record<TGatewayFailure, 'GATEWAY_UNREACHABLE' | 'GATEWAY_TIMEOUT' | 'FORWARD_ANSWER_TOO_LARGE'> = {
  connect: 'GATEWAY_UNREACHABLE',
  reset: 'GATEWAY_UNREACHABLE',
  tls: 'GATEWAY_UNREACHABLE',
  redirect: 'GATEWAY_UNREACHABLE',
  protocol: 'GATEWAY_UNREACHABLE',
  timeout: 'GATEWAY_TIMEOUT',
  too_large: 'FORWARD_ANSWER_TOO_LARGE',
};

/** What a client is told of an answer over the cap: the gateway did answer, so it may have acted. */
const tooLargePhrase = (maxAnswerBytes: number) =>
  `answered with a body over ${maxAnswerBytes} bytes (FORWARD_MAX_ANSWER_BYTES), which was not read: it received the request and may have acted on it`;

export class GatewayError extends Error {
  readonly code: 'GATEWAY_UNREACHABLE' | 'GATEWAY_TIMEOUT' | 'FORWARD_ANSWER_TOO_LARGE';

  constructor(
    destinationName: string,
    readonly failure: TGatewayFailure,
    readonly durationMs: number,
    /** The low-level error code (ECONNREFUSED, UNABLE_TO_VERIFY_LEAF_SIGNATURE…), never any text. */
    readonly detail?: string,
    /** The cap an answer passed (failure `too_large`). */
    maxAnswerBytes = 0,
  ) {
    super(`the payment gateway "${destinationName}" ${failure === 'too_large' ? tooLargePhrase(maxAnswerBytes) : FAILURE_PHRASES[failure]}`);
    this.name = 'GatewayError';
    this.code = CODE_OF[failure];
  }
}

/** X.509 verification codes OpenSSL gives Node (tls.TLSSocket#authorizationError). */
const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_DECRYPT_CERT_SIGNATURE', 'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE', 'CERT_NOT_YET_VALID', 'CERT_HAS_EXPIRED', 'CERT_REVOKED', 'CERT_UNTRUSTED', 'CERT_REJECTED',
  'INVALID_CA', 'PATH_LENGTH_EXCEEDED', 'INVALID_PURPOSE', 'HOSTNAME_MISMATCH', 'ERR_TLS_CERT_ALTNAME_INVALID',
]);
/** Errors that happen before a connection exists: the request cannot have been sent. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const PROTOCOL_CODES = new Set(['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_HEADERS_OVERFLOW', 'UND_ERR_NOT_SUPPORTED']);

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The failure an undici or Node error stands for, looking through `cause` (connect errors wrap). */
function classify(error: unknown): { failure: TGatewayFailure; detail?: string } {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    const code = errorCode(current);
    // llhttp's errors: their `data` holds the gateway's bytes, so only a name or code goes on.
    if ((current as Error).name === 'HTTPParserError') return { failure: 'protocol', detail: code ?? 'HTTPParserError' };
    if (code) {
      if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return { failure: 'too_large', detail: code };
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return { failure: 'timeout', detail: code };
      if (TLS_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return { failure: 'tls', detail: code };
      if (code.startsWith('HPE_') || PROTOCOL_CODES.has(code)) return { failure: 'protocol', detail: code };
    }
    current = (current as { cause?: unknown }).cause;
  }
  // Refused, DNS, unroutable, connect time-out: nothing was sent. Anything else (a reset or a close
  // once connected) may have come after the gateway read the request: a client must not take it as
  // "not sent" and retry under a new key.
  const code = errorCode(error) ?? errorCode((error as { cause?: unknown } | null)?.cause);
  return { failure: code && NOT_SENT_CODES.has(code) ? 'connect' : 'reset', detail: errorCode(error) };
}

/**
 * The template's headers, then the destination's (which win), each only when it may leave
 * (header-policy.ts); then what the vault sets itself. The Idempotency-Key comes in `request`
 * from the forwarder, never from a template (refused there) or a configuration.
 */
function outgoingHeaders(destination: TResolvedDestination, request: TGatewayRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (leavesForGateway(lower) || lower === 'idempotency-key') headers[lower] = value;
  }
  for (const [name, value] of Object.entries(destination.resolvedHeaders)) {
    if (leavesForGateway(name)) headers[name.toLowerCase()] = value;
  }
  headers['user-agent'] = 'folio-vault';
  if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body, 'utf8'));
  return headers;
}

function answerHeaders(destination: TResolvedDestination, headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of keptAnswerHeaders(destination.answer && (destination.answer.headers ?? []))) {
    const value = headers[name];
    if (value !== undefined) kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}

class TooLarge extends Error {}

/** Drops an answer body unread: destroying it closes the connection (undici's abort error is expected, not thrown). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** The body as UTF-8 text, refused (and the stream destroyed) as soon as it passes the cap. */
async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      discard(body);
      throw new TooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

function buildPool(destination: TResolvedDestination, maxAnswerBytes: number): Pool {
  const url = new URL(destination.origin);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && destination.allowInsecure)) {
    throw new Error(`forward destination "${destination.name}" must use https (or allow insecure http)`);
  }
  const { ca, cert, key } = destination.tls;
  // The Pool's own timers sit past the exchange deadline: the AbortController in send() decides.
  const backstop = destination.timeoutMs + 1_000;
  return new Pool(url.origin, {
    connect: {
      timeout: backstop,
      ...(url.protocol === 'https:'
        ? { rejectUnauthorized: true, ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) }
        : {}),
    },
    headersTimeout: backstop,
    bodyTimeout: backstop,
    // A declared Content-Length over the cap is refused before any body byte is read.
    maxResponseSize: maxAnswerBytes,
  });
}

/** A request refused before anything was sent (unknown destination, a path or header undici will not send). */
export class NotSentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotSentError';
  }
}

/** One undici Pool per destination, bound to its origin (it cannot talk to another host), with its CA and client certificate; built once at worker start. */
export class GatewayClients {
  private readonly destinations = new Map<string, { destination: TResolvedDestination; pool: Pool }>();
  private readonly maxAnswerBytes: number;

  /** `maxAnswerBytes` is FORWARD_MAX_ANSWER_BYTES: the largest answer body read. */
  constructor(destinations: readonly TResolvedDestination[], options: { maxAnswerBytes: number }) {
    this.maxAnswerBytes = options.maxAnswerBytes;
    for (const destination of destinations) {
      this.destinations.set(destination.name, { destination, pool: buildPool(destination, this.maxAnswerBytes) });
    }
  }

  /**
   * With tracing on, the call is a span naming the destination and the method, then the answer's
   * status or the failure's kind: never the path, headers or body (the card is in them once filled).
   */
  async send(destinationName: string, request: TGatewayRequest): Promise<TGatewayAnswer> {
    const attributes = { 'folio.forward.destination': destinationName, 'http.request.method': request.method };
    return inSpan('forward gateway call', attributes, async (span) => {
      try {
        const answer = await this.exchange(destinationName, request);
        span.setAttribute('http.response.status_code', answer.status);
        return answer;
      } catch (error) {
        if (error instanceof GatewayError) span.setAttribute('folio.forward.failure', error.failure);
        throw error;
      }
    });
  }

  private async exchange(destinationName: string, request: TGatewayRequest): Promise<TGatewayAnswer> {
    const entry = this.destinations.get(destinationName);
    if (!entry) throw new NotSentError(`unknown forward destination "${destinationName}"`);
    const { destination, pool } = entry;
    const path = destination.basePath + request.path;
    // Origin-form only: an absolute URL would be sent as the request target to the configured host.
    if (!request.path.startsWith('/') || !path.startsWith('/')) {
      throw new NotSentError(`the request path for forward destination "${destinationName}" must start with "/"`);
    }
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), destination.timeoutMs);
    try {
      const answer = await pool.request({
        path,
        method: request.method as Dispatcher.HttpMethod,
        headers: outgoingHeaders(destination, request),
        body: request.body ?? null,
        signal: deadline.signal,
      });
      if (answer.statusCode >= 300 && answer.statusCode <= 399) {
        discard(answer.body);
        throw new GatewayError(destinationName, 'redirect', elapsed(), String(answer.statusCode));
      }
      const body = await readCapped(answer.body, this.maxAnswerBytes);
      return { status: answer.statusCode, headers: answerHeaders(destination, answer.headers), body, durationMs: elapsed() };
    } catch (error) {
      throw this.failure(destinationName, error, deadline.signal.aborted, elapsed());
    } finally {
      clearTimeout(timer);
    }
  }

  private failure(destinationName: string, error: unknown, timedOut: boolean, durationMs: number): Error {
    if (error instanceof GatewayError) return error;
    if (error instanceof TooLarge) return new GatewayError(destinationName, 'too_large', durationMs, undefined, this.maxAnswerBytes);
    if (timedOut) return new GatewayError(destinationName, 'timeout', durationMs);
    if (errorCode(error) === 'UND_ERR_INVALID_ARG') {
      // A request undici refuses to send (a header value with control characters…): the caller's fault.
      return new NotSentError(`the request for forward destination "${destinationName}" was refused before sending (invalid argument)`);
    }
    const { failure, detail } = classify(error);
    return new GatewayError(destinationName, failure, durationMs, detail, this.maxAnswerBytes);
  }

  /** Closes every pool; an exchange in flight ends first (within its deadline). */
  async close(): Promise<void> {
    await Promise.all([...this.destinations.values()].map(({ pool }) => pool.close()));
  }
}
