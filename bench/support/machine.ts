import { readFileSync } from 'node:fs';
import os from 'node:os';

// The machine a benchmark ran on, and how busy it was meanwhile.

export interface TMachine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  date: string;
}

export function machine(): TMachine {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu;
  } catch {
    // Not Linux: os.cpus() it is.
  }
  return {
    cpu: cpu.trim(),
    cores: os.cpus().length,
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    date: new Date().toISOString(),
  };
}

/** The mean 1-minute load average over `samples`; above the core count, other work shared the machine. */
export function meanLoad(samples: number[]): number {
  return samples.reduce((a, b) => a + b, 0) / Math.max(samples.length, 1);
}

/** Runs `work` while sampling the 1-minute load average every second; its mean comes with the value. */
export async function withLoad<T>(work: () => Promise<T>): Promise<{ value: T; load: number }> {
  const loads: number[] = [];
  const timer = setInterval(() => loads.push(os.loadavg()[0]!), 1000);
  try {
    const value = await work();
    loads.push(os.loadavg()[0]!);
    return { value, load: meanLoad(loads) };
  } finally {
    clearInterval(timer);
  }
}
