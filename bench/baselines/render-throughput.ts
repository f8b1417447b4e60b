// The baseline of the night-audit and small-export benchmarks: the render processes' own
// throughput on the folios those benchmarks export. The worker's RenderPool, as many processes as
// the service runs, warmed as the worker warms them (warm()) and then by one untimed pass over the
// documents (code compiled, texts seen), renders the same documents back to back as fast as it
// takes them, with no database, queue, job or upload in the timed part: the documents are built
// once beforehand, by the worker's own buildFolioDocument.
// What the service delivers below this figure, on the same cores, is what its export machinery
// costs around the render.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TPgPool } from '@folio-vault/shared/connections';
import type { TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import type { TFolioExportRequest } from '@folio-vault/shared/exports/schemas';
import { ROOT } from '@folio-vault/test-kit/processes';
import { buildFolioDocument, loadProperty } from '@folio-vault/worker/exports/build-document';
import type { RenderPool } from '@folio-vault/worker/exports/render-pool';
import { ensureBuilt } from '../support/compiled.js';
import { withLoad } from '../support/machine.js';
import { summary } from '../support/stats.js';

/** The documents of `requests`, built as the worker builds them (read before any timing). */
export async function exportDocuments(pool: TPgPool, propertyId: string, requests: TFolioExportRequest[]): Promise<TFolioDocument[]> {
  const property = await loadProperty(pool, propertyId);
  const now = new Date();
  const documents: TFolioDocument[] = [];
  for (const request of requests) documents.push(await buildFolioDocument(pool, propertyId, 'en', request, now, property));
  return documents;
}

export interface TRenderThroughput {
  /** Render processes in the pool. */
  processes: number;
  /** Whether they ran the compiled worker (dist/, plain node) or its sources (tsx). */
  compiled: boolean;
  /** Documents rendered in each timed run (every document once). */
  documents: number;
  /** Documents a second of every run, and of the median run. */
  runs: number[];
  perSecond: number;
  /** The median run's wall time. */
  seconds: number;
  /** Mean 1-minute load average over the runs. */
  load: number;
}

/**
 * The pool of the worker the service runs: its compiled module when the service runs compiled (its
 * render processes are then plain node), its sources otherwise (render processes under tsx).
 */
async function renderPoolClass(compiled: boolean): Promise<typeof RenderPool> {
  if (!compiled) return (await import('@folio-vault/worker/exports/render-pool')).RenderPool;
  ensureBuilt();
  const module = (await import(pathToFileURL(join(ROOT, 'apps/worker/dist/exports/render-pool.js')).href)) as { RenderPool: typeof RenderPool };
  return module.RenderPool;
}

/** Renders every document once, `inFlight` at a time, each lane into a file of its own; answers the wall time (ms). */
async function renderAll(pool: RenderPool, documents: TFolioDocument[], dir: string, inFlight: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, lane) => {
      const file = join(dir, `lane-${lane}.pdf`);
      while (next < documents.length) await pool.render('PDF', documents[next++]!, file);
    }),
  );
  return performance.now() - started;
}

/**
 * `documents` as PDFs through a RenderPool of `processes`, once to warm up, then `repeat` times; the
 * median run is the figure. Twice as many documents are in flight as there are processes, so a process finds its next
 * document waiting when it answers. The render processes run with NODE_ENV=production, as the
 * service's do (React's production build).
 */
export async function renderThroughput(documents: TFolioDocument[], options: { processes: number; compiled: boolean; repeat?: number }): Promise<TRenderThroughput> {
  const { processes, compiled, repeat = 1 } = options;
  const Pool = await renderPoolClass(compiled);
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  const pool = new Pool(processes);
  const dir = await mkdtemp(join(tmpdir(), 'fv-bench-render-'));
  try {
    await pool.warm();
    await renderAll(pool, documents, dir, processes * 2);
    const measured = await withLoad(async () => {
      const times: number[] = [];
      for (let run = 0; run < repeat; run += 1) times.push(await renderAll(pool, documents, dir, processes * 2));
      return times;
    });
    const runs = measured.value.map((ms) => documents.length / (ms / 1000));
    const median = summary(measured.value).p50;
    return { processes, compiled, documents: documents.length, runs, perSecond: documents.length / (median / 1000), seconds: median / 1000, load: measured.load };
  } finally {
    await pool.close();
    await rm(dir, { recursive: true, force: true });
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}
