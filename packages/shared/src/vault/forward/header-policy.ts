// The forward's header policy (docs/vault.md#path-and-headers), in one place: which headers a
// client's template may not set (and the reason its 400 gives), which a destination's
// configuration may not set (a problem at start), which never leave the worker from either (the
// vault writes them itself, or they describe a hop, not the request), and which headers of a
// gateway's answer come back to the client. template.ts, destinations.ts and the worker's
// gateway client (apps/worker/src/vault/forward/gateway-client.ts) read it; none keeps a list of
// its own. Names are compared in lower case.

/** A header name as RFC 9110 writes it: one or more token characters. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Headers about one hop of a connection (RFC 9110 §7.6.1): never forwarded, never kept. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-connection']);
/** Set by the vault on every request: a template or a configuration that set them would be overridden, or worse, obeyed. */
const SET_BY_VAULT = new Set(['host', 'content-length', 'idempotency-key', 'user-agent']);

const lower = (name: string) => name.toLowerCase();
const isProxy = (name: string) => name.startsWith('proxy-');

/** Headers a client's template may not set, with the reason given (400 at `headers.<Name>`). */
const TEMPLATE_REFUSED: Record<string, string> = {
  host: 'is not allowed: the vault sets it from the destination',
  authorization: "is not allowed: the destination's credentials come from its configuration",
  cookie: 'is not allowed',
  'content-length': 'is not allowed: the vault sets it',
  'idempotency-key': 'is not allowed: the vault sets it',
  'accept-encoding': 'is not allowed: the answer is read as text, never compressed',
};

/** Why a client's template may not set `name`, or undefined when it may (a valid name is assumed). */
export function templateHeaderRefusal(name: string): string | undefined {
  const key = lower(name);
  const reason = TEMPLATE_REFUSED[key];
  if (reason) return reason;
  if (isProxy(key)) return 'is not allowed';
  if (HOP_BY_HOP.has(key)) return 'is a hop-by-hop header and is not allowed';
  return undefined;
}

/**
 * Why a destination's configuration may not set `name`, or undefined when it may. A fixed
 * Idempotency-Key would make every forward one request to the gateway; the vault sets the framing
 * and its User-Agent per request; an Accept-Encoding would bring back a body the vault cannot read
 * (and mask) as text.
 */
export function destinationHeaderRefusal(name: string): string | undefined {
  const key = lower(name);
  if (SET_BY_VAULT.has(key) || key === 'transfer-encoding' || key === 'connection') return 'is not allowed: the vault sets it';
  if (key === 'accept-encoding') return 'is not allowed: the answer is read as text, never compressed';
  if (isProxy(key)) return 'is not allowed';
  if (HOP_BY_HOP.has(key)) return 'is a hop-by-hop header and is not allowed';
  return undefined;
}

/**
 * Whether a header of the template or of the configuration goes on the wire. The vault writes
 * Host (the destination's origin), Content-Length, User-Agent and Idempotency-Key itself, and no
 * hop-by-hop or proxy header or `Expect` leaves: the rules above refuse most of them earlier, and
 * a template's User-Agent or Expect is dropped here.
 */
export function leavesForGateway(name: string): boolean {
  const key = lower(name);
  return !SET_BY_VAULT.has(key) && !HOP_BY_HOP.has(key) && !isProxy(key) && key !== 'expect';
}

/** The answer headers a client gets from a destination without an `answer` allowlist. */
export const DEFAULT_ANSWER_HEADERS: readonly string[] = [
  'content-type', 'date', 'x-request-id', 'request-id', 'x-correlation-id', 'correlation-id', 'x-trace-id', 'traceparent',
];
/** Always kept: harmless, and they say how to read the body. */
const ALWAYS_KEPT = ['content-type', 'date'];
/** The gateway's framing of its body, which no longer describes the (masked, rebuilt) body the client gets. */
const FRAMING = new Set(['content-length', 'content-encoding', 'transfer-encoding']);

/** Why an answer allowlist may not name `name`, or undefined when it may. */
export function answerHeaderRefusal(name: string): string | undefined {
  const key = lower(name);
  if (FRAMING.has(key)) return "is not kept: it describes the gateway's body, not the one the vault returns";
  if (HOP_BY_HOP.has(key) || isProxy(key)) return 'is a hop-by-hop header and is never kept';
  return undefined;
}

/** The answer headers kept (lower case): the default set, or content-type and date and those the allowlist names. */
export function keptAnswerHeaders(allowlist: readonly string[] | undefined): readonly string[] {
  if (allowlist === undefined) return DEFAULT_ANSWER_HEADERS;
  return [...new Set([...ALWAYS_KEPT, ...allowlist.map(lower)])];
}
