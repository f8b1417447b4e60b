// `npm run night-audit -- --property 1 --date 2026-11-21 [--format PDF|XLSX] [--wait]`
// Starts the night-audit batch of a business date (the same code the API runs) and, with --wait,
// shows a progress bar until it ends. Workers (npm start / start:worker) do the exports.

import { parseArgs } from 'node:util';
import { FlowProducer } from 'bullmq';
import { SingleBar } from 'cli-progress';
import { DEFAULT_REDIS_URL, ZConfig } from '@folio-vault/shared/config';
import { createRedis } from '@folio-vault/shared/connections';
import { nightAuditStatus, startNightAudit } from '@folio-vault/shared/night-audit/batches';
import { fail, openDatabase, parsePropertyId } from './cli-support.js';

const COMMAND = 'night-audit';
const { values } = parseArgs({
  options: { property: { type: 'string' }, date: { type: 'string' }, format: { type: 'string', default: 'PDF' }, wait: { type: 'boolean', default: false } },
});
const propertyId = parsePropertyId(COMMAND, values.property);
if (!values.date || !/^\d{4}-\d{2}-\d{2}$/.test(values.date) || Number.isNaN(Date.parse(`${values.date}T00:00:00Z`))) {
  fail(COMMAND, `--date must be a business date YYYY-MM-DD (got ${values.date ?? 'nothing'})`);
}
// The same checks as the service's settings: an un-tagged prefix would fail on a Redis Cluster.
const queuePrefix = ZConfig.shape.QUEUE_PREFIX.safeParse(process.env.QUEUE_PREFIX || undefined);
if (!queuePrefix.success) fail(COMMAND, `QUEUE_PREFIX ${queuePrefix.error.issues[0]?.message ?? 'is not valid'}`);
const maxRunning = ZConfig.shape.NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY.safeParse(process.env.NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY || undefined);
if (!maxRunning.success) fail(COMMAND, `NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY ${maxRunning.error.issues[0]?.message ?? 'is not valid'}`);
const format = values.format?.toUpperCase();
if (format !== 'PDF' && format !== 'XLSX') fail(COMMAND, '--format must be PDF or XLSX');

const pool = await openDatabase();
const connection = createRedis(process.env.REDIS_URL || DEFAULT_REDIS_URL, 'producer');
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
