// The events webhooks announce (docs/export.md#webhooks) and their bodies:
// `{"type", "timestamp", "data": {...}}`. The event id (sent as webhook-id on every attempt) is
// derived from the event's type and subject, so a status change published twice (a job that ran
// again after committing) is one event, not two: deliveries are unique per (endpoint, event id).

import { v5 as uuidv5 } from 'uuid';
import type { TWebhookEvent } from './schemas.js';

/** The `data` of an event's body: the fields its type carries. */
export interface TWebhookEventData {
  exportId?: string;
  batchId?: string;
  /** invoice.*: the fiscal document (an invoice or a credit note), its kind and number. */
  invoiceId?: string;
  kind?: string;
  number?: string;
  propertyId: string;
  status: string;
  size?: number;
  pages?: number;
  sha256?: string;
  manifestKey?: string;
  total?: number;
  completed?: number;
  failed?: number;
  error?: string;
}

export interface TWebhookEventRecord {
  eventId: string;
  type: TWebhookEvent;
  propertyId: string;
  /** The body sent, as stored in webhook_deliveries.payload. */
  payload: { type: TWebhookEvent; timestamp: string; data: TWebhookEventData };
}

/** A fixed namespace for the event ids (uuid v5 of "type:subject"). */
const EVENT_NAMESPACE = '3f0c6d4e-8a51-4f7e-9b59-2d6f4c1e7a90';

export function webhookEvent(type: TWebhookEvent, subject: string, data: TWebhookEventData, now = new Date()): TWebhookEventRecord {
  return {
    eventId: `msg_${uuidv5(`${type}:${subject}`, EVENT_NAMESPACE)}`,
    type,
    propertyId: data.propertyId,
    payload: { type, timestamp: now.toISOString(), data },
  };
}

/** The subject of a night-audit event: one batch's run (a re-run is a new event). */
export const batchRunSubject = (batchId: string, run: number) => `${batchId}:${run}`;

/**
 * export.completed, without its download link: the delivery processor signs a fresh one at each
 * attempt, as a link signed now would die long before the retries end.
 */
export function exportCompletedEvent(exportId: string, propertyId: string, file: { size: number; pages: number; sha256: string }): TWebhookEventRecord {
  return webhookEvent('export.completed', exportId, { exportId, propertyId, status: 'completed', size: file.size, pages: file.pages, sha256: file.sha256 });
}

export function exportFailedEvent(exportId: string, propertyId: string, error: string): TWebhookEventRecord {
  return webhookEvent('export.failed', exportId, { exportId, propertyId, status: 'failed', error });
}

export function nightAuditCompletedEvent(
  batch: { batchId: string; run: number; propertyId: string },
  outcome: { manifestKey: string; total: number; completed: number; failed: number },
): TWebhookEventRecord {
  const status = outcome.failed > 0 ? 'completed_with_failures' : 'completed';
  return webhookEvent('night_audit.completed', batchRunSubject(batch.batchId, batch.run), { batchId: batch.batchId, propertyId: batch.propertyId, status, ...outcome });
}

/**
 * invoice.issued: a fiscal document's files are stored (docs/fiscal-documents.md#rendering). One
 * event per document, whichever render round issued it.
 */
export function invoiceIssuedEvent(document: { id: string; kind: string; number: string }, propertyId: string): TWebhookEventRecord {
  return webhookEvent('invoice.issued', document.id, { invoiceId: document.id, kind: document.kind, number: document.number, propertyId, status: 'issued' });
}

/** invoice.failed: a render's last attempt failed; the document keeps its number and is rendered again later. One event per document. */
export function invoiceFailedEvent(document: { id: string; kind: string; number: string }, propertyId: string, error: string): TWebhookEventRecord {
  return webhookEvent('invoice.failed', document.id, { invoiceId: document.id, kind: document.kind, number: document.number, propertyId, status: 'failed', error });
}
