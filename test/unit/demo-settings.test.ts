import { describe, expect, it } from 'vitest';
import { loadConfig } from '@folio-vault/shared/config';
import { DEMO_QUEUE_PREFIX, demoSettings } from '../../scripts/demo-settings.js';
import { testKeys } from '../support/world.js';

/**
 * `npm run demo` beside a running `npm start` shares its Redis: the demo's settings keep its jobs
 * from the service's worker (another queue prefix) and its worker off the service worker's health
 * port, and its one line says which way it runs.
 */
describe('the demo settings', () => {
  const service = { ...testKeys(), QUEUE_PREFIX: '{folio}', WORKER_HEALTH_PORT: '9464' };

  it('gives the demo a queue prefix of its own and no worker health server, beside a service', () => {
    const settings = demoSettings(service, true);
    expect(settings.env).toEqual({ QUEUE_PREFIX: DEMO_QUEUE_PREFIX, WORKER_HEALTH_PORT: '0' });
    expect(settings.line).toBe(
      "its own API and worker, jobs under {folio-demo} (not QUEUE_PREFIX {folio}): running beside the service answering on port 3000, which neither sees nor takes the demo's jobs",
    );
    // The service's settings read the overrides as meant: other queues, no health server.
    const demo = loadConfig({ ...service, ...settings.env }, 'all');
    const running = loadConfig(service, 'all');
    expect([demo.QUEUE_PREFIX, running.QUEUE_PREFIX]).toEqual(['{folio-demo}', '{folio}']);
    expect([demo.WORKER_HEALTH_PORT, running.WORKER_HEALTH_PORT]).toEqual([undefined, 9464]);
  });

  it('says it runs alone when no service answers, naming the port it looked at', () => {
    expect(demoSettings({ PORT: '3100' }, false).line).toBe('its own API and worker, jobs under {folio-demo}: running alone (no service answers on port 3100)');
  });
});
