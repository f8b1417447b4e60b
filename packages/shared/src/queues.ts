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
  export: 'folio-export',
  nightAudit: 'night-audit',
  // Webhook deliveries wait on receivers (10 s each) and retry for a day: apart from everything else.
  webhooks: 'webhooks',
} as const;

export type TQueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];
