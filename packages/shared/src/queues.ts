/**
 * Queue names are permanent once deployed: jobs already in Redis are found by them. The prefix
 * (QUEUE_PREFIX, default "{folio}") is a Redis Cluster hash tag so every key of a queue lands in
 * one slot and BullMQ's multi-key scripts work on a cluster.
 */
export const QUEUE_NAMES = {
  vault: 'vault',
  // Forwards wait on payment gateways (up to a destination's time-out): a queue of their own, so a
  // slow gateway never holds the slots tokenize needs.
  forward: 'vault-forward',
  // On-demand exports (and the retention sweep): no batch piece ever takes one of their job slots.
  export: 'folio-export',
  // Manifests and scheduled starts of night audits.
  nightAudit: 'night-audit',
  // A night audit's sources (its flow's children), apart from on-demand exports so that a batch of
  // thousands never stands in front of a front desk's export (docs/night-audit.md#the-front-desk-first).
  nightAuditExport: 'night-audit-export',
  // Webhook deliveries wait on receivers (10 s each) and retry for a day: apart from everything else.
  webhooks: 'webhooks',
} as const;

export type TQueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

/**
 * The kinds of work a worker process can be given (WORKER_QUEUES; docs/operations.md#worker-queues),
 * each with the queues it takes jobs from: `night-audit` is the whole of a night audit, its sources
 * and its manifest, so a night-audit-only fleet needs that one name.
 */
export const WORKER_QUEUE_GROUPS = {
  vault: [QUEUE_NAMES.vault],
  'vault-forward': [QUEUE_NAMES.forward],
  'folio-export': [QUEUE_NAMES.export],
  'night-audit': [QUEUE_NAMES.nightAudit, QUEUE_NAMES.nightAuditExport],
  webhooks: [QUEUE_NAMES.webhooks],
} as const satisfies Record<string, readonly TQueueName[]>;

export type TWorkerQueueGroup = keyof typeof WORKER_QUEUE_GROUPS;
export const WORKER_QUEUE_GROUP_NAMES = Object.keys(WORKER_QUEUE_GROUPS) as TWorkerQueueGroup[];

/** The queues a worker process with these kinds of work (WORKER_QUEUES) takes jobs from. */
export function queuesOf(groups: readonly TWorkerQueueGroup[]): ReadonlySet<TQueueName> {
  return new Set(groups.flatMap((group) => WORKER_QUEUE_GROUPS[group]));
}
