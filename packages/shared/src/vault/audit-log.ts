// The vault's audit trail (PCI DSS 10.2): who (JWT subject), what (action, token, property, mode),
// when, and how it ended, one row per vault request (written by the API's route machinery once the
// answer is out, apps/api/src/http/route-audit.ts), one per token the expiry sweep shreds, and one
// per vault job a worker refused for its signature (apps/worker/src/vault/job-gate.ts). It
// holds no card data by construction: every field is an id, a code or a subject, and free text that
// came from outside is dropped unless it has the shape of what it claims to be (a UUID, an int64),
// so a PAN sent as a token id or a property id never lands here.

import { isIP } from 'node:net';
import { isLuhnValid } from './card/luhn.js';
import { redactPans } from './card/redact-pan.js';
import type { TPgPool } from '../connections.js';
import type { TErrorCode } from '../errors.js';
import type { TTokenizationMode } from './schemas.js';
import type { TJobRefusal } from './job-signature.js';
import { within } from '../within.js';

export type TAuditAction = 'token.tokenize' | 'token.read' | 'token.delete' | 'token.search' | 'token.forward' | 'token.expire' | 'job.refused';
export type TAuditOutcome = 'success' | 'denied' | 'not_found' | 'rejected' | 'failed';

interface TAuditEventBase {
  tokenId?: string;
  propertyId?: string;
  mode?: TTokenizationMode;
  requestId: string;
}

/** What a vault route (or the sweep) records. */
export type TRequestAction = Exclude<TAuditAction, 'job.refused'>;

/** A request's event (or the sweep's, which answers as 200 would): how the answer went. */
export interface TRequestAuditEvent extends TAuditEventBase {
  /** The verified JWT's `sub`; absent when the caller was not authenticated. */
  subject?: string;
  action: TRequestAction;
  httpStatus: number;
  errorCode?: TErrorCode;
  /** The peer address of the request. */
  clientAddress?: string;
  /** What a forward did: never card data (the path is the caller's template, PAN-redacted). */
  forward?: { destination: string; method: string; path: string; gatewayStatus?: number; durationMs?: number };
}

/** A vault job a worker refused before reading it: its name and why; outcome `denied`, no HTTP status. */
export interface TJobRefusedAuditEvent extends TAuditEventBase {
  action: 'job.refused';
  job: { name: string; refusal: TJobRefusal };
}

export type TAuditEvent = TRequestAuditEvent | TJobRefusedAuditEvent;

export interface TAuditRow {
  id: string;
  occurred_at: Date;
  subject: string | null;
  action: TAuditAction;
  outcome: TAuditOutcome;
  error_code: string | null;
  /** Null for a job's event (job.refused). */
  http_status: number | null;
  token_id: string | null;
  property_id: string | null;
  mode: TTokenizationMode | null;
  request_id: string;
  client_address: string | null;
  destination: string | null;
  forward_method: string | null;
  forward_path: string | null;
  gateway_status: number | null;
  duration_ms: number | null;
  job_name: string | null;
  refusal: TJobRefusal | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INT64 = /^[1-9]\d{0,18}$/;
const MAX_INT64 = 9_223_372_036_854_775_807n;
const MAX_SUBJECT = 200;

export function outcomeOf(httpStatus: number): TAuditOutcome {
  if (httpStatus < 400) return 'success';
  if (httpStatus === 401 || httpStatus === 403) return 'denied';
  if (httpStatus === 404) return 'not_found';
  if (httpStatus < 500) return 'rejected';
  return 'failed';
}

/** A token id as stored: only a well-formed UUID, lower case; anything else is not recorded. */
export function auditTokenId(value: unknown): string | undefined {
  return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : undefined;
}

/**
 * A property id as stored: only a canonical int64 within range, and not one that could be a card
 * number (12-19 digits, Luhn-valid). Such an id is a valid int64, so a PAN pasted into
 * X-Property-Id would otherwise be kept here in clear; real property ids are far shorter.
 */
export function auditPropertyId(value: unknown): string | undefined {
  if (typeof value !== 'string' || !INT64.test(value)) return undefined;
  if (value.length >= 12 && isLuhnValid(value)) return undefined;
  return BigInt(value) <= MAX_INT64 ? value : undefined;
}

type TAuditValues = [
  string | null, TAuditAction, TAuditOutcome, string | null, number | null, string | null, string | null, string | null, string, string | null,
  string | null, string | null, string | null, number | null, number | null, string | null, string | null,
];

const COLUMN_NAMES =
  'subject, action, outcome, error_code, http_status, token_id, property_id, mode, request_id, client_address, ' +
  'destination, forward_method, forward_path, gateway_status, duration_ms, job_name, refusal';
const COLUMN_TYPES = ['text', 'text', 'text', 'text', 'int', 'uuid', 'bigint', 'text', 'text', 'inet', 'text', 'text', 'text', 'int', 'int', 'text', 'text'] as const;
/** One array parameter per column, unnested side by side: one statement for any number of events. */
const INSERT_EVENTS = `INSERT INTO audit.vault_events (${COLUMN_NAMES})
  SELECT * FROM unnest(${COLUMN_TYPES.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})`;

/**
 * A subject as the audit row keeps it: text from outside (a token claim), masked like a log line and
 * cut to MAX_SUBJECT characters.
 */
export function auditSubject(subject: string): string {
  return [...redactPans(subject)].slice(0, MAX_SUBJECT).join('');
}

/** An event as the row's column values: free text from outside masked, ids kept only when well-formed. */
function auditValuesOf(event: TAuditEvent): TAuditValues {
  const ids = [
    auditTokenId(event.tokenId) ?? null,
    auditPropertyId(event.propertyId) ?? null,
    event.mode ?? null,
    // The request id is text from outside too (a header, or a job's field): masked like a log line.
    redactPans(event.requestId).slice(0, 128),
  ] as const;
  if (event.action === 'job.refused') {
    return [null, event.action, 'denied', null, null, ...ids, null, null, null, null, null, null, event.job.name.slice(0, 100), event.job.refusal];
  }
  const subject = event.subject === undefined ? null : auditSubject(event.subject);
  return [
    subject,
    event.action,
    outcomeOf(event.httpStatus),
    event.errorCode ?? null,
    event.httpStatus,
    ...ids,
    event.clientAddress && isIP(event.clientAddress) ? event.clientAddress : null,
    event.forward ? redactPans(event.forward.destination).slice(0, 100) : null,
    event.forward?.method ?? null,
    event.forward ? redactPans(event.forward.path).slice(0, 2048) : null,
    event.forward?.gatewayStatus ?? null,
    event.forward?.durationMs ?? null,
    null,
    null,
  ];
}

export class AuditLog {
  /**
   * `timeoutMs` bounds a write: a database that does not answer must not hold what waits on it
   * (a sweep's transaction, an API's shutdown) for longer than that.
   */
  constructor(
    private readonly pool: TPgPool,
    private readonly timeoutMs = 2_000,
  ) {}

  /**
   * Writes `events` in one statement on `db`: the pool, or a transaction's client so that the
   * events commit or roll back with the work they record (the vault sweep's shredding).
   */
  async record(events: readonly TAuditEvent[], db: Pick<TPgPool, 'query'> = this.pool): Promise<void> {
    if (events.length === 0) return;
    const rows = events.map(auditValuesOf);
    const columns = COLUMN_TYPES.map((_, index) => rows.map((row) => row[index]));
    await within(db.query(INSERT_EVENTS, columns), this.timeoutMs);
  }

  /** Newest first; for operators and tests. */
  async recent(filter: { tokenId?: string; requestId?: string; action?: TAuditAction; limit?: number } = {}): Promise<TAuditRow[]> {
    const result = await this.pool.query<TAuditRow>(
      `SELECT id::text, occurred_at, subject, action, outcome, error_code, http_status, token_id, property_id::text, mode, request_id,
              host(client_address) AS client_address, destination, forward_method, forward_path, gateway_status, duration_ms,
              job_name, refusal
         FROM audit.vault_events
        WHERE ($1::uuid IS NULL OR token_id = $1::uuid) AND ($2::text IS NULL OR request_id = $2) AND ($4::text IS NULL OR action = $4)
        ORDER BY id DESC
        LIMIT $3`,
      [filter.tokenId ?? null, filter.requestId ?? null, filter.limit ?? 100, filter.action ?? null],
    );
    return result.rows;
  }
}
