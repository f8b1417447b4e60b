/**
 * Night-audit throughput: folios per second for a 1,000-folio batch (typical folios of about 30
 * rows, every one with a transaction on the business date) with 1 and 2 worker processes
 * (`npm run start:worker`, spawned as separate processes), each with EXPORT_CONCURRENCY 1 and 2, as
 * a night-audit fleet runs them (WORKER_QUEUES=night-audit): a worker that also takes on-demand
 * exports keeps one of two or more render processes for them (render-pool.ts, frontDesk), which
 * the tenants bench measures; here every render process is the batch's.
 * The batch starts as the API starts it (startNightAudit with a FlowProducer) and the time runs
 * until its status says it ended (the manifest written). Each configuration first runs a small
 * warm-up batch, so the times are a running worker's, not its start, then the measured batch
 * BENCH_NIGHT_AUDIT_REPEAT times (default 3; the median is reported). Workers run with
 * NODE_ENV=production (React's production build, as deployed); their logs go to a pipe. "load" is
 * the mean 1-minute load average during the batch: above the core count, something else was
 * running on the machine too and the figures are low. "CPU ms / folio" is the CPU time the
 * workers and their render processes (those recycled included) used for the batch, per folio: it
 * moves far less than folios/s when others share the machine, so compare it too. "mean render /
 * job" is a source's render (its wait in the render pool included) and a job's whole time (a job
 * exports a chunk of sources: packages/shared/src/night-audit/night-audit-job.ts).
 *
 * Baseline, in the same run, before each configuration's workers start (so on the same cores, with
 * nothing else of the service running): the render processes alone
 * (bench/baselines/render-throughput.ts) — a RenderPool of as many processes as the configuration
 * runs in all (workers × EXPORT_CONCURRENCY), compiled or from source as the workers are, rendering
 * the batch's documents (built beforehand by the worker's buildFolioDocument from the same ledger)
 * back to back, once to warm up and then BENCH_NIGHT_AUDIT_REPEAT times, the median run reported.
 * The service's folios/s over it is the share of the render processes' own throughput the night
 * audit delivers.
 *
 *   npx tsx bench/scenarios/night-audit.ts
 *   BENCH_NIGHT_AUDIT_FOLIOS=300 BENCH_NIGHT_AUDIT_CONFIGS=1x1,2x1 npx tsx bench/scenarios/night-audit.ts
 *
 * BENCH_CPU_PROF_DIR=<dir> profiles every worker process and its render processes (node --cpu-prof):
 * one .cpuprofile a process, written as it exits; summarise them with
 * `npx tsx bench/support/profile-summary.ts <dir> --units <folios exported, warm-up included>`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import { resolve } from 'node:path';
import { FlowProducer } from 'bullmq';
import { createPgPool, createRedis } from '@folio-vault/shared/connections';
import { importRecords, recordsOfDocument } from '@folio-vault/shared/ledger/batch-import';
import { ZFolioExportRequest } from '@folio-vault/shared/exports/schemas';
import { nightAuditStatus, startNightAudit, type TBatchStatusBody } from '@folio-vault/shared/night-audit/batches';
import { auditExportRequest, selectAuditSources } from '@folio-vault/shared/night-audit/selection';
import { spawnNode, spawnTs, waitForOutput, type TSpawned } from '@folio-vault/test-kit/processes';
import { exportDocuments, renderThroughput, type TRenderThroughput } from '../baselines/render-throughput.js';
import { COMPILED_ENTRY, ensureBuilt, FROM_SOURCE } from '../support/compiled.js';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine } from '../support/machine.js';
import { typicalLedger } from '@folio-vault/test-kit/typical-ledger';

const FOLIOS = Number(process.env.BENCH_NIGHT_AUDIT_FOLIOS ?? 1_000);
const CONFIGS = (process.env.BENCH_NIGHT_AUDIT_CONFIGS ?? '1x1,2x1,1x2,2x2').split(',').map((text) => {
  const [workers, concurrency] = text.split('x').map(Number);
  return { workers: workers!, concurrency: concurrency! };
});
const BUSINESS_DATE = '2026-11-21';
const WARM_UP_FOLIOS = 8;
const REPEAT = Number(process.env.BENCH_NIGHT_AUDIT_REPEAT ?? 3);
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF_DIR ? resolve(process.env.BENCH_CPU_PROF_DIR) : undefined;
/**
 * A worker process, compiled as production runs it (`node apps/worker/dist/main.js`,
 * bench/support/compiled.ts), or from source with BENCH_FROM_SOURCE=1 (`npm run start:worker`). With node
 * flags of its own (profiling, or BENCH_WORKER_NODE_ARGS, e.g. an --import that counts queries)
 * from source, node runs it itself with tsx's loader (node refuses --cpu-prof in NODE_OPTIONS):
 * spawnTs's direct form is `node --import tsx <script> <args>`, so the flags take the script's
 * place and the script follows them. Its render processes take the --cpu-prof flags from the
 * worker's (render-pool.ts).
 */
function spawnWorker(env: Record<string, string>): TSpawned {
  const flags = [...(CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []), ...(process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
  if (!FROM_SOURCE) {
    ensureBuilt();
    return spawnNode([...flags, COMPILED_ENTRY.worker], env, { group: true });
  }
  if (flags.length === 0) return spawnTs('apps/worker/src/main.ts', [], env, { group: true });
  return spawnTs(flags[0]!, [...flags.slice(1), 'apps/worker/src/main.ts'], env, { group: true, direct: true });
}

/** Mean `ms` of the workers' log lines with this message, for the jobs of one batch run. */
function meanMs(workers: TSpawned[], msg: string, jobPrefix: string): number {
  const values = workers
    .flatMap((worker) => worker.output().split('\n'))
    .filter((line) => line.startsWith('{') && line.includes(`"msg":"${msg}"`) && line.includes(`"jobId":"${jobPrefix}`))
    .map((line) => Number((JSON.parse(line) as { ms?: number }).ms));
  return values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);
}

/** The processes under `roots` (tsx, the workers, their render processes), with their resident memory (kB). */
function processTree(roots: number[]): Array<{ pid: number; rssKb: number }> {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid=,rss='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number, number]);
  const inTree = new Set(roots);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of table) {
      if (inTree.has(ppid) && !inTree.has(pid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  return table.filter(([pid]) => inTree.has(pid)).map(([pid, , rssKb]) => ({ pid, rssKb }));
}

/** Resident memory (MB) of the processes under `roots`. */
function treeRssMb(roots: number[]): number {
  return processTree(roots).reduce((sum, { rssKb }) => sum + rssKb, 0) / 1024;
}

/**
 * CPU time (ms) the processes under `roots` have used, those that ended included (a process's
 * cutime/cstime count its children it has waited for, e.g. recycled render processes). Unlike
 * folios/s, it hardly moves when other work shares the machine.
 */
function treeCpuMs(roots: number[]): number {
  let ticks = 0;
  for (const { pid } of processTree(roots)) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // utime, stime, cutime, cstime: fields 14-17 of stat, 12-15 after "pid (comm) ".
      ticks += [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    } catch {
      // The process ended in between.
    }
  }
  return (ticks * 1000) / 100;
}

const { config, ownerUrl, services, rawEnv } = await benchEnvironment();
const pool = createPgPool(ownerUrl, { max: 4 });
const connection = createRedis(config.REDIS_URL, 'producer');
const flows = new FlowProducer({ connection, prefix: config.QUEUE_PREFIX });

const ledger = typicalLedger(1, FOLIOS);
const importStarted = performance.now();
await importRecords(pool, '1', recordsOfDocument(ledger));
const importSeconds = (performance.now() - importStarted) / 1000;
await importRecords(pool, '2', recordsOfDocument(typicalLedger(2, WARM_UP_FOLIOS)));
// The documents the batch exports, for the render baseline: the sources it selects, each as the worker builds it.
const auditSources = await selectAuditSources(pool, '1', BUSINESS_DATE, String(ledger.property.timezone));
const documents = await exportDocuments(pool, '1', auditSources.map((source) => ZFolioExportRequest.parse(auditExportRequest(source, BUSINESS_DATE, 'PDF'))));
/** The render baseline per number of render processes, measured once for the configurations that share it. */
const renderAlone = new Map<number, TRenderThroughput>();

async function runBatch(propertyId: string, onTick: () => void = () => undefined): Promise<{ status: TBatchStatusBody; seconds: number; jobPrefix: string }> {
  const t = performance.now();
  const { batchId } = await startNightAudit(pool, flows, propertyId, BUSINESS_DATE, 'PDF');
  const { rows } = await pool.query<{ run: number }>('SELECT run FROM night_audit_batches WHERE id = $1', [batchId]);
  const jobPrefix = `na-${batchId}-${rows[0]!.run}-`;
  for (;;) {
    const status = await nightAuditStatus(pool, propertyId, batchId);
    if (status.status !== 'queued' && status.status !== 'running') return { status, seconds: (performance.now() - t) / 1000, jobPrefix };
    onTick();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}; ${Object.entries(services.sources).map(([name, source]) => `${name}: ${source}`).join(', ')}`);
console.log(`ledger: ${ledger.folios.length} folios, ${ledger.transactions.length} rows (${(ledger.transactions.length / ledger.folios.length).toFixed(1)} a folio), imported in ${importSeconds.toFixed(2)} s`);
console.log('workers × EXPORT_CONCURRENCY   wall time   folios/s   peak RSS (workers + renderers)   mean render / job   load   CPU ms / folio   render alone, folios/s');

const failures: string[] = [];
const results: Array<{
  workers: number; concurrency: number; folios: number; seconds: number; foliosPerSecond: number; runs: number[]; peakMb: number; renderMs: number; jobMs: number; load: number; cpuMsPerFolio: number;
  /** The render processes alone on the same documents, as many as this configuration runs. */
  renderAlone: TRenderThroughput;
}> = [];
for (const { workers: count, concurrency } of CONFIGS) {
  const processes = count * concurrency;
  if (!renderAlone.has(processes)) {
    const alone = await renderThroughput(documents, { processes, compiled: !FROM_SOURCE, repeat: REPEAT });
    renderAlone.set(processes, alone);
    console.log(`  render processes alone, ${processes} of them: ${alone.runs.map((rate) => rate.toFixed(1)).join(', ')} folios/s (median ${alone.perSecond.toFixed(1)}, load ${alone.load.toFixed(1)})`);
  }
  const env = { ...rawEnv(), NODE_ENV: 'production', LOG_LEVEL: 'info', EXPORT_CONCURRENCY: String(concurrency), WORKER_QUEUES: 'night-audit' };
  const workers: TSpawned[] = Array.from({ length: count }, () => spawnWorker(env));
  try {
    await Promise.all(workers.map((worker) => waitForOutput(worker, /worker ready/, 60_000)));
    const roots = workers.map((worker) => worker.child.pid!);
    // Warm-up: render processes started, code loaded, fonts read.
    await runBatch('2');
    // The measured batch runs REPEAT times (a re-run rewrites the same files) and the median run
    // is reported: on a shared machine one run's figure moves a good deal.
    let peak = 0;
    let sampled = 0;
    const loads: number[] = [];
    const runs: Array<Awaited<ReturnType<typeof runBatch>> & { cpuMs: number; load: number }> = [];
    for (let repeat = 0; repeat < REPEAT; repeat += 1) {
      const cpuBefore = treeCpuMs(roots);
      const runLoads: number[] = [];
      const run = await runBatch('1', () => {
        if (sampled++ % 5 === 0) {
          peak = Math.max(peak, treeRssMb(roots));
          runLoads.push(os.loadavg()[0]!);
        }
      });
      loads.push(...runLoads);
      runs.push({ ...run, cpuMs: treeCpuMs(roots) - cpuBefore, load: runLoads.reduce((a, b) => a + b, 0) / Math.max(runLoads.length, 1) });
    }
    const rates = runs.map((run) => run.status.completed / run.seconds);
    const cpuPerFolio = runs.map((run) => run.cpuMs / Math.max(run.status.completed, 1));
    const { status, seconds, jobPrefix } = [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)]!;
    const perRun = runs.map((run, i) => `${rates[i]!.toFixed(1)} (load ${run.load.toFixed(1)}, CPU ${cpuPerFolio[i]!.toFixed(1)} ms/folio)`);
    console.log(`  ${count} × ${concurrency} runs: ${perRun.join(', ')} folios/s`);
    const label = `${count} × ${concurrency}`;
    for (const run of runs) {
      if (run.status.status !== 'completed' || run.status.completed !== FOLIOS) failures.push(`${label}: ${JSON.stringify(run.status)}`);
    }
    const renderMs = meanMs(workers, 'document rendered', jobPrefix);
    const jobMs = meanMs(workers, 'job done', jobPrefix);
    const timing = `${renderMs.toFixed(0)} / ${jobMs.toFixed(0)} ms`;
    const load = loads.reduce((a, b) => a + b, 0) / Math.max(loads.length, 1);
    const cpuMs = [...cpuPerFolio].sort((a, b) => a - b)[Math.floor(cpuPerFolio.length / 2)]!;
    const alone = renderAlone.get(processes)!;
    results.push({ workers: count, concurrency, folios: status.completed, seconds, foliosPerSecond: status.completed / seconds, runs: rates, peakMb: peak, renderMs, jobMs, load, cpuMsPerFolio: cpuMs, renderAlone: alone });
    const share = `${alone.perSecond.toFixed(1)} (the service ${(status.completed / seconds / alone.perSecond).toFixed(2)}× of it)`;
    console.log(
      `${label.padEnd(28)} ${`${seconds.toFixed(1)} s`.padStart(10)} ${(status.completed / seconds).toFixed(1).padStart(10)}   ${`${peak.toFixed(0)} MB`.padStart(30)}   ${timing.padStart(17)}   ${load.toFixed(1).padStart(4)}   ${cpuMs.toFixed(1).padStart(14)}   ${share}`,
    );
  } finally {
    // Gracefully (tsx relays SIGTERM to the worker, which finishes and closes its render processes).
    for (const worker of workers) worker.child.kill('SIGTERM');
    await Promise.all(workers.map((worker) => worker.exited));
  }
}

await flows.close();
connection.disconnect();
await pool.end();
await rm(config.STORAGE_DIR, { recursive: true, force: true });
await services.stop();
writeResult({ benchmark: 'night-audit', machine: machine(), services: services.sources, folios: FOLIOS, rowsPerFolio: ledger.transactions.length / ledger.folios.length, configs: results, failures });
if (failures.length) {
  console.error(`night-audit bench: batches that did not complete:\n${failures.join('\n')}`);
  process.exitCode = 1;
}
