import { readFileSync, readdirSync, writeFileSync } from 'node:fs';

/**
 * Peak resident memory of every process of a service's process trees (tsx launchers, the API, the
 * worker and every render process it forks), read from /proc. VmHWM is the kernel's own high-water
 * mark, so a peak between two samples still counts; sampling every ~50 ms only has to see each
 * process alive once. Linux only.
 */
export type TKindOf = (pid: number, cmdline: string, rootLabel: string) => string;

interface TSeen {
  kind: string;
  peakKb: number;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** ppid of every live process. */
function parents(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readText(`/proc/${name}/stat`);
    if (!stat) continue;
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so parse after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  return children;
}

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  const status = readText(`/proc/${pid}/status`);
  const match = status?.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  return match ? Number(match[1]) : undefined;
}

/** The kind of a process of the service: render processes, tsx launchers, or the root's label. */
export const serviceKind: TKindOf = (_pid, cmdline, rootLabel) => {
  if (cmdline.includes('render-child')) return 'render process';
  if (cmdline.includes('tsx/dist/cli')) return `${rootLabel} (tsx launcher)`;
  return rootLabel;
};

export class TreeMemorySampler {
  private readonly seen = new Map<number, TSeen>();
  private timer?: NodeJS.Timeout;
  private ticks = 0;
  private tree: Array<{ pid: number; label: string }> = [];

  constructor(
    private readonly roots: Array<{ pid: number; label: string }>,
    private readonly kindOf: TKindOf = serviceKind,
  ) {}

  /** Resets the kernel's peak of every process now in the trees, so a run's peak is its own. */
  reset(): void {
    this.discover();
    for (const { pid } of this.tree) {
      try {
        // "5" resets VmHWM to the current RSS (proc(5), clear_refs).
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
      } catch {
        // Gone, or not ours: its sampled RSS still counts.
      }
    }
    this.seen.clear();
  }

  start(intervalMs = 50): void {
    this.stop();
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
  }

  /** Peak RSS in MB per process kind (the largest single process of that kind) and how many were seen. */
  peaks(): Record<string, { peakMb: number; processes: number }> {
    const out: Record<string, { peakMb: number; processes: number }> = {};
    for (const { kind, peakKb } of this.seen.values()) {
      const entry = (out[kind] ??= { peakMb: 0, processes: 0 });
      entry.peakMb = Math.max(entry.peakMb, peakKb / 1024);
      entry.processes += 1;
    }
    return out;
  }

  private discover(): void {
    const children = parents();
    const tree: Array<{ pid: number; label: string }> = [];
    const walk = (pid: number, label: string) => {
      tree.push({ pid, label });
      for (const child of children.get(pid) ?? []) walk(child, label);
    };
    for (const root of this.roots) walk(root.pid, root.label);
    this.tree = tree;
  }

  private sample(): void {
    // The tree changes rarely (a render process forked or recycled); /proc is walked every 4th tick.
    if (this.ticks++ % 4 === 0) this.discover();
    for (const { pid, label } of this.tree) {
      const kb = Math.max(statusKb(pid, 'VmHWM') ?? 0, statusKb(pid, 'VmRSS') ?? 0);
      if (!kb) continue;
      let entry = this.seen.get(pid);
      if (!entry) {
        entry = { kind: this.kindOf(pid, (readText(`/proc/${pid}/cmdline`) ?? '').replace(/\0/g, ' '), label), peakKb: 0 };
        this.seen.set(pid, entry);
      }
      entry.peakKb = Math.max(entry.peakKb, kb);
    }
  }
}
