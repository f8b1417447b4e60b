import { z } from 'zod';
import { QUEUE_NAMES } from '../queues.js';
import type { TJobDefinition } from '../jobs/definition.js';

/**
 * The vault's housekeeping, every VAULT_SWEEP_SECONDS (a BullMQ job scheduler upserted at worker
 * start; safe on every worker at once): crypto-shreds expired tokens, destroys held CVVs past
 * their time, re-fingerprints records still under the old global fingerprint, re-binds records
 * sealed without their property, and drops forwards' recorded answers past their retention (the
 * keys stay bound). Not signed: the workers schedule it themselves, and it does nothing a caller
 * could choose.
 */
export const vaultSweepJob = {
  name: 'vault-sweep',
  queue: QUEUE_NAMES.vault,
  version: 1,
  housekeeping: true,
  payload: z.object({ version: z.literal(1) }),
  result: z.object({
    shredded: z.number().int(),
    cvvsDestroyed: z.number().int(),
    refingerprinted: z.number().int(),
    rebound: z.number().int(),
    forwardAnswersDropped: z.number().int(),
  }),
  options: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
} as const satisfies TJobDefinition;

/** One stable scheduler id: every worker upserts the same one, so there is one sweep per interval. */
export const VAULT_SWEEP_SCHEDULER_ID = 'vault-sweep';
