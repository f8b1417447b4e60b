import { describe, expect, it } from 'vitest';
import { loadConfig } from '@folio-vault/shared/config';
import { QUEUE_NAMES, queuesOf } from '@folio-vault/shared/queues';
import { generateDemoLedger } from '@folio-vault/test-kit/demo-ledger';
import { DEMO_LEDGER_SEED, DEMO_PROPERTY, DEMO_QUEUE_PREFIX, demoSettings } from '../../scripts/demo-settings.js';
import { testKeys } from '../support/world.js';

/**
 * `npm run demo` beside a running `npm start` shares its Redis and database: the demo's settings
 * keep its jobs from the service's worker (another queue prefix), its worker off the service
 * worker's health port and off webhook deliveries and night audits (which it would find in the
 * shared database), its data on a property of its own, and its first line says which way it runs.
 */
describe('the demo settings', () => {
  const service = { ...testKeys(), QUEUE_PREFIX: '{folio}', WORKER_HEALTH_PORT: '9464' };

  it('gives the demo a queue prefix of its own, no worker health server and no webhook or night-audit work, beside a service', () => {
    const settings = demoSettings(service, true);
    expect(settings.env).toEqual({ QUEUE_PREFIX: DEMO_QUEUE_PREFIX, WORKER_HEALTH_PORT: '0', WORKER_QUEUES: 'vault,vault-forward,folio-export' });
    expect(settings.line).toBe(
      'running beside the service answering on port 3000, on its Redis and database, apart from it: ' +
        'its own API and worker, jobs under {folio-demo} (not QUEUE_PREFIX {folio}), property 9001, no webhook sent',
    );
    // The service's settings read the overrides as meant: other queues, no health server, no deliveries.
    const demo = loadConfig({ ...service, ...settings.env }, 'all');
    const running = loadConfig(service, 'all');
    expect([demo.QUEUE_PREFIX, running.QUEUE_PREFIX]).toEqual(['{folio-demo}', '{folio}']);
    expect([demo.WORKER_HEALTH_PORT, running.WORKER_HEALTH_PORT]).toEqual([undefined, 9464]);
    const taken = queuesOf(demo.WORKER_QUEUES);
    expect([QUEUE_NAMES.webhooks, QUEUE_NAMES.nightAudit, QUEUE_NAMES.nightAuditExport].map((queue) => taken.has(queue))).toEqual([false, false, false]);
    expect([QUEUE_NAMES.vault, QUEUE_NAMES.forward, QUEUE_NAMES.export].map((queue) => taken.has(queue))).toEqual([true, true, true]);
  });

  it('says it runs alone when no service answers, naming the port it looked at', () => {
    expect(demoSettings({ PORT: '3100' }, false).line).toBe(
      'running alone (no service answers on port 3100): its own API and worker, jobs under {folio-demo}, property 9001, no webhook sent',
    );
  });

  it("imports a property of its own, not the README's property 1, with property 1's hotel and folio", () => {
    const demo = generateDemoLedger({ propertyId: DEMO_PROPERTY, folios: 12, seed: DEMO_LEDGER_SEED, now: new Date('2026-11-24T10:00:00Z') });
    const one = generateDemoLedger({ propertyId: 1, folios: 12, now: new Date('2026-11-24T10:00:00Z') });
    expect(demo.property.id).toBe(9001);
    expect([demo.property.name, demo.property.taxId]).toEqual([one.property.name, one.property.taxId]);
    expect(demo.transactions.map((row) => [row.description, row.amount])).toEqual(one.transactions.map((row) => [row.description, row.amount]));
  });
});
