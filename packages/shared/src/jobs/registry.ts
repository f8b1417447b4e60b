import type { z } from 'zod';
import { deleteCardTokenJob } from '../vault/delete-card-token-job.js';
import { exportFolioJob } from '../exports/export-folio-job.js';
import { nightAuditManifestJob, nightAuditScheduledJob, nightAuditSourceJob } from '../night-audit/night-audit-job.js';
import { readCardTokenJob } from '../vault/read-card-token-job.js';
import { tokenizeCardJob } from '../vault/tokenize-card-job.js';
import { forwardCardJob } from '../vault/forward/forward-job.js';
import { searchCardTokensJob } from '../vault/search-card-tokens-job.js';
import { cardTokenLabelsJob } from '../vault/card-token-labels-job.js';
import { vaultSweepJob } from '../vault/vault-sweep-job.js';
import { retentionSweepJob } from '../exports/retention-sweep-job.js';
import { webhookDeliveryJob, webhookSweepJob } from '../webhooks/webhook-jobs.js';
import { fiscalRenderSweepJob, renderFiscalDocumentJob } from '../fiscal/render-fiscal-document-job.js';

/**
 * Every job the service runs, by name. `enqueue(name, payload)` and the processors are typed from
 * this map, so a producer cannot send a payload its consumer does not expect.
 */
export const JOBS = {
  [tokenizeCardJob.name]: tokenizeCardJob,
  [readCardTokenJob.name]: readCardTokenJob,
  [deleteCardTokenJob.name]: deleteCardTokenJob,
  [searchCardTokensJob.name]: searchCardTokensJob,
  [cardTokenLabelsJob.name]: cardTokenLabelsJob,
  [vaultSweepJob.name]: vaultSweepJob,
  [forwardCardJob.name]: forwardCardJob,
  [exportFolioJob.name]: exportFolioJob,
  [nightAuditSourceJob.name]: nightAuditSourceJob,
  [nightAuditManifestJob.name]: nightAuditManifestJob,
  [nightAuditScheduledJob.name]: nightAuditScheduledJob,
  [retentionSweepJob.name]: retentionSweepJob,
  [renderFiscalDocumentJob.name]: renderFiscalDocumentJob,
  [fiscalRenderSweepJob.name]: fiscalRenderSweepJob,
  [webhookDeliveryJob.name]: webhookDeliveryJob,
  [webhookSweepJob.name]: webhookSweepJob,
} as const;

export type TJobs = typeof JOBS;
export type TJobName = keyof TJobs;
export type TJobPayload<N extends TJobName> = z.input<TJobs[N]['payload']>;
export type TJobResult<N extends TJobName> = z.output<TJobs[N]['result']>;

type TNamesOnQueue<Q extends string> = { [N in TJobName]: TJobs[N]['queue'] extends Q ? N : never }[TJobName];

export type TVaultJobName = TNamesOnQueue<'vault'>;
export type TVaultJobData = TJobPayload<TVaultJobName>;
export type TVaultJobResult = TJobResult<TVaultJobName>;
export type TForwardJobName = TNamesOnQueue<'vault-forward'>;
export type TExportJobName = TNamesOnQueue<'folio-export'>;
export type TNightAuditJobName = TNamesOnQueue<'night-audit'>;
export type TWebhookJobName = TNamesOnQueue<'webhooks'>;
