import { randomUUID } from 'node:crypto';
import { holdsPan } from './vault/card/redact-pan.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The X-Request-Id a process answers with, for the API and the worker's health server: the client's
 * when it is sane, a fresh UUID otherwise. A client that puts a card number in its request id gets a
 * fresh id too: the id is echoed, logged and carried in job payloads (docs/security.md).
 */
export function requestIdOf(incoming: unknown): string {
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) && !holdsPan(incoming) ? incoming : randomUUID();
}
