import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time by process during a measurement, for the "where does a request's time go" part of a
 * benchmark: every process of this benchmark's tree (the service's processes, their render
 * processes, the Redis and PostgreSQL servers it started, and the benchmark itself, which runs the
 * load generator) is read from /proc before and after, and the difference is grouped by role.
 * Divided by the requests answered, it gives the CPU milliseconds each process spent per request,
 * which holds even when other work shares the machine (wall-clock figures do not). Linux only;
 * elsewhere the snapshot is empty.
 */
export type TCpuSnapshot = Map<number, { role: string; seconds: number; ppid: number; reaped: number }>;

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function roleOf(pid: number, cmdline: string): string {
  if (pid === process.pid) return 'bench (load generator)';
  if (/render-child/.test(cmdline)) return 'render processes';
  // The benchmarks' floor (bench/baselines/service-floor.ts) plays the API's and the worker's parts.
  if (/apps\/api\/(src|dist)\/main/.test(cmdline) || /service-floor-child\.ts intake/.test(cmdline)) return 'api';
  if (/apps\/worker\/(src|dist)\/main/.test(cmdline) || /service-floor-child\.ts worker/.test(cmdline)) return 'worker';
  if (/scripts\/start/.test(cmdline)) return 'service (api + worker)';
  if (/redis-server/.test(cmdline)) return 'redis';
  if (/^postgres/.test(cmdline) || /\/postgres /.test(cmdline)) return 'postgresql';
  if (/tsx/.test(cmdline)) return 'tsx launcher';
  return 'other';
}

/** `reaped`: the CPU seconds of its children that ended and were waited for (cutime + cstime). */
function readProcess(pid: number): { ppid: number; seconds: number; reaped: number; cmdline: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
    const reapedTicks = Number(fields[13]) + Number(fields[14]); // cutime + cstime
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    return { ppid, seconds: ticks / TICKS_PER_SECOND, reaped: reapedTicks / TICKS_PER_SECOND, cmdline };
  } catch {
    return undefined; // Gone between the listing and the read.
  }
}

/**
 * CPU seconds so far of this process and every descendant, with each one's role. `alsoRoots` names
 * servers that left this process's tree when they started (pg_ctl daemonizes PostgreSQL): a process
 * whose command line it matches counts, with its descendants (PostgreSQL's backends).
 */
export function cpuSnapshot(alsoRoots?: RegExp): TCpuSnapshot {
  const snapshot: TCpuSnapshot = new Map();
  let pids: number[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return snapshot;
  }
  const processes = new Map<number, { ppid: number; seconds: number; reaped: number; cmdline: string }>();
  for (const pid of pids) {
    const read = readProcess(pid);
    if (read) processes.set(pid, read);
  }
  const inTree = (pid: number): boolean => {
    for (let current = pid, depth = 0; depth < 64; depth += 1) {
      if (current === process.pid) return true;
      if (alsoRoots && alsoRoots.test(processes.get(current)?.cmdline ?? '')) return true;
      const parent = processes.get(current)?.ppid;
      if (!parent || parent === current) return false;
      current = parent;
    }
    return false;
  };
  for (const [pid, read] of processes) {
    if (inTree(pid)) snapshot.set(pid, { role: roleOf(pid, read.cmdline), seconds: read.seconds, ppid: read.ppid, reaped: read.reaped });
  }
  return snapshot;
}

/**
 * CPU milliseconds by role between two snapshots, per unit of work (`per`: the requests answered).
 * A process that started in between counts from zero. One that ended in between (a render process
 * the pool replaced, a PostgreSQL backend whose connection closed) is counted through its parent,
 * which waited for it: the parent's reaped time grew by all the child spent, less what the child
 * had spent by the first snapshot. It goes to the role of the parent's children (by the first
 * snapshot, else the second), or `other` when it had none to tell by.
 */
export function cpuPer(before: TCpuSnapshot, after: TCpuSnapshot, per: number): Record<string, number> {
  const byRole: Record<string, number> = {};
  for (const [pid, { role, seconds }] of after) {
    const spent = seconds - (before.get(pid)?.seconds ?? 0);
    byRole[role] = (byRole[role] ?? 0) + spent;
  }
  for (const [pid, { reaped }] of after) {
    const children = (snapshot: TCpuSnapshot) => [...snapshot].filter(([, child]) => child.ppid === pid);
    const ended = children(before).filter(([child]) => !after.has(child));
    const spent = reaped - (before.get(pid)?.reaped ?? reaped) - ended.reduce((sum, [, child]) => sum + child.seconds, 0);
    if (spent <= 0) continue;
    const role = [...ended, ...children(before), ...children(after)][0]?.[1].role ?? 'other';
    byRole[role] = (byRole[role] ?? 0) + spent;
  }
  return Object.fromEntries(
    Object.entries(byRole)
      .filter(([, seconds]) => seconds > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([role, seconds]) => [role, Number(((seconds * 1000) / Math.max(per, 1)).toFixed(3))]),
  );
}

/** The PostgreSQL server a database URL points at (its postmaster's `-p <port>`), for cpuSnapshot. */
export function postgresServerOf(databaseUrl: string): RegExp {
  return new RegExp(`postgres .*-p ${new URL(databaseUrl).port || '5432'}\\b`);
}
