// `npm run night-audit -- --property 1 --date 2026-11-21 [--format PDF|XLSX] [--wait]`
// Starts the night-audit batch of a business date (the same code the API runs) and, with --wait,
// shows a progress bar until it ends. Workers (npm start / start:worker) do the exports.

import { fail, openDatabase, parseCommandLine, parsePropertyId } from './cli-support.js';

const COMMAND = 'night-audit';
const USAGE = `
usage: npm run night-audit -- --property ID --date YYYY-MM-DD [--format PDF|XLSX] [--wait]

Starts the night-audit batch of a property's business date: every folio of that date exported by
the workers (npm start or start:worker), and a manifest. Running it again for the same date answers
the batch already there.
  --property ID     the property
  --date DATE       the business date, YYYY-MM-DD
  --format FORMAT   PDF (default) or XLSX
  --wait            show a progress bar until the batch ends; exit 1 when it did not complete
Reads DATABASE_URL, REDIS_URL (REDIS_SENTINELS, REDIS_SENTINEL_NAME) and QUEUE_PREFIX like the service. Exit code 0 = started (or
completed with --wait), 1 = failed, 2 = bad arguments.`;
const { values } = parseCommandLine(COMMAND, USAGE, {
  options: { property: { type: 'string' }, date: { type: 'string' }, format: { type: 'string', default: 'PDF' }, wait: { type: 'boolean', default: false } },
});
// What the work needs loads once the command line is read (cli-support.ts).
const [{ FlowProducer }, { SingleBar }, { DEFAULT_REDIS_URL, ZConfig }, { createRedis }, { nightAuditStatus, startNightAudit }] = await Promise.all([
  import('bullmq'),
  import('cli-progress'),
  import('@folio-vault/shared/config'),
  import('@folio-vault/shared/connections'),
  import('@folio-vault/shared/night-audit/batches'),
]);
const propertyId = parsePropertyId(COMMAND, values.property);
if (!values.date || !/^\d{4}-\d{2}-\d{2}$/.test(values.date) || Number.isNaN(Date.parse(`${values.date}T00:00:00Z`))) {
  fail(COMMAND, `--date must be a business date YYYY-MM-DD (got ${values.date ?? 'nothing'})`);
}
// The same checks as the service's settings: an un-tagged prefix would fail on a Redis Cluster.
const queuePrefix = ZConfig.shape.QUEUE_PREFIX.safeParse(process.env.QUEUE_PREFIX || undefined);
if (!queuePrefix.success) fail(COMMAND, `QUEUE_PREFIX ${queuePrefix.error.issues[0]?.message ?? 'is not valid'}`);
const maxRunning = ZConfig.shape.NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY.safeParse(process.env.NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY || undefined);
if (!maxRunning.success) fail(COMMAND, `NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY ${maxRunning.error.issues[0]?.message ?? 'is not valid'}`);
const sentinels = ZConfig.shape.REDIS_SENTINELS.safeParse(process.env.REDIS_SENTINELS || undefined);
if (!sentinels.success) fail(COMMAND, `REDIS_SENTINELS ${sentinels.error.issues[0]?.message ?? 'is not valid'}`);
const format = values.format?.toUpperCase();
if (format !== 'PDF' && format !== 'XLSX') fail(COMMAND, '--format must be PDF or XLSX');

const pool = await openDatabase();
const connection = createRedis(
  { REDIS_URL: process.env.REDIS_URL || DEFAULT_REDIS_URL, REDIS_SENTINELS: sentinels.data, REDIS_SENTINEL_NAME: process.env.REDIS_SENTINEL_NAME },
  'producer',
);
connection.on('error', () => undefined);
const flows = new FlowProducer({ connection, prefix: queuePrefix.data });
try {
  const started = await startNightAudit(pool, flows, propertyId, values.date, format, { maxRunning: maxRunning.data });
  console.log(`night audit ${values.date} of property ${propertyId}: batch ${started.batchId} ${started.started ? 'started' : `already ${started.status}`}`);
  if (values.wait) {
    let status = await nightAuditStatus(pool, propertyId, started.batchId);
    const bar = new SingleBar({ format: 'exporting |{bar}| {value}/{total} sources | {failed} failed', stream: process.stderr, hideCursor: true });
    bar.start(Math.max(status.total, 1), 0, { failed: 0 });
    while (status.status === 'queued' || status.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 500));
      status = await nightAuditStatus(pool, propertyId, started.batchId);
      bar.setTotal(Math.max(status.total, 1));
      bar.update(status.completed + status.failed, { failed: status.failed });
    }
    bar.stop();
    console.log(`${status.status}: ${status.completed} of ${status.total} exported, ${status.failed} failed; manifest ${status.manifestKey ?? 'none'}`);
    if (status.status !== 'completed') process.exitCode = 1;
  }
} catch (error) {
  console.error(`${COMMAND}: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await flows.close();
  connection.disconnect();
  await pool.end();
}
