import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TFolioDocument, TRenderedFile } from '@folio-vault/shared/export/folio-document';
import type { TMetrics } from '@folio-vault/shared/metrics';
import type { TRenderReply, TRenderRequest } from './render-child.js';

/**
 * A small pool of render processes (DESIGN.md: render off the event loop; React-PDF memory grows
 * in long-lived processes, so recycle). Each process renders one document at a time; a process
 * is replaced after `maxRenders` documents or once it has grown past `maxRssBytes`. With `metrics`,
 * every document rendered counts its render time (export_render_seconds: from the moment a process
 * takes it, so without the wait for a free one, but with the start of a new process after a
 * recycle) and rows (export_rows_rendered_total) by format. Every export and night-audit file
 * passes here.
 */
const CHILD = fileURLToPath(new URL('./render-child.ts', import.meta.url));

interface TSlot {
  child?: ChildProcess;
  renders: number;
  busy: boolean;
}

interface TTask {
  request: Omit<TRenderRequest, 'id'>;
  resolve: (file: TRenderedFile) => void;
  reject: (error: Error) => void;
}

export class RenderPool {
  private readonly slots: TSlot[];
  private readonly queue: TTask[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    size: number,
    private readonly options: { maxRenders?: number; maxRssBytes?: number; timeoutMs?: number; metrics?: TMetrics } = {},
  ) {
    this.slots = Array.from({ length: size }, () => ({ renders: 0, busy: false }));
  }

  render(format: 'PDF' | 'XLSX', document: TFolioDocument, outputPath: string): Promise<TRenderedFile> {
    if (this.closed) return Promise.reject(new Error('render pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { format, document, outputPath }, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('render pool is closed'));
    await Promise.all(this.slots.map((slot) => this.retire(slot)));
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.busy) continue;
      const task = this.queue.shift();
      if (!task) return;
      this.run(slot, task);
    }
  }

  private spawn(): ChildProcess {
    // The child runs TypeScript like the rest of the service (tsx), with its own heap.
    const child = fork(CHILD, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.on('error', () => undefined);
    return child;
  }

  private run(slot: TSlot, task: TTask): void {
    slot.busy = true;
    const child = (slot.child ??= this.spawn());
    const id = this.nextId++;
    const started = performance.now();
    const finish = (outcome: { file?: TRenderedFile; error?: Error; rss?: number }) => {
      clearTimeout(timer);
      if (outcome.file && this.options.metrics) {
        const format = task.request.format;
        this.options.metrics.exportRenderSeconds.observe({ format }, (performance.now() - started) / 1000);
        this.options.metrics.exportRowsRendered.inc({ format }, outcome.file.rows);
      }
      child.off('message', onMessage);
      child.off('exit', onExit);
      slot.busy = false;
      slot.renders += 1;
      const recycle =
        outcome.error !== undefined ||
        slot.renders >= (this.options.maxRenders ?? 25) ||
        (outcome.rss ?? 0) > (this.options.maxRssBytes ?? 1_500_000_000);
      if (recycle) void this.retire(slot);
      if (outcome.file) task.resolve(outcome.file);
      else task.reject(outcome.error ?? new Error('render failed'));
      this.dispatch();
    };
    const onMessage = (reply: TRenderReply) => {
      if (reply.id !== id) return;
      if (reply.ok) finish({ file: reply.file, rss: reply.rss });
      else finish({ error: new Error(`render failed: ${reply.error}`), rss: reply.rss });
    };
    const onExit = (code: number | null, signal: string | null) => {
      slot.child = undefined;
      finish({ error: new Error(`render process ended (${signal ?? code})`) });
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    const timer = setTimeout(() => child.kill('SIGKILL'), this.options.timeoutMs ?? 10 * 60_000);
    child.send({ id, ...task.request } satisfies TRenderRequest);
  }

  private async retire(slot: TSlot): Promise<void> {
    const child = slot.child;
    slot.child = undefined;
    slot.renders = 0;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 2_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.disconnect();
    });
  }
}
