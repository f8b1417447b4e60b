// The settings `npm run demo` gives its own API and worker so that it runs the same alone or beside
// a running `npm start` (same Redis, same database), apart from it: its jobs under a queue prefix
// of its own, so the service's worker never takes them (that worker does not know the demo's
// gateway); a property of its own, so the service's property 1 keeps its details and the demo's
// exports announce themselves to no endpoint of another property; a worker that takes no webhook
// deliveries and no night audits, so it never sends what the service's events raised (its webhook
// sweep would find those deliveries in the shared database); and no worker health server, whose
// fixed port the service's worker may hold.

import { WORKER_QUEUE_GROUP_NAMES } from '@folio-vault/shared/queues';

/** The demo's queue prefix (a Redis Cluster hash tag, as QUEUE_PREFIX requires). */
export const DEMO_QUEUE_PREFIX = '{folio-demo}';

/**
 * The demo's property: not 1, the README's and the service's. 9001 draws the same hotel profile as
 * property 1 (demo-ledger.ts picks it by id), and the demo asks for property 1's seed, so its
 * folio is the one the README's pictures show.
 */
export const DEMO_PROPERTY = 9001;
export const DEMO_LEDGER_SEED = 7919;

/** The work the demo's worker takes: all but webhook deliveries and night audits. */
export const DEMO_WORKER_QUEUES = WORKER_QUEUE_GROUP_NAMES.filter((name) => name !== 'webhooks' && name !== 'night-audit');

export interface TDemoSettings {
  /** Merged over the environment before the demo's service starts. */
  env: Record<string, string>;
  /** The demo's first line: how it runs (alone, or beside a service answering on the API port). */
  line: string;
}

/**
 * The demo's overrides, and its first line saying whether a service answered on the API port (PORT,
 * 3000 by default; `serviceAnswers`) and how the demo keeps apart.
 */
export function demoSettings(env: NodeJS.ProcessEnv, serviceAnswers: boolean): TDemoSettings {
  const port = env.PORT || '3000';
  const overridden = env.QUEUE_PREFIX && env.QUEUE_PREFIX !== DEMO_QUEUE_PREFIX ? ` (not QUEUE_PREFIX ${env.QUEUE_PREFIX})` : '';
  const how = serviceAnswers
    ? `running beside the service answering on port ${port}, on its Redis and database, apart from it`
    : `running alone (no service answers on port ${port})`;
  return {
    env: { QUEUE_PREFIX: DEMO_QUEUE_PREFIX, WORKER_HEALTH_PORT: '0', WORKER_QUEUES: DEMO_WORKER_QUEUES.join(',') },
    line: `${how}: its own API and worker, jobs under ${DEMO_QUEUE_PREFIX}${overridden}, property ${DEMO_PROPERTY}, no webhook sent`,
  };
}

/** Whether something answers GET /healthz on 127.0.0.1:`port` within a second. */
export async function serviceAnswersOn(port: string): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1_000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}
