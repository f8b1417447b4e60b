import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { cpuPer, cpuSnapshot, type TCpuSnapshot } from '../../bench/support/process-cpu.js';

/**
 * The benchmarks' CPU accounting by process (bench/support/process-cpu.ts) counts a process that
 * ended between the two snapshots through its parent, which waited for it: a render process the
 * pool replaced mid-measurement used to vanish from the figures.
 */
describe('CPU by process', () => {
  it('gives an ended child the CPU it spent after the first snapshot, under its own role', () => {
    const before: TCpuSnapshot = new Map([
      [10, { role: 'service (api + worker)', seconds: 4, ppid: 1, reaped: 1 }],
      [11, { role: 'render processes', seconds: 2, ppid: 10, reaped: 0 }],
      [12, { role: 'render processes', seconds: 3, ppid: 10, reaped: 0 }],
    ]);
    // 11 ended having spent 2.5 s in all (0.5 s of it after the first snapshot); 12 went on to 3.25 s.
    const after: TCpuSnapshot = new Map([
      [10, { role: 'service (api + worker)', seconds: 4.25, ppid: 1, reaped: 3.5 }],
      [12, { role: 'render processes', seconds: 3.25, ppid: 10, reaped: 0 }],
    ]);
    expect(cpuPer(before, after, 10)).toEqual({ 'render processes': 75, 'service (api + worker)': 25 });
  });

  it('reads a waited-for child from /proc: a child started and ended between the snapshots counts as much as it says it spent', async () => {
    // A shell that starts a spinning node child when told to and waits for it, then stays until told to end.
    const shell = spawn('sh', ['-c', 'read go; node -e "const end = Date.now() + 200; while (Date.now() < end); const u = process.cpuUsage(); console.log((u.user + u.system) / 1000)"; echo ended; read done'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    try {
      const only = (snapshot: TCpuSnapshot): TCpuSnapshot => new Map([...snapshot].filter(([pid]) => pid === shell.pid));
      const before = only(cpuSnapshot());
      expect(before.size).toBe(1);
      shell.stdin.write('go\n');
      // The child's figure, then the shell's word that it has waited for the child.
      let output = '';
      shell.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      while (!output.includes('ended')) await once(shell.stdout, 'data');
      const reported = Number(output.split('\n')[0]);
      const counted = cpuPer(before, only(cpuSnapshot()), 1);
      // The kernel counts in ticks of 10 ms, the child's own figure in microseconds; the shell itself spends next to nothing.
      expect(Math.abs(counted.other! - reported)).toBeLessThanOrEqual(20);
    } finally {
      shell.stdin.end('done\n');
      await once(shell, 'exit');
    }
  });
});
