import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { cardBody } from '@folio-vault/test-kit/cards';
import { PROPERTY_1, importOk } from './support/ledger-fixture.js';
import { createWorld, startTestWorker, type TWorld } from './support/world.js';
import { Queue } from 'bullmq';
import { VAULT_SWEEP_SCHEDULER_ID, vaultSweepJob } from '@folio-vault/shared/vault/vault-sweep-job';
import { RETENTION_SWEEP_SCHEDULER_ID, retentionSweepJob } from '@folio-vault/shared/exports/retention-sweep-job';
import { webhookSweepJob } from '@folio-vault/shared/webhooks/webhook-jobs';
import { FISCAL_RENDER_SWEEP_SCHEDULER_ID, fiscalRenderSweepJob } from '@folio-vault/shared/fiscal/render-fiscal-document-job';

/**
 * The operator's pages in a real browser: Debian's Chromium driven by playwright-core (which never
 * downloads a browser). /docs must render every operation; /admin/queues, opened with ?token=<admin
 * JWT>, must list the queues with the counts of what this file did: one card tokenized (vault:
 * 1 completed) and one export left waiting (folio-export: 1 waiting, no worker running).
 */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  // As root (CI) Chromium's sandbox cannot start.
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  // The machine's network is closed: no update checks, no sync, no background fetches.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** The first Chromium start on a cold machine is slow; everything after it is fast. */
const UI_TIMEOUT_MS = 45_000;
const PAN = '4111111111111111';
const SOURCE_ID = '500';

let world: TWorld;
let browser: Browser;
let admin: string;
let payments: string;
let tokenId: string;

const NO_CHROMIUM = `${CHROMIUM} is missing: these browser tests need Debian's chromium. Run "bash .ci/run" (it installs it) or "sudo apt-get install -y --no-install-recommends chromium".`;

beforeAll(async () => {
  // Without Chromium every test below fails with NO_CHROMIUM (a failure, never a skip).
  if (!existsSync(CHROMIUM)) return;
  // No worker in the world, so the export below stays waiting; a worker of our own runs only for
  // the tokenize (which waits for its job) and is closed before the export is queued.
  world = await createWorld({ worker: false });
  admin = world.token({ scope: 'admin', properties: ['*'] });
  payments = world.token({ properties: [1] });

  const worker = await startTestWorker(world.config, world.logger);
  try {
    const tokenized = await request(world.url)
      .post('/vault/v1/tokens/card')
      .set('Authorization', `Bearer ${payments}`)
      .set('X-Property-Id', '1')
      .set('SVC-Tokenization-Mode', 'test')
      .send(cardBody({ card_number: PAN }));
    expect(tokenized.status, JSON.stringify(tokenized.body)).toBe(200);
    tokenId = tokenized.body.id;
  } finally {
    await worker.close();
  }
  // The worker's housekeeping (the vault sweep, the retention and fiscal render sweeps, the webhooks' lost-job sweep:
  // their schedulers, first runs and next ones) is not this file's doing: removed, so the counts
  // below are the file's own.
  const housekeeping = [
    [QUEUE_NAMES.vault, VAULT_SWEEP_SCHEDULER_ID, vaultSweepJob.name],
    [QUEUE_NAMES.export, RETENTION_SWEEP_SCHEDULER_ID, retentionSweepJob.name],
    [QUEUE_NAMES.export, FISCAL_RENDER_SWEEP_SCHEDULER_ID, fiscalRenderSweepJob.name],
    [QUEUE_NAMES.webhooks, webhookSweepJob.name, webhookSweepJob.name],
  ] as const;
  for (const [name, schedulerId, jobName] of housekeeping) {
    const queue = new Queue(name, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    await queue.removeJobScheduler(schedulerId);
    for (const job of await queue.getJobs(['completed', 'waiting', 'delayed', 'failed'])) if (job.name === jobName) await job.remove();
    await queue.close();
  }

  await importOk(world, payments, 1, {
    property: PROPERTY_1,
    folios: [{ id: 10, sourceKind: 'RESERVATION', sourceId: SOURCE_ID, name: 'Main folio' }],
    transactions: [],
  });
  const exported = await request(world.url)
    .post('/fiscal-document/v1/folios/export')
    .set('Authorization', `Bearer ${payments}`)
    .set('X-Property-Id', '1')
    .set('Prefer', 'respond-async')
    .send({ sourceKind: 'RESERVATION', sourceId: SOURCE_ID, format: 'PDF' });
  expect(exported.status, JSON.stringify(exported.body)).toBe(202);
  expect(exported.body.status).toBe('queued');

  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: UI_TIMEOUT_MS });
});
afterAll(async () => {
  await browser?.close();
  await world?.close();
});

/**
 * A page in its own browser context (own cookies), failing the test on any uncaught script error;
 * `requested` is every URL the page asked for (documents, scripts, styles, fonts, images, fetches).
 */
async function openPage(): Promise<{ page: Page; errors: string[]; requested: string[] }> {
  if (!browser) throw new Error(NO_CHROMIUM);
  const page = await browser.newPage();
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const requested: string[] = [];
  page.on('request', (req) => requested.push(req.url()));
  return { page, errors, requested };
}

/** The URLs of `requested` that are not on the service's own origin. */
const elsewhere = (requested: string[]) => requested.filter((url) => new URL(url).origin !== new URL(world.url).origin);

describe('in Chromium', () => {
  it('/docs renders every operation of the API', { timeout: 90_000 }, async () => {
    const { page, errors } = await openPage();
    try {
      const response = await page.goto(`${world.url}/docs/`);
      expect(response?.status()).toBe(200);
      // Swagger UI draws the operations from /docs/swagger-ui-init.js once its bundle has run.
      const paths = page.locator('.opblock .opblock-summary-path');
      await paths.first().waitFor({ state: 'visible' });
      expect(await page.title()).toBe('Folio Vault API');
      for (const path of ['/vault/v1/tokens/card', '/accounting/v1.0/folios/transactions', '/fiscal-document/v1/folios/export', '/fiscal-document/v1/night-audit/exports']) {
        const shown = page.locator(`.opblock-summary-path[data-path="${path}"]`);
        await shown.waitFor({ state: 'visible' });
        // What a person reads (Swagger UI breaks the path with <wbr>, which adds no text).
        expect((await shown.innerText()).trim()).toBe(path);
      }
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('/admin/queues?token=<admin JWT> redirects to the dashboard, which lists the queues with their counts', { timeout: 90_000 }, async () => {
    const { page, errors, requested } = await openPage();
    try {
      const response = await page.goto(`${world.url}/admin/queues?token=${admin}`);
      expect(response?.status()).toBe(200);
      expect((await response?.request().redirectedFrom()?.response())?.status()).toBe(303);
      // The token left the address bar for an HttpOnly cookie.
      expect(page.url()).toBe(`${world.url}/admin/queues`);
      const cookies = await page.context().cookies();
      expect(cookies.map(({ name, httpOnly, sameSite, path }) => ({ name, httpOnly, sameSite, path }))).toEqual([
        { name: 'folio_admin_token', httpOnly: true, sameSite: 'Strict', path: '/admin/queues' },
      ]);

      // The sidebar lists every queue.
      const sidebar = page.locator('aside nav').getByRole('link');
      await sidebar.first().waitFor({ state: 'visible' });
      expect(await page.title()).toBe('Folio Vault queues');
      expect((await sidebar.allInnerTexts()).map((name) => name.trim()).sort()).toEqual(Object.values(QUEUE_NAMES).sort());

      // One card per queue; the bar's label counts its jobs (no status filter: every state).
      const card = (queue: string) => page.locator('main li').filter({ has: page.getByRole('link', { name: queue, exact: true }) });
      for (const queue of Object.values(QUEUE_NAMES)) await card(queue).waitFor({ state: 'visible' });
      await card(QUEUE_NAMES.vault).getByRole('button', { name: '1 Job', exact: true }).waitFor({ state: 'visible' });
      await card(QUEUE_NAMES.export).getByRole('button', { name: '1 Job', exact: true }).waitFor({ state: 'visible' });

      // The vault queue's own page: its one job, completed, with the sealed card hidden.
      await page.locator('aside nav').getByRole('link', { name: QUEUE_NAMES.vault, exact: true }).click();
      await page.waitForURL(`${world.url}/admin/queues/queue/${QUEUE_NAMES.vault}`);
      await page.getByText(tokenId, { exact: true }).first().waitFor({ state: 'visible' });
      const tab = (status: string) => page.locator(`main a[href="/admin/queues/queue/${QUEUE_NAMES.vault}?status=${status}"]`);
      expect((await tab('completed').innerText()).replace(/\s+/g, '')).toBe('COMPLETED1');
      for (const status of ['waiting', 'active', 'failed', 'delayed']) expect((await tab(status).innerText()).replace(/\s+/g, '')).toBe(status.toUpperCase());
      // In a 1,280 px window every status tab is inside its bar: the bar does not scroll sideways,
      // and no tab reaches past its right edge (measured in the page).
      expect(page.viewportSize()?.width).toBe(1280);
      const bar = await page.locator('main ul:has(a[href*="?status="])').evaluate((element) => {
        // The page's DOM, typed here as much as is read (the tests compile without the DOM library).
        type TBox = { getBoundingClientRect(): { right: number } };
        const list = element as unknown as TBox & { scrollWidth: number; clientWidth: number; querySelectorAll(selector: string): Iterable<TBox & { textContent: string }> };
        return {
          scrollWidth: list.scrollWidth,
          clientWidth: list.clientWidth,
          right: list.getBoundingClientRect().right,
          tabs: [...list.querySelectorAll('a')].map((a) => ({ text: a.textContent, right: a.getBoundingClientRect().right })),
        };
      });
      expect(bar.tabs.map((one) => one.text)).toEqual(['LATEST', 'ACTIVE', 'WAITING', 'WAITING CHILDREN', 'PRIORITIZED', 'COMPLETED1', 'FAILED', 'DELAYED']);
      expect({ scrollWidth: bar.scrollWidth, past: bar.tabs.filter((one) => one.right > bar.right).map((one) => one.text) }).toEqual({ scrollWidth: bar.clientWidth, past: [] });
      // Kept (overwritten each run) for a person to look at.
      const shot = await page.screenshot({ path: join(tmpdir(), 'fv-dashboard-1280.png') });
      // A PNG 1,280 px wide (its IHDR width).
      expect([shot.subarray(1, 4).toString('latin1'), shot.readUInt32BE(16)]).toEqual(['PNG', 1280]);
      await page.getByText('tokenize-card', { exact: true }).waitFor({ state: 'visible' });
      await page.getByText('"[sealed]"').first().waitFor({ state: 'visible' });
      const text = await page.locator('body').innerText();
      expect(text).not.toContain(PAN);
      expect(text).not.toContain(admin);

      // The export queue's page: the export this file queued, waiting.
      await page.locator('aside nav').getByRole('link', { name: QUEUE_NAMES.export, exact: true }).click();
      await page.waitForURL(`${world.url}/admin/queues/queue/${QUEUE_NAMES.export}`);
      const waiting = page.locator(`main a[href="/admin/queues/queue/${QUEUE_NAMES.export}?status=waiting"]`);
      await waiting.waitFor({ state: 'visible' });
      await page.getByText('export-folio', { exact: true }).first().waitFor({ state: 'visible' });
      expect((await waiting.innerText()).replace(/\s+/g, '')).toBe('WAITING1');

      // The header's menu links the delivery panel (docs/operations.md), which opens with the same cookie.
      // (bull-board's links menu: the last button of the header's actions, an icon without a label.)
      await page.locator('header ul li').last().getByRole('button').click();
      await page.getByRole('menuitem', { name: 'Delivery panel', exact: true }).click();
      await page.waitForURL(`${world.url}/admin/queues/delivery`);
      await page.getByRole('heading', { name: 'Webhook deliveries', exact: true }).waitFor({ state: 'visible' });
      await page.getByRole('heading', { name: 'Pending and failed deliveries', exact: true }).waitFor({ state: 'visible' });
      expect(await page.locator('#unfinished-deliveries th').allInnerTexts()).toEqual(['status', 'event', 'endpoint', 'property', 'attempts', 'last error', 'next attempt']);

      // Everything the dashboard and the panel asked for came from the service: no web font, no CDN.
      expect(requested.length).toBeGreaterThan(5);
      expect(elsewhere(requested)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('/admin/queues refuses a token without the admin scope: an error page, no cookie, no dashboard; its sign-in page signs in', { timeout: 90_000 }, async () => {
    const { page, errors, requested } = await openPage();
    try {
      const refused = await page.goto(`${world.url}/admin/queues?token=${payments}`);
      expect(refused?.status()).toBe(403);
      expect(refused?.request().redirectedFrom()).toBeNull();
      await page.getByText('ACCESS_DENIED').waitFor({ state: 'visible' });
      expect(await page.context().cookies()).toEqual([]);
      expect(await page.locator('#root').count()).toBe(0);
      expect(await page.locator('body').innerText()).not.toContain('Folio Vault queues');

      // No cookie was set, so the dashboard stays closed afterwards too: the sign-in page says how to open it.
      const after = await page.goto(`${world.url}/admin/queues`);
      expect(after?.status()).toBe(401);
      await page.getByRole('heading', { name: 'Sign in to the queue dashboard', exact: true }).waitFor({ state: 'visible' });
      await page.getByText("npm run token -- --property '*' --scope admin", { exact: true }).waitFor({ state: 'visible' });
      expect(await page.locator('#root').count()).toBe(0);

      // Its form sends the pasted token as ?token=: the cookie is set and the dashboard opens.
      await page.getByLabel('Token').fill(admin);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.locator('aside nav').getByRole('link', { name: QUEUE_NAMES.vault, exact: true }).waitFor({ state: 'visible' });
      expect(page.url()).toBe(`${world.url}/admin/queues`);
      expect((await page.context().cookies()).map(({ name }) => name)).toEqual(['folio_admin_token']);
      expect(elsewhere(requested)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
