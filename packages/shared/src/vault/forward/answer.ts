// What of a gateway's answer reaches the client (docs/vault.md#the-answer): decided in the worker,
// once, before anything is recorded, returned or put in the job's result, so the three hold the
// same text.
//
// First line, the destination's allowlist (`answer` in VAULT_FORWARD_DESTINATIONS): the status
// always; the headers the gateway client kept for it (header-policy.ts); for a JSON answer the
// members at the paths listed, rebuilt into a document of the same nesting; for a form answer the
// pairs whose key is listed, as written. Any other body — another content type, JSON that does not
// parse, a form where only JSON is listed — is dropped: `body: null, dropped: true`. An empty body
// stays empty. Without an allowlist the whole body is kept.
// Second line, the masking (mask.ts), on whatever is kept: headers and body. A body it cannot mask
// within its bound is dropped too, and so is an allowlisted JSON body that masking turned into
// something that no longer parses (a number member that held a card).

import type { TAnswerAllowlist } from './destinations.js';
import { maskAnswerBody, maskHeaders, type TMaskedSecrets } from './mask.js';
import { contentTypeOf, templateKindOf } from './template.js';

export interface TClientAnswer {
  headers: Record<string, string>;
  body: string | null;
  dropped?: true;
}

const INDEX = /^(?:0|[1-9][0-9]*)$/;
const dropped = (headers: Record<string, string>): TClientAnswer => ({ headers, body: null, dropped: true });

/** Sets `key` on an object or array as an own member (a "__proto__" key included). */
function setMember(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The JSON document of the members of `source` at `paths`, in the same nesting; members absent from `source` are absent. */
export function jsonMembers(source: unknown, paths: readonly string[][]): unknown {
  const rebuilt: Record<string, unknown> | unknown[] = Array.isArray(source) ? [] : {};
  for (const path of paths) {
    let from: unknown = source;
    let to: Record<string, unknown> | unknown[] = rebuilt;
    let found = path.length > 0;
    for (let depth = 0; depth < path.length && found; depth += 1) {
      const key = path[depth]!;
      const inArray = Array.isArray(from) && INDEX.test(key) && Number(key) < from.length;
      const inObject = !Array.isArray(from) && typeof from === 'object' && from !== null && Object.hasOwn(from, key);
      if (!inArray && !inObject) {
        found = false;
        break;
      }
      const next: unknown = (from as Record<string, unknown>)[key];
      if (depth === path.length - 1) {
        setMember(to, key, next);
        break;
      }
      // Own members only: an inherited one ("__proto__") is never written into.
      let container = Object.hasOwn(to, key) ? (to as Record<string, unknown>)[key] : undefined;
      if (typeof container !== 'object' || container === null) {
        container = Array.isArray(next) ? [] : {};
        setMember(to, key, container);
      }
      from = next;
      to = container as Record<string, unknown> | unknown[];
    }
  }
  return rebuilt;
}

/** The pairs of a form body whose key (decoded) is listed, as they were written, in their order. */
export function formMembers(body: string, keys: readonly string[]): string {
  const listed = new Set(keys);
  const keyOf = (pair: string) => {
    const raw = pair.split('=', 1)[0]!.replace(/\+/g, ' ');
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  };
  return body.split('&').filter((pair) => pair !== '' && listed.has(keyOf(pair))).join('&');
}

/** The body the allowlist keeps, or null when it is dropped. */
function allowlisted(allowlist: TAnswerAllowlist, contentType: string | undefined, body: string): string | null {
  const kind = templateKindOf(contentType);
  if (kind === 'json' && allowlist.json) {
    try {
      return JSON.stringify(jsonMembers(JSON.parse(body), allowlist.json));
    } catch {
      return null;
    }
  }
  if (kind === 'form' && allowlist.form) return formMembers(body, allowlist.form);
  return null;
}

/**
 * The answer the client gets, the record holds and the job returns: the allowlist first, then
 * the masking (see the file's comment). A U+0000 (binary in an answer) is U+FFFD: the recorded
 * answer is jsonb, which cannot hold it.
 */
export async function clientAnswer(
  allowlist: TAnswerAllowlist | undefined,
  answer: { headers: Record<string, string>; body: string },
  secrets: TMaskedSecrets,
): Promise<TClientAnswer> {
  const headers = maskHeaders(answer.headers, secrets);
  const body = answer.body.replaceAll('\0', '\uFFFD');
  if (body === '') return { headers, body };
  const kept = allowlist ? allowlisted(allowlist, contentTypeOf(answer.headers), body) : body;
  if (kept === null) return dropped(headers);
  const masked = await maskAnswerBody(kept, secrets);
  if (masked === null) return dropped(headers);
  if (allowlist && masked !== kept && templateKindOf(contentTypeOf(answer.headers)) === 'json') {
    try {
      JSON.parse(masked);
    } catch {
      return dropped(headers);
    }
  }
  return { headers, body: masked };
}
