// The settings `npm run demo` gives its own API and worker so that it runs the same alone or beside
// a running `npm start` (same Redis, same database): its jobs under a queue prefix of its own, so
// the service's worker never takes them (that worker does not know the demo's gateway), and no
// worker health server, whose fixed port the service's worker may hold.

/** The demo's queue prefix (a Redis Cluster hash tag, as QUEUE_PREFIX requires). */
export const DEMO_QUEUE_PREFIX = '{folio-demo}';

export interface TDemoSettings {
  /** Merged over the environment before the demo's service starts. */
  env: Record<string, string>;
  /** The one line the demo prints about it. */
  line: string;
}

/**
 * The demo's overrides, and its line saying whether a service answered on the API port (PORT, 3000
 * by default; `serviceAnswers`) and that the demo keeps apart from it.
 */
export function demoSettings(env: NodeJS.ProcessEnv, serviceAnswers: boolean): TDemoSettings {
  const port = env.PORT || '3000';
  const overridden = env.QUEUE_PREFIX && env.QUEUE_PREFIX !== DEMO_QUEUE_PREFIX ? ` (not QUEUE_PREFIX ${env.QUEUE_PREFIX})` : '';
  const beside = serviceAnswers
    ? `beside the service answering on port ${port}, which neither sees nor takes the demo's jobs`
    : `alone (no service answers on port ${port})`;
  return {
    env: { QUEUE_PREFIX: DEMO_QUEUE_PREFIX, WORKER_HEALTH_PORT: '0' },
    line: `its own API and worker, jobs under ${DEMO_QUEUE_PREFIX}${overridden}: running ${beside}`,
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
