// A small pool of render processes (docs/export.md#flow: render off the event loop; React-PDF
// memory grows in long-lived processes, so recycle). A PDF is planned here (paginate: cheap, pure),
// cut into chunks of `pagesPerChunk` pages that the processes render in parallel, and joined by one
// of them: a large folio uses every process and no process ever holds more than a chunk's pages.
// Each process does one piece at a time; pieces of concurrent documents are handed out in turn, so
// a small export is not queued behind all the chunks of a large one. On-demand documents go before
// every waiting piece of a night-audit batch (`priority`): a front desk's export waits at most for
// the pieces already rendering, however many a batch has queued. With `frontDesk` (a worker that
// takes on-demand exports) and two processes or more, the first process is the front desk's: it
// never takes a batch piece, so an on-demand piece always finds it free of batch work, and the
// others run at a lower CPU priority (BATCH_NICE steps), so a batch on every core of the machine — on
// several worker processes — yields the CPU to the front desk's piece. A process is replaced after
// `maxRenders` pieces, after a failed piece, or once it holds more than `maxRssBytes` even after a
// full garbage collection (render-child.ts, settleMemory). With `metrics`, every document counts
// its render time (export_render_seconds, from planning to the joined file, waits included) and
// rows (export_rows_rendered_total) by format, and every replacement its reason
// (export_render_process_replacements_total). Every export and night-audit file passes here, and
// every invoice's Factur-X file (renderInvoice: one piece, fiscal/facturx-pdf.tsx). With tracing on,
// a document is a span (its pages and rows as attributes once known), and each piece hands that
// span's context to the render process that draws it, which adds its own span under it
// (render-child.ts): a process of its own has no other way to learn it.

import { fork, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { getPriority, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { TFolioDocument, TRenderedFile } from '@folio-vault/shared/exports/folio-document';
import type { TFiscalDocument } from '@folio-vault/shared/fiscal/document-model';
import type { TMetrics } from '@folio-vault/shared/metrics';
import { activeTraceparent, inSpan } from '@folio-vault/shared/tracing/spans';
import { sliceDocument } from './document-slices.js';
import { chunkPlan, planFolioPdf } from './pdf/plan.js';
import { SHAPING_CACHE_OFF_FLAG } from './pdf/shaping-cache.js';
// Types only from render-child.ts: loading it would start a render process's work in this one.
import type { TAttachmentMessage, TReadyMessage, TRenderReply, TRenderRequest, TRenderWork, TSliceMessage } from './render-child.js';
import { RSS_LIMIT_FLAG, WARM_UP_FLAG, warmUpDocument } from './render-warm-up.js';

// Compiled (dist/, plain node) the child is JavaScript; from source (tsx, vitest) it is TypeScript.
const FROM_SOURCE = new URL(import.meta.url).pathname.endsWith('.ts');
const CHILD = fileURLToPath(new URL(FROM_SOURCE ? './render-child.ts' : './render-child.js', import.meta.url));

/** At most about 2,000 table rows a chunk: its fixed cost (a PDF document, its fonts) stays small. */
export const PAGES_PER_CHUNK = 40;
/** Up to this many pages a PDF is one piece: splitting would cost more (a join) than it saves. */
export const PAGES_RENDERED_WHOLE = 8;
/** A render process told to stop (its channel closed) gets this long to exit, then SIGKILL. */
export const RENDER_EXIT_MS = 2_000;
/** Defaults: a process is replaced after this many pieces, or past this RSS after a collection. */
export const MAX_RENDERS = 1_000;
export const MAX_RSS_BYTES = 320_000_000;
/**
 * How far above the worker's own nice value the render processes that take batch pieces run
 * (os.setPriority, at most 19): the kernel gives a process about nine times the CPU of one ten
 * nice steps below it when both want it, and as much as it likes when nothing else does. Raising a
 * process's nice value needs no privilege.
 */
export const BATCH_NICE = 10;

/**
 * Whose document it is: `on-demand` (an export a person waits for) is served before any `batch`
 * piece (a night audit's), each class's documents in turn.
 */
export type TRenderPriority = 'on-demand' | 'batch';

/** Why a render process was replaced (the label of export_render_process_replacements_total). */
export type TReplacementReason = 'memory' | 'pieces' | 'failure';

interface TSlot {
  child?: ChildProcess;
  renders: number;
  busy: boolean;
  /** Whether it takes batch pieces (the front desk's process does not). */
  batch: boolean;
  /** Whether its processes run at BATCH_NICE. */
  nice: boolean;
}

/** A document's pieces: its id in the queues, and its class. */
interface TGroup {
  id: number;
  priority: TRenderPriority;
}

interface TTask {
  work: TRenderWork;
  /** A Factur-X piece's CII, sent to its render process after the piece (renderInvoice). */
  attachment?: Promise<string>;
  /** The document's span, as a W3C traceparent, when it is recorded. */
  trace: string | undefined;
  resolve: (file: TRenderedFile | undefined) => void;
  reject: (error: Error) => void;
}

export interface TRenderPoolOptions {
  maxRenders?: number;
  maxRssBytes?: number;
  timeoutMs?: number;
  pagesPerChunk?: number;
  /** Rows per slice of an XLSX's document on its way to a render process (document-slices.ts; ROWS_PER_SLICE when absent). */
  rowsPerSlice?: number;
  metrics?: TMetrics;
  /** Keeps the first process for on-demand pieces and lowers the others' priority (a worker taking on-demand exports). */
  frontDesk?: boolean;
  /** The performance measure `shaping-cache` (pdf/shaping-cache.ts) in the render processes; on unless false. */
  shapingCache?: boolean;
}

/** Sends `message` and resolves once it has left for the pipe: true, or false when the process's channel is gone (a message that cannot be serialized throws). */
function sent(child: ChildProcess, message: TRenderRequest | TSliceMessage): Promise<boolean> {
  if (!child.connected) return Promise.resolve(false);
  return new Promise((resolve) => child.send(message, (error) => resolve(!error)));
}

export class RenderPool {
  private readonly slots: TSlot[];
  /** Waiting pieces per document, by priority (the first class served first), each served round robin. */
  private readonly queues: Record<TRenderPriority, Map<number, TTask[]>> = { 'on-demand': new Map(), batch: new Map() };
  private nextDocument = 1;
  private nextId = 1;
  private closed = false;
  private warmed = false;
  /** Settles when a render process has warmed up (its ready message), or has ended before. */
  private readonly readiness = new WeakMap<ChildProcess, Promise<void>>();
  private readonly ready = new WeakSet<ChildProcess>();

  constructor(
    size: number,
    private readonly options: TRenderPoolOptions = {},
  ) {
    const frontDesk = (options.frontDesk ?? false) && size >= 2;
    this.slots = Array.from({ length: size }, (_, index) => ({ renders: 0, busy: false, batch: !frontDesk || index > 0, nice: frontDesk && index > 0 }));
  }

  async render(format: 'PDF' | 'XLSX', document: TFolioDocument, outputPath: string, priority: TRenderPriority = 'on-demand'): Promise<TRenderedFile> {
    if (this.closed) throw new Error('render pool is closed');
    return inSpan(`render ${format}`, { 'folio.export.format': format, 'folio.render.priority': priority }, async (span) => {
      const started = performance.now();
      const group = { id: this.nextDocument++, priority };
      const file =
        format === 'XLSX' ? (await this.submit(group, { kind: 'xlsx', document, outputPath }))! : await this.renderPdf(group, document, outputPath);
      span.setAttributes({ 'folio.render.pages': file.pages, 'folio.render.rows': file.rows });
      if (this.options.metrics) {
        this.options.metrics.exportRenderSeconds.observe({ format }, (performance.now() - started) / 1000);
        this.options.metrics.exportRowsRendered.inc({ format }, file.rows);
      }
      return file;
    });
  }

  /**
   * Renders a fiscal document's Factur-X file (its CII attached) to `outputPath` in one piece. An
   * invoice issued at the front desk is `on-demand`: it goes before every waiting batch piece, in
   * turn with the on-demand exports. The CII may still be being built: the piece goes to a render
   * process at once, which lays out the pages meanwhile, and the CII follows it when it is ready (the
   * piece fails when it cannot be built).
   */
  async renderInvoice(document: TFiscalDocument, ciiXml: string | Promise<string>, outputPath: string, priority: TRenderPriority = 'on-demand'): Promise<void> {
    if (this.closed) throw new Error('render pool is closed');
    await inSpan('render Factur-X', { 'folio.export.format': 'Factur-X', 'folio.render.priority': priority }, () =>
      this.submit({ id: this.nextDocument++, priority }, { kind: 'facturx', document, outputPath }, Promise.resolve(ciiXml)),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const queue of Object.values(this.queues)) {
      for (const tasks of queue.values()) for (const task of tasks.splice(0)) task.reject(new Error('render pool is closed'));
      queue.clear();
    }
    await Promise.all(this.slots.map((slot) => this.retire(slot)));
  }

  /**
   * Starts every render process now and resolves once each has warmed up (code loaded, fonts
   * registered, a small document drawn and joined: render-child.ts), with this process's own
   * planning code compiled too; the worker takes jobs only after (worker.ts), so its first export
   * renders as fast as later ones. Processes replaced later start at once and load their fonts,
   * without the warm-up document (spawn).
   */
  async warm(): Promise<void> {
    this.warmed = true;
    for (const slot of this.slots) slot.child ??= this.spawn(slot, true);
    planFolioPdf(warmUpDocument());
    await Promise.all(this.slots.map((slot) => (slot.child ? this.readiness.get(slot.child) : undefined)));
  }

  /** True once warm() was called and every running render process has warmed up (tests). */
  isWarm(): boolean {
    return this.warmed && this.slots.every((slot) => slot.child !== undefined && this.ready.has(slot.child));
  }

  /**
   * Chunks for a plan: a multiple of the pool's size (every process gets a share), evenly sized, at
   * most `pagesPerChunk` pages each; a short document stays whole.
   */
  private pagesPerChunk(pages: number): number {
    const most = this.options.pagesPerChunk ?? PAGES_PER_CHUNK;
    if (pages <= Math.min(PAGES_RENDERED_WHOLE, most)) return pages;
    const size = this.slots.length;
    const chunks = size * Math.ceil(pages / (size * most));
    return Math.ceil(pages / chunks);
  }

  private async renderPdf(group: TGroup, document: TFolioDocument, outputPath: string): Promise<TRenderedFile> {
    const plan = planFolioPdf(document);
    const chunks = chunkPlan(plan, this.pagesPerChunk(plan.pages.length));
    if (chunks.length === 1) {
      await this.submit(group, { kind: 'pdf-chunk', chunk: chunks[0]!, outputPath });
    } else {
      const parts = chunks.map((_, index) => `${outputPath}.part${index}`);
      try {
        // allSettled: no part file may still be being written when the finally block removes them.
        const settled = await Promise.allSettled(chunks.map((chunk, index) => this.submit(group, { kind: 'pdf-chunk', chunk, outputPath: parts[index]! })));
        const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
        if (failed) throw failed.reason as Error;
        await this.submit(group, { kind: 'pdf-merge', head: plan.head, parts, outputPath });
      } finally {
        // A cleanup failure must not hide the render's own outcome.
        await Promise.all(parts.map((part) => rm(part, { force: true }).catch(() => undefined)));
      }
    }
    return { pages: plan.pages.length, rows: plan.rows };
  }

  private submit(group: TGroup, work: TRenderWork, attachment?: Promise<string>): Promise<TRenderedFile | undefined> {
    if (this.closed) return Promise.reject(new Error('render pool is closed'));
    // Settled here too, so a CII that fails while its piece still waits is no unhandled rejection.
    attachment?.catch(() => undefined);
    return new Promise((resolve, reject) => {
      const queue = this.queues[group.priority];
      const tasks = queue.get(group.id) ?? [];
      tasks.push({ work, ...(attachment ? { attachment } : {}), trace: activeTraceparent(), resolve, reject });
      queue.set(group.id, tasks);
      this.dispatch();
    });
  }

  /**
   * The next piece for `slot`: on-demand documents' first, then batch documents' (unless the slot is
   * the front desk's), each class's documents in turn (a Map iterates in insertion order; a served
   * one goes last).
   */
  private nextTask(slot: TSlot): TTask | undefined {
    for (const queue of slot.batch ? [this.queues['on-demand'], this.queues.batch] : [this.queues['on-demand']]) {
      for (const [group, tasks] of queue) {
        const task = tasks.shift();
        queue.delete(group);
        if (tasks.length) queue.set(group, tasks);
        if (task) return task;
      }
    }
    return undefined;
  }

  /** Gives each free process its next piece; the front desk's process (the first) is offered one first. */
  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.busy) continue;
      const task = this.nextTask(slot);
      if (task) this.run(slot, task);
    }
  }

  /**
   * `warmUp`: the process draws the warm-up document before its first piece (warm(): a worker's
   * start). A replacement only loads its fonts: it starts while the other processes serve, and a
   * full warm-up at every recycle would cost a busy worker more than it saves.
   */
  private spawn(slot: TSlot, warmUp = false): ChildProcess {
    // The child runs as the rest of the service does (tsx from source, plain node compiled), with its own heap.
    // A profiled worker (node --cpu-prof, bench/scenarios/night-audit.ts) profiles its render processes too.
    const profiling = process.execArgv.filter((arg) => arg.startsWith('--cpu-prof'));
    // --expose-gc: the process collects its garbage before its size is judged (render-child.ts, settleMemory).
    const args = [
      `${RSS_LIMIT_FLAG}${this.options.maxRssBytes ?? MAX_RSS_BYTES}`,
      ...(warmUp ? [WARM_UP_FLAG] : []),
      ...(this.options.shapingCache === false ? [SHAPING_CACHE_OFF_FLAG] : []),
    ];
    const execArgv = ['--expose-gc', ...profiling, ...(FROM_SOURCE ? ['--import', 'tsx'] : [])];
    const child = fork(CHILD, args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.on('error', () => undefined);
    // A process that ends between pieces (killed from outside, out of memory) is forgotten, so no
    // piece is sent to it, and replaced at once in a warmed pool. One that ends during a piece
    // fails that piece instead (run).
    child.once('exit', () => {
      if (slot.child === child && !slot.busy) this.replace(slot, 'failure');
    });
    if (slot.nice && child.pid !== undefined) {
      try {
        setPriority(child.pid, Math.min(19, getPriority() + BATCH_NICE));
      } catch {
        // A system that refuses it leaves the process at the worker's own priority: slower for the front desk, not wrong.
      }
    }
    this.readiness.set(child, this.readyOf(child));
    return child;
  }

  private readyOf(child: ChildProcess): Promise<void> {
    return new Promise<void>((resolve) => {
      const settle = () => {
        child.off('message', onReady);
        child.off('exit', settle);
        resolve();
      };
      const onReady = (message: TReadyMessage | TRenderReply) => {
        if (!('ready' in message)) return;
        this.ready.add(child);
        settle();
      };
      child.on('message', onReady);
      child.once('exit', settle);
    });
  }

  private run(slot: TSlot, task: TTask): void {
    slot.busy = true;
    const child = (slot.child ??= this.spawn(slot));
    const id = this.nextId++;
    let finished = false;
    const finish = (outcome: { ok: boolean; file?: TRenderedFile; error?: Error; rss?: number; collected?: boolean }) => {
      // Once: a piece whose sending fails may also see its process end.
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      slot.busy = false;
      slot.renders += 1;
      const reason = this.replacementReason(slot, outcome);
      if (reason) this.replace(slot, reason);
      if (outcome.ok) task.resolve(outcome.file);
      else task.reject(outcome.error ?? new Error('render failed'));
      this.dispatch();
    };
    const onMessage = (reply: TRenderReply) => {
      if (reply.id !== id) return;
      if (reply.ok) finish({ ok: true, file: reply.file, rss: reply.rss, collected: reply.collected });
      else finish({ ok: false, error: new Error(`render failed: ${reply.error}`), rss: reply.rss, collected: reply.collected });
    };
    const onExit = (code: number | null, signal: string | null) => {
      slot.child = undefined;
      finish({ ok: false, error: new Error(`render process ended (${signal ?? code})`) });
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    const timer = setTimeout(() => child.kill('SIGKILL'), this.options.timeoutMs ?? 10 * 60_000);
    // A piece that cannot be sent fails as a failed piece does: the process is replaced.
    this.sendPiece(child, id, task).catch((error: unknown) => finish({ ok: false, error: error instanceof Error ? error : new Error(String(error)) }));
    task.attachment?.then(
      (ciiXml) => this.tell(child, { id, attachment: ciiXml }),
      (error: unknown) => this.tell(child, { id, attachmentError: error instanceof Error ? error.message : String(error) }),
    );
  }

  /**
   * Sends a piece to its render process. An XLSX's document goes as its head, then its rows a slice
   * at a time, each sent once the one before has left for the pipe (document-slices.ts): the worker
   * never holds the whole document serialized. A slice that cannot be sent (the process's channel
   * gone) fails the piece (run).
   */
  private async sendPiece(child: ChildProcess, id: number, task: TTask): Promise<void> {
    const trace = task.trace ? { trace: task.trace } : {};
    if (task.work.kind !== 'xlsx') {
      child.send({ id, ...task.work, ...trace } satisfies TRenderRequest);
      return;
    }
    const { head, slices } = sliceDocument(task.work.document, this.options.rowsPerSlice);
    const messages: Array<TRenderRequest | TSliceMessage> = [
      { id, kind: 'xlsx', head, slices: slices.length, outputPath: task.work.outputPath, ...trace },
      ...slices.map((slice) => ({ id, slice })),
    ];
    for (const message of messages) if (!(await sent(child, message))) throw new Error('the render process closed its channel');
  }

  /** A message to a render process that may have ended meanwhile (its piece then fails by its exit). */
  private tell(child: ChildProcess, message: TAttachmentMessage): void {
    if (child.connected) child.send(message, (error) => void error);
  }

  /**
   * Whether the process that just finished a piece is replaced, and why. Memory counts only once the
   * process has collected its garbage (`collected`): before that, RSS mostly measures V8's heap
   * waiting for a major collection, and a replacement (a cold start: code loaded and compiled, fonts
   * registered) would cost far more than the collection.
   */
  private replacementReason(slot: TSlot, outcome: { ok: boolean; rss?: number; collected?: boolean }): TReplacementReason | undefined {
    if (!outcome.ok) return 'failure';
    if (outcome.collected && (outcome.rss ?? 0) > (this.options.maxRssBytes ?? MAX_RSS_BYTES)) return 'memory';
    if (slot.renders >= (this.options.maxRenders ?? MAX_RENDERS)) return 'pieces';
    return undefined;
  }

  /** Counts a replacement by its reason and retires the slot's process (its successor starts at once in a warmed pool). */
  private replace(slot: TSlot, reason: TReplacementReason): void {
    this.options.metrics?.exportRenderProcessReplacements.inc({ reason });
    void this.retire(slot);
  }

  private async retire(slot: TSlot): Promise<void> {
    const child = slot.child;
    slot.child = undefined;
    slot.renders = 0;
    if (this.warmed && !this.closed) slot.child = this.spawn(slot);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), RENDER_EXIT_MS);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.disconnect();
    });
  }
}
