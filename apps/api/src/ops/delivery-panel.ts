// The delivery panel of the operator's view (`GET /admin/queues/delivery`, behind the dashboard's
// admin check and cookie; linked from the menu in the dashboard's header and from its sign-in
// page): how webhooks and the retention sweep are doing, over every property —
//   - webhook deliveries by event type: how many are pending, succeeded and failed, and their
//     attempts summed; all of them and those recorded in the last 24 hours;
//   - each pending and each failed delivery (at most UNFINISHED_SHOWN of either: the pending by
//     their next attempt, the failed the latest first): its endpoint, property, attempts, last
//     error and next attempt;
//   - what retention has expired: exports and night-audit batches, all and those due in the last 24 hours.
// The figures are read from PostgreSQL, which the API and every worker share. The Prometheus
// counters (webhook_deliveries_total, webhook_delivery_attempts_total, retention_sweep_deleted_total)
// are incremented in the worker process that sends or sweeps, so the API's own registry holds none
// of them when the workers run apart; they stay on each process's /metrics for alerting. Every
// event type is listed, 0 when it has no delivery. HTML for a browser, JSON for `Accept: application/json`.

import { Router, type Request, type Response } from 'express';
import type { TPgPool } from '@folio-vault/shared/connections';
import { ExportStore, type TExpiredCounts } from '@folio-vault/shared/exports/export-store';
import { expiredBatchCounts } from '@folio-vault/shared/night-audit/batches';
import { WEBHOOK_EVENTS } from '@folio-vault/shared/webhooks/schemas';
import {
  deliveryTallies,
  unfinishedDeliveries,
  type TDeliveryCounts,
  type TDeliveryTally,
  type TUnfinishedDelivery,
} from '@folio-vault/shared/webhooks/store';
import { escapeHtml } from './html.js';

/** The panel's path inside the dashboard's (admin.ts DASHBOARD_PATH). */
export const DELIVERY_PANEL_PATH = '/delivery';

/** Pending and failed deliveries listed one by one, at most this many of each (the counts above say how many there are). */
export const UNFINISHED_SHOWN = 50;

export interface TDeliveryPanel {
  webhookDeliveries: {
    events: TDeliveryTally[];
    total: { all: TDeliveryCounts; last24h: TDeliveryCounts };
    pending: TUnfinishedDelivery[];
    failed: TUnfinishedDelivery[];
  };
  retention: { exports: TExpiredCounts; nightAuditBatches: TExpiredCounts };
}

const NO_DELIVERIES: TDeliveryCounts = { pending: 0, succeeded: 0, failed: 0, attempts: 0 };
const COUNT_COLUMNS = ['pending', 'succeeded', 'failed', 'attempts'] as const;

const sum = (a: TDeliveryCounts, b: TDeliveryCounts): TDeliveryCounts => ({
  pending: a.pending + b.pending, succeeded: a.succeeded + b.succeeded, failed: a.failed + b.failed, attempts: a.attempts + b.attempts,
});

/** The panel's figures: three statements, each one pass over its table, and the unfinished deliveries' two lists. */
export async function readDeliveryPanel(pool: TPgPool): Promise<TDeliveryPanel> {
  const [tallies, unfinished, exports, nightAuditBatches] = await Promise.all([
    deliveryTallies(pool),
    unfinishedDeliveries(pool, UNFINISHED_SHOWN),
    new ExportStore(pool).expiredCounts(),
    expiredBatchCounts(pool),
  ]);
  // Every known event type in its documented order, then any other type the table holds (its column
  // has no CHECK), so the totals count every row.
  const known = new Set<string>(WEBHOOK_EVENTS);
  const events = [
    ...WEBHOOK_EVENTS.map((event) => tallies.find((tally) => tally.event === event) ?? { event, all: NO_DELIVERIES, last24h: NO_DELIVERIES }),
    ...tallies.filter((tally) => !known.has(tally.event)),
  ];
  const total = events.reduce((acc, tally) => ({ all: sum(acc.all, tally.all), last24h: sum(acc.last24h, tally.last24h) }), {
    all: NO_DELIVERIES,
    last24h: NO_DELIVERIES,
  });
  return { webhookDeliveries: { events, total, ...unfinished }, retention: { exports, nightAuditBatches } };
}

const countCells = (counts: TDeliveryCounts) => COUNT_COLUMNS.map((column) => `<td class="n">${counts[column]}</td>`).join('');

/** "answered 500" and the like as recorded; a status code without an error text as "answered <code>"; nothing as "—". */
const lastErrorText = (delivery: TUnfinishedDelivery) => delivery.lastError ?? (delivery.lastStatusCode === null ? '—' : `answered ${delivery.lastStatusCode}`);

function unfinishedRows(status: 'pending' | 'failed', deliveries: TUnfinishedDelivery[]): string {
  return deliveries
    .map((delivery) =>
      `<tr><td>${status}</td><td>${escapeHtml(delivery.event)}</td><td class="url">${escapeHtml(delivery.endpoint.url)}</td>` +
      `<td class="n">${escapeHtml(delivery.propertyId)}</td><td class="n">${delivery.attempts}</td><td>${escapeHtml(lastErrorText(delivery))}</td>` +
      `<td>${delivery.nextAttemptAt ?? '—'}</td></tr>`,
    )
    .join('\n');
}

/** "3 pending, 1 failed", or how many of each are shown when there are more. */
function unfinishedCaption(shown: { pending: number; failed: number }, total: TDeliveryCounts): string {
  const part = (status: 'pending' | 'failed') =>
    shown[status] < total[status] ? `the ${status === 'pending' ? 'first' : 'latest'} ${shown[status]} of ${total[status]} ${status}` : `${total[status]} ${status}`;
  return `${part('pending')}, ${part('failed')}`;
}

export function renderPanel(panel: TDeliveryPanel): string {
  const { events, total, pending, failed } = panel.webhookDeliveries;
  const countHeads = COUNT_COLUMNS.map((column) => `<th>${column}</th>`).join('');
  const deliveryRows = events.map((tally) => `<tr><td>${escapeHtml(tally.event)}</td>${countCells(tally.all)}${countCells(tally.last24h)}</tr>`).join('\n');
  const retentionRows = [
    ['exports', panel.retention.exports],
    ['night-audit batches', panel.retention.nightAuditBatches],
  ] as const;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Folio Vault delivery</title>
<style>body{font-family:sans-serif;margin:2rem}table{border-collapse:collapse;margin-bottom:2rem}th,td{border:1px solid #ccc;padding:.3rem .6rem}.n{text-align:right}.url{word-break:break-all}</style>
</head><body><h1>Delivery</h1><p><a href="../queues">Queues</a></p>
<p>Every property, read from the database. The Prometheus counters are on each process's <code>/metrics</code>.</p>
<section id="webhook-deliveries"><h2>Webhook deliveries</h2>
<table><thead><tr><th rowspan="2">event</th><th colspan="4">all</th><th colspan="4">recorded in the last 24 hours</th></tr>
<tr>${countHeads}${countHeads}</tr></thead><tbody>
${deliveryRows}
</tbody><tfoot><tr><td>total</td>${countCells(total.all)}${countCells(total.last24h)}</tr></tfoot></table></section>
<section id="unfinished-deliveries"><h2>Pending and failed deliveries</h2>
<p>${unfinishedCaption({ pending: pending.length, failed: failed.length }, total.all)}: the pending by their next attempt, the failed the latest first. Times in UTC.</p>
<table><thead><tr><th>status</th><th>event</th><th>endpoint</th><th>property</th><th>attempts</th><th>last error</th><th>next attempt</th></tr></thead><tbody>
${unfinishedRows('pending', pending)}
${unfinishedRows('failed', failed)}
</tbody></table></section>
<section id="retention"><h2>Retention: expired</h2>
<table><thead><tr><th>kind</th><th>expired</th><th>due in the last 24 hours</th></tr></thead><tbody>
${retentionRows.map(([kind, counts]) => `<tr><td>${kind}</td><td class="n">${counts.all}</td><td class="n">${counts.last24h}</td></tr>`).join('\n')}
</tbody></table></section>
</body></html>`;
}

/** The panel's route, mounted inside the dashboard's path (its admin check and cookie apply). */
export function deliveryPanel(pool: TPgPool): Router {
  const router = Router();
  router.get(DELIVERY_PANEL_PATH, async (req: Request, res: Response) => {
    // A database that does not answer fails the panel (the error handler's 503): zeros would lie.
    const panel = await readDeliveryPanel(pool);
    res.set('Cache-Control', 'no-store');
    if (req.accepts(['html', 'json']) === 'json') {
      res.json(panel);
      return;
    }
    res.type('html').send(renderPanel(panel));
  });
  return router;
}
