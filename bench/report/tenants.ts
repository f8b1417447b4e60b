import type { TBatchBeside, TTenantsResult } from '../scenarios/tenants.js';
import { header, int, mark, table, type TRun } from './format.js';

/** What one property's work may do to another's requests (bench/scenarios/tenants.ts). */
export const TENANT_GOALS = {
  /** Another property's reads while one property starts 40 night audits or imports 60,000 rows. */
  readsMaxMs: 250,
  /** An on-demand export during a night audit against the idle service's. */
  exportP50OfIdle: 2,
  exportP90OfIdle: 3,
  /** A request waiting on a lock answers within its budget; /readyz answers meanwhile. */
  lockedRequestMaxMs: 10_000,
  readyMaxMs: 1_000,
  /** Another property's one-row reads while one property keeps 40 heavy listings in flight. */
  heavyListingReadsP99Ms: 250,
} as const;

type TSummary = { p50: number; p90: number; p99?: number; max: number };
const figures = (s: TSummary) => `${s.p50.toFixed(0)} / ${s.p90.toFixed(0)} / ${s.max.toFixed(0)} ms`;
const withP99 = (s: TSummary) => `${s.p50.toFixed(0)} / ${s.p90.toFixed(0)} / ${(s.p99 ?? Number.NaN).toFixed(0)} / ${s.max.toFixed(0)} ms`;
const statuses = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([status, n]) => `${n} × ${status}`)
    .join(', ');
const serverErrors = (counts: Record<string, number>) => Object.entries(counts).reduce((n, [status, k]) => n + (Number(status) >= 500 || status === '0' ? k : 0), 0);

export interface TTenantGoal { row: string; goal: string; measured: string; idle: string; met: boolean }

/** Step 3 on one shape: another property's on-demand exports beside a night audit, against that shape's idle ones. */
function batchGoal(batch: TBatchBeside): TTenantGoal {
  const g = TENANT_GOALS;
  // Runs stored before the two-worker shape existed name no worker count: they had one.
  const workers = batch.workers ?? 1;
  return {
    row: `one property's ${int(batch.folios)}-folio night audit on the same ${workers === 1 ? 'worker' : `${workers} worker processes`}`,
    goal: `another's on-demand export p50 ≤ ${g.exportP50OfIdle}× idle, p90 ≤ ${g.exportP90OfIdle}× idle, none left queued`,
    measured: `${figures(batch.during)} (${batch.exportsDuring} exports) against idle ${figures(batch.idle)}: p50 ${(batch.during.p50 / batch.idle.p50).toFixed(2)}×, p90 ${(batch.during.p90 / batch.idle.p90).toFixed(2)}×; left queued ${batch.leftQueued}`,
    idle: `exports ${figures(batch.idle)}`,
    met: batch.during.p50 <= g.exportP50OfIdle * batch.idle.p50 && batch.during.p90 <= g.exportP90OfIdle * batch.idle.p90 && batch.leftQueued === 0 && batch.exportsDuring > 0,
  };
}

/** The goals of the many-hotels benchmark, judged on one run: those of the steps it ran. */
export function tenantGoals(r: TTenantsResult): TTenantGoal[] {
  const g = TENANT_GOALS;
  const goals: TTenantGoal[] = [];
  const idleReads = r.idleReads ? `reads ${figures(r.idleReads.ms)}` : '';
  if (r.starts) {
    const startFailures = Object.entries(r.starts.statuses).filter(([status]) => status !== '202' && status !== '429');
    goals.push({
      row: 'one property starts 40 night audits at once',
      goal: `another's reads all answered, max < ${g.readsMaxMs} ms; the 40 get 202 or 429`,
      measured: `reads ${figures(r.starts.reads.ms)} (${r.starts.reads.failed} not 200); the 40: ${statuses(r.starts.statuses)}`,
      idle: idleReads,
      met: r.starts.reads.failed === 0 && r.starts.reads.ms.max < g.readsMaxMs && startFailures.length === 0,
    });
  }
  if (r.import) {
    goals.push({
      row: `one property imports ${int(r.import.rows)} rows in one request`,
      goal: `another's reads max < ${g.readsMaxMs} ms`,
      measured: `reads ${figures(r.import.reads.ms)} (${r.import.reads.failed} not 200); the import ${r.import.status} in ${(r.import.ms / 1000).toFixed(1)} s`,
      idle: idleReads,
      met: r.import.reads.failed === 0 && r.import.reads.ms.max < g.readsMaxMs && r.import.status === 200,
    });
  }
  for (const batch of [r.batch, r.batchTwoWorkers]) if (batch) goals.push(batchGoal(batch));
  if (r.lock) {
    const lockedStatuses = Object.keys(r.lock.lockedStatus.statuses);
    goals.push({
      row: 'another session holds a lock on a table a request needs',
      goal: `the request answers 503 with Retry-After within ${g.lockedRequestMaxMs / 1000} s; /readyz within ${g.readyMaxMs / 1000} s`,
      measured: `request ${figures(r.lock.lockedStatus.ms)} (${statuses(r.lock.lockedStatus.statuses)}, Retry-After ${r.lock.lockedStatus.retryAfter?.join(', ') || 'none'}); /readyz ${figures(r.lock.lockedReady.ms)} (${statuses(r.lock.lockedReady.statuses)})`,
      idle: `request ${figures(r.lock.idleStatus.ms)}, /readyz ${figures(r.lock.idleReady.ms)}`,
      met:
        r.lock.lockedStatus.ms.max <= g.lockedRequestMaxMs &&
        lockedStatuses.every((status) => status === '503' || status === '200') &&
        (!lockedStatuses.includes('503') || (r.lock.lockedStatus.retryAfter?.length ?? 0) > 0) &&
        r.lock.lockedReady.ms.max <= g.readyMaxMs,
    });
  }
  // Absent from runs stored before the step existed.
  if (!r.listings) return goals;
  const { withShare, withoutShare } = r.listings;
  goals.push({
    row: `one property keeps ${r.listings.inFlight} heavy listings in flight (${int(r.listings.rows)} rows, searchQuery, sort, includeTotal)`,
    goal: `another's one-row reads p99 < ${g.heavyListingReadsP99Ms} ms, no 5xx`,
    measured:
      `with the share (${withShare.share}): reads ${withP99(withShare.reads.ms)} (${statuses(withShare.reads.statuses)}); without (${withoutShare.share}): ` +
      `${withP99(withoutShare.reads.ms)} (${statuses(withoutShare.reads.statuses)}); the heavy listings ${figures(withShare.heavy.ms)} (${statuses(withShare.heavy.statuses)}) with, ` +
      `${figures(withoutShare.heavy.ms)} (${statuses(withoutShare.heavy.statuses)}) without`,
    idle: `one-row reads ${withP99(withShare.idle.ms)} (with), ${withP99(withoutShare.idle.ms)} (without)`,
    met: (withShare.reads.ms.p99 ?? Number.POSITIVE_INFINITY) < g.heavyListingReadsP99Ms && serverErrors(withShare.reads.statuses) === 0 && withShare.reads.failed === 0,
  });
  return goals;
}

/** docs/benchmarks.md's "Many hotels on one service" section. */
export function tenantsSection(run: TRun): string[] {
  const r = run.result as TTenantsResult | undefined;
  const lines = ['## Many hotels on one service', '', ...header('tenants', run)];
  if (!r) return lines;
  lines.push(
    'One worker and one API process (compiled, NODE_ENV=production, default settings: the per-property limits are part of what is measured); for the night audit\'s second row, a second worker process started beside the first, as a default deployment of two workers on two cores runs, with that shape\'s own idle exports as its baseline. Property 2 reads one folio\'s transactions every 25 ms on an open loop (a read goes out on time whether or not earlier ones answered) and exports its folios one after another; the same requests on the idle service, in the same run, are the baseline. Figures are p50 / p90 / max (p50 / p90 / p99 / max for the heavy listings). The heavy listings run on that API and on a second API process started with `DB_SHARE_PER_PROPERTY=1` (no share), each after its own idle baseline, in the same run.',
    '',
    table(
      ['while one property…', "another property's requests", 'idle baseline', 'goal', ''],
      tenantGoals(r).map((goal) => [goal.row, goal.measured, goal.idle, goal.goal, mark(goal.met)]),
    ),
    '',
    ...(r.starts && r.batch && r.import
      ? [`The 40 starts took ${(r.starts.spanMs / 1000).toFixed(1)} s from the first request to the last answer. The night audit ran ${r.batch.seconds.toFixed(0)} s (${r.batch.status})${r.batchTwoWorkers ? `, ${r.batchTwoWorkers.seconds.toFixed(0)} s on two worker processes (${r.batchTwoWorkers.status})` : ''}. The import was ${r.import.megabytes.toFixed(1)} MB of JSON.`]
      : r.listings
        ? ['Only the heavy listings ran (`BENCH_TENANTS_ONLY=listings`).']
        : ['Only the night audit beside on-demand exports ran (`BENCH_TENANTS_ONLY=batch`).']),
    ...(r.failures.length ? ['', `Failures: ${r.failures.slice(0, 10).join('; ')}`] : []),
    '',
  );
  return lines;
}
