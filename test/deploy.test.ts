import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMetrics } from '@folio-vault/shared/metrics';
import { ROOT } from '@folio-vault/test-kit/processes';

/**
 * What docs/production.md#running-it ships in deploy/: the systemd units pass `systemd-analyze
 * verify` (no warning either: it exits 0 on a misspelt key), and the Prometheus alert rules pass
 * `promtool check rules` and their own `promtool test rules`, and name only metrics the service
 * exports. `.ci/run` installs both tools on a bare Debian machine.
 */
const run = promisify(execFile);
const DEPLOY = join(ROOT, 'deploy');

async function tool(binary: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(binary, args, { cwd: DEPLOY });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    if (failed.code === 'ENOENT') throw new Error(`${binary} is not installed: run bash .ci/run, or see its install list`);
    return { code: Number(failed.code), stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('deploy/systemd', () => {
  const units = readdirSync(join(DEPLOY, 'systemd')).sort();

  it('holds the API, a worker template, and the monthly partitions service with its timer', () => {
    expect(units).toEqual(['folio-vault-api.service', 'folio-vault-partitions.service', 'folio-vault-partitions.timer', 'folio-vault-worker@.service']);
  });

  it('passes systemd-analyze verify without a line', async () => {
    expect(await tool('systemd-analyze', ['verify', ...units.map((unit) => join('systemd', unit))])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('starts what the build makes, stops within the grace and does not restart a start refused for its settings', () => {
    for (const unit of ['folio-vault-api.service', 'folio-vault-worker@.service']) {
      const text = readFileSync(join(DEPLOY, 'systemd', unit), 'utf8');
      const entry = /^ExecStart=\/usr\/bin\/node (\S+)$/m.exec(text)?.[1];
      expect(entry, unit).toMatch(/^apps\/(api|worker)\/dist\/main\.js$/);
      expect(existsSync(join(ROOT, entry!.replace('/dist/main.js', '/src/main.ts'))), unit).toBe(true);
      expect(text, unit).toContain('RestartPreventExitStatus=2\n');
      // SHUTDOWN_GRACE_MS (20 s) and the bounded steps after it (4.5 s for an API, 8 s for a worker) fit.
      expect(Number(/^TimeoutStopSec=(\d+)s$/m.exec(text)?.[1]), unit).toBeGreaterThanOrEqual(unit.includes('api') ? 25 : 29);
    }
    expect(readFileSync(join(DEPLOY, 'systemd', 'folio-vault-partitions.service'), 'utf8')).toContain(
      'ExecStart=/usr/bin/node packages/shared/dist/db/partitions-command.js --months 3\n',
    );
    expect(existsSync(join(ROOT, 'packages/shared/src/db/partitions-command.ts'))).toBe(true);
  });
});

describe('deploy/prometheus', () => {
  it('passes promtool check rules and its rule tests', async () => {
    const checked = await tool('promtool', ['check', 'rules', 'prometheus/alerts.yml']);
    expect(checked, checked.stdout + checked.stderr).toMatchObject({ code: 0 });
    expect(checked.stdout).toContain('SUCCESS: 9 rules found');
    const tested = await tool('promtool', ['test', 'rules', 'prometheus/alerts.test.yml']);
    expect(tested, tested.stdout + tested.stderr).toMatchObject({ code: 0 });
    expect(tested.stdout).toContain('SUCCESS');
  });

  it('names only metrics the API and the workers export (and Prometheus\'s own `up`)', async () => {
    const exported = new Set((await createMetrics().registry.getMetricsAsJSON()).map((metric) => metric.name));
    const rules = (parse(readFileSync(join(DEPLOY, 'prometheus', 'alerts.yml'), 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> }).groups.flatMap((group) => group.rules);
    const named = new Set(rules.flatMap((rule) => [...rule.expr.matchAll(/\b([a-z_]+)(?=\{|\[)/g)].map((match) => match[1]!)));
    const unknown = [...named].filter((name) => name !== 'up' && !exported.has(name) && !exported.has(name.replace(/_(count|bucket|sum)$/, '')));
    expect(named.size).toBeGreaterThanOrEqual(8);
    expect(unknown).toEqual([]);
  });
});
