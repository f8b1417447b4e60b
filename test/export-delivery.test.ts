import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionServices, type TProvisioned } from '@folio-vault/dev-services/provision';
import { linkSignature } from '@folio-vault/shared/exports/download-links';
import { ExportStore } from '@folio-vault/shared/exports/export-store';
import { FsStorage } from '@folio-vault/shared/storage/fs-storage';
import { until } from './support/faults.js';
import { binaryBody } from './support/binary-body.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * Delivery of exports through the real API, queue, worker, PostgreSQL and storage
 * (docs/export.md#download-links, #retention): the status's download link fetches the file with
 * no JWT and is refused when tampered with, expired or moved to another export; MinIO presigns it
 * on MINIO_PUBLIC_ENDPOINT's host; the retention sweep deletes an export's object (410 after, a
 * new export for the same request) and a night-audit batch's files and manifest, each on its own
 * clock.
 */
const EXPORT = '/fiscal-document/v1/folios/export';
const STATUS = '/fiscal-document/v1/folios/exports';
const NIGHT_AUDIT = '/fiscal-document/v1/night-audit/exports';
const SOURCE = { sourceKind: 'RESERVATION', sourceId: '100' };

const tx = (id: number, folioId: number, sourceId: number, when: string) => ({
  id, folioId, sourceKind: 'RESERVATION', sourceId, transactionDatetime: when, serviceDate: when.slice(0, 10), internalTransactionCode: '1000',
  internalCodeGroup: 'ROOM_REVENUE_RATE', description: `Night ${id}`, quantity: 1, amount: '110.00', currency: 'EUR', posted: true,
});

/** Property 1 (Madrid): reservation 100 with a night on the 21st, reservation 200 in property 2. */
const LEDGER = {
  property: { id: 1, name: 'Hotel Entrega', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test', language: 'en' },
  folios: [{ id: 11, sourceKind: 'RESERVATION', sourceId: 100, name: 'Guest folio' }],
  transactions: [tx(1, 11, 100, '2026-11-21T12:00:00Z'), tx(2, 11, 100, '2026-11-21T20:00:00Z')],
};
const LEDGER_2 = {
  property: { id: 2, name: 'Hotel Dos', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test', language: 'en' },
  folios: [{ id: 21, sourceKind: 'RESERVATION', sourceId: 200, name: 'Other guest' }],
  transactions: [tx(3, 21, 200, '2026-11-21T12:00:00Z')],
};

const auth = (target: TWorld, property = '1') => ({ Authorization: `Bearer ${target.token({ properties: [1, 2] })}`, 'X-Property-Id': property });
const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex');

async function importLedgers(target: TWorld): Promise<void> {
  for (const [property, body] of [['1', LEDGER], ['2', LEDGER_2]] as const) {
    const res = await request(target.url).post('/accounting/v1.0/import').set(auth(target, property)).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}

/** Starts an export (respond-async) and polls its status until it has ended. */
async function completedExport(target: TWorld, body: object = SOURCE, property = '1'): Promise<Record<string, unknown>> {
  const started = await request(target.url).post(EXPORT).set(auth(target, property)).set('Prefer', 'respond-async').send(body);
  expect(started.status).toBe(202);
  return until(async () => {
    const res = await request(target.url).get(`${STATUS}/${started.body.exportId}`).set(auth(target, property));
    return ['completed', 'failed'].includes(res.body.status) ? (res.body as Record<string, unknown>) : undefined;
  }, 60_000, 'the export to end');
}

/** GET of a download link with no Authorization and no X-Property-Id. */
const fetchLink = (target: TWorld, url: string) => request(target.url).get(url).buffer(true).parse(binaryBody);

describe('download links with the folder driver', () => {
  let world: TWorld;
  beforeAll(async () => {
    world = await createWorld({ env: { EXPORT_LINK_TTL_SECONDS: '120' } });
    await importLedgers(world);
  });
  afterAll(async () => world?.close());

  it('puts a link valid EXPORT_LINK_TTL_SECONDS from the read in the status, and the link fetches the exact file without the JWT', async () => {
    const done = await completedExport(world);
    expect(done.status).toBe('completed');
    const before = Math.floor(Date.now() / 1000);
    const res = await request(world.url).get(`${STATUS}/${done.exportId}`).set(auth(world));
    const after = Math.floor(Date.now() / 1000);
    const expires = Math.floor(Date.parse(res.body.downloadUrlExpiresAt) / 1000);
    expect(expires).toBeGreaterThanOrEqual(before + 120);
    expect(expires).toBeLessThanOrEqual(after + 120);
    expect(res.body.downloadUrlExpiresAt).toBe(new Date(expires * 1000).toISOString());
    const signature = linkSignature(world.config.EXPORT_LINK_KEY, String(done.exportId), expires);
    expect(res.body.downloadUrl).toBe(`${STATUS}/${done.exportId}/file?expires=${expires}&signature=${signature}`);
    // Kept EXPORT_RETENTION_SECONDS (default 259200) from completion.
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.completedAt)).toBe(259_200_000);

    const file = await fetchLink(world, res.body.downloadUrl);
    expect(file.status).toBe(200);
    expect(file.headers['x-export-id']).toBe(done.exportId);
    expect(sha256(file.body as Buffer)).toBe(res.body.sha256);
    expect((file.body as Buffer).length).toBe(res.body.size);
  });

  it('refuses a tampered, an expired or a moved link with 403 ACCESS_DENIED, even with a JWT along', async () => {
    const done = await completedExport(world);
    const other = await completedExport(world, { ...SOURCE, format: 'XLSX' });
    expect(other.exportId).not.toBe(done.exportId);
    const status = await request(world.url).get(`${STATUS}/${done.exportId}`).set(auth(world));
    const url = new URL(status.body.downloadUrl as string, 'http://api.invalid');
    const expires = url.searchParams.get('expires')!;
    const signature = url.searchParams.get('signature')!;
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    const past = Math.floor(Date.now() / 1000) - 1;
    const links = {
      tampered: `${STATUS}/${done.exportId}/file?expires=${expires}&signature=${flipped}`,
      'expiry moved': `${STATUS}/${done.exportId}/file?expires=${Number(expires) + 60}&signature=${signature}`,
      expired: `${STATUS}/${done.exportId}/file?expires=${past}&signature=${linkSignature(world.config.EXPORT_LINK_KEY, String(done.exportId), past)}`,
      'another export': `${STATUS}/${other.exportId}/file?expires=${expires}&signature=${signature}`,
      'signature alone': `${STATUS}/${done.exportId}/file?signature=${signature}`,
    };
    for (const [what, link] of Object.entries(links)) {
      const res = await fetchLink(world, link);
      expect([what, res.status, res.body.errorCode]).toEqual([what, 403, 'ACCESS_DENIED']);
    }
    const withJwt = await request(world.url).get(links.tampered).set(auth(world));
    expect([withJwt.status, withJwt.body.errorCode]).toEqual([403, 'ACCESS_DENIED']);
  });

  it('keeps the JWT way: X-Property-Id required, another property gets 404', async () => {
    const done = await completedExport(world);
    const file = await request(world.url).get(`${STATUS}/${done.exportId}/file`).set(auth(world)).buffer(true).parse(binaryBody);
    expect(file.status).toBe(200);
    expect(sha256(file.body as Buffer)).toBe(done.sha256);
    expect((await request(world.url).get(`${STATUS}/${done.exportId}/file`).set(auth(world, '2'))).status).toBe(404);
    const noProperty = await request(world.url).get(`${STATUS}/${done.exportId}/file`).set({ Authorization: auth(world).Authorization });
    expect([noProperty.status, noProperty.body.fieldErrors]).toEqual([400, [{ path: 'X-Property-Id', message: 'is required' }]]);
    const noJwt = await request(world.url).get(`${STATUS}/${done.exportId}/file`).set('X-Property-Id', '1');
    expect([noJwt.status, noJwt.body.errorCode]).toEqual([401, 'UNAUTHENTICATED']);
  });

  it("ends a link at the file's retention end when that comes first, and gives none once the file is due", async () => {
    const done = await completedExport(world);
    // The file goes in 30.5 s, before the link's 120 s would end: the link ends on that whole second.
    const soon = await world.pool.query<{ expires_at: Date }>(
      `UPDATE exports SET expires_at = date_trunc('second', now()) + interval '30.5 seconds' WHERE id = $1 RETURNING expires_at`,
      [done.exportId],
    );
    const retentionEnd = Math.floor(soon.rows[0]!.expires_at.getTime() / 1000);
    const res = await request(world.url).get(`${STATUS}/${done.exportId}`).set(auth(world));
    expect(res.body.expiresAt).toBe(soon.rows[0]!.expires_at.toISOString());
    expect(res.body.downloadUrlExpiresAt).toBe(new Date(retentionEnd * 1000).toISOString());
    const signature = linkSignature(world.config.EXPORT_LINK_KEY, String(done.exportId), retentionEnd);
    expect(res.body.downloadUrl).toBe(`${STATUS}/${done.exportId}/file?expires=${retentionEnd}&signature=${signature}`);

    // Past its retention, not swept yet: still completed, but no link.
    await world.pool.query(`UPDATE exports SET expires_at = now() - interval '1 second' WHERE id = $1`, [done.exportId]);
    const due = await request(world.url).get(`${STATUS}/${done.exportId}`).set(auth(world));
    expect([due.body.status, due.body.downloadUrl, due.body.downloadUrlExpiresAt]).toEqual(['completed', undefined, undefined]);
  });

  it('answers 410 EXPORT_EXPIRED for a file the retention sweep deletes between the lookup and the read', async () => {
    const done = await completedExport(world);
    const status = await request(world.url).get(`${STATUS}/${done.exportId}`).set(auth(world));
    const link = status.body.downloadUrl as string;
    await world.pool.query(`UPDATE exports SET expires_at = now() - interval '1 second' WHERE id = $1`, [done.exportId]);
    const storage = new FsStorage(world.config.STORAGE_DIR);
    const answers: Array<[number, string]> = [];
    // The sweep's own step (ExportStore.expireDue): each object is deleted, then the rows turn
    // expired when its transaction commits. The file is asked for in between, by JWT and by link:
    // the row still says completed, the object is gone.
    const { rows } = await world.pool.query<{ object_key: string }>('SELECT object_key FROM exports WHERE id = $1', [done.exportId]);
    await new ExportStore(world.pool).expireDue(async (key) => {
      await storage.delete(key);
      // Another test's export may be due too: only this one's file is asked for.
      if (key !== rows[0]!.object_key) return;
      const byJwt = await request(world.url).get(`${STATUS}/${done.exportId}/file`).set(auth(world));
      const byLink = await fetchLink(world, link);
      answers.push([byJwt.status, byJwt.body.errorCode], [byLink.status, byLink.body.errorCode]);
    });
    expect(answers).toEqual([[410, 'EXPORT_EXPIRED'], [410, 'EXPORT_EXPIRED']]);
    const after = await request(world.url).get(`${STATUS}/${done.exportId}/file`).set(auth(world));
    expect([after.status, after.body.errorCode]).toEqual([410, 'EXPORT_EXPIRED']);
  });

  it('refuses a link once it expires (EXPORT_LINK_TTL_SECONDS=1)', async () => {
    const short = await createWorld({ env: { EXPORT_LINK_TTL_SECONDS: '1' } });
    try {
      await importLedgers(short);
      const done = await completedExport(short);
      const status = await request(short.url).get(`${STATUS}/${done.exportId}`).set(auth(short));
      const link = status.body.downloadUrl as string;
      const expiresAt = Date.parse(status.body.downloadUrlExpiresAt as string);
      // Polls until the clock has passed the expiry; the link then answers 403 for good.
      await until(async () => Date.now() > expiresAt, 5_000, 'the link to expire');
      const res = await fetchLink(short, link);
      expect([res.status, res.body.errorCode]).toEqual([403, 'ACCESS_DENIED']);
    } finally {
      await short.close();
    }
  });
});

describe('download links with the MinIO driver (an S3 server)', () => {
  let s3: TProvisioned;
  let world: TWorld;
  let publicHost: string;

  beforeAll(async () => {
    s3 = await provisionServices({ env: process.env, mode: 'ephemeral', need: { s3: true } });
    const endpoint = new URL(s3.env.MINIO_ENDPOINT ?? process.env.MINIO_ENDPOINT!);
    // The same server under another name: the link must name the public one and still work.
    const publicEndpoint = new URL(endpoint);
    publicEndpoint.hostname = endpoint.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
    publicHost = publicEndpoint.host;
    world = await createWorld({
      env: {
        STORAGE_DRIVER: 'minio',
        MINIO_ENDPOINT: endpoint.origin,
        MINIO_PUBLIC_ENDPOINT: publicEndpoint.origin,
        MINIO_ACCESS_KEY: s3.env.MINIO_ACCESS_KEY ?? process.env.MINIO_ACCESS_KEY!,
        MINIO_SECRET_KEY: s3.env.MINIO_SECRET_KEY ?? process.env.MINIO_SECRET_KEY!,
        MINIO_BUCKET: `fvt-${randomBytes(4).toString('hex')}`,
        // A bucket outside us-east-1: uploads and links are signed for this region.
        MINIO_REGION: 'eu-west-3',
      },
    });
    await importLedgers(world);
  });
  afterAll(async () => {
    await world?.close();
    await s3?.stop();
  });

  it('answers a presigned GET on MINIO_PUBLIC_ENDPOINT that a plain fetch downloads', async () => {
    const done = await completedExport(world);
    const res = await request(world.url).get(`${STATUS}/${done.exportId}`).set(auth(world));
    const link = new URL(res.body.downloadUrl as string);
    expect(link.host).toBe(publicHost);
    expect(link.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(link.searchParams.get('X-Amz-Credential')).toMatch(/^[^/]+\/\d{8}\/eu-west-3\/s3\/aws4_request$/);
    const file = await fetch(link);
    expect(file.status).toBe(200);
    const body = Buffer.from(await file.arrayBuffer());
    expect(sha256(body)).toBe(res.body.sha256);
    expect(body.length).toBe(res.body.size);
  });

  it("ends a presigned link at the file's retention end when that comes first", async () => {
    const done = await completedExport(world);
    const soon = await world.pool.query<{ expires_at: Date }>(
      `UPDATE exports SET expires_at = date_trunc('second', now()) + interval '30.5 seconds' WHERE id = $1 RETURNING expires_at`,
      [done.exportId],
    );
    const retentionEnd = Math.floor(soon.rows[0]!.expires_at.getTime() / 1000);
    const res = await request(world.url).get(`${STATUS}/${done.exportId}`).set(auth(world));
    const link = new URL(res.body.downloadUrl as string);
    const signedAt = Date.parse(link.searchParams.get('X-Amz-Date')!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z')) / 1000;
    expect(signedAt + Number(link.searchParams.get('X-Amz-Expires'))).toBe(retentionEnd);
    expect(res.body.downloadUrlExpiresAt).toBe(new Date(retentionEnd * 1000).toISOString());
    expect((await fetch(link)).status).toBe(200);
  });
});

describe('retention', () => {
  let world: TWorld;
  const objectPath = (key: string) => join(resolve(world.config.STORAGE_DIR), key);

  beforeAll(async () => {
    world = await createWorld({ env: { EXPORT_RETENTION_SECONDS: '1', RETENTION_SWEEP_SECONDS: '1', WORKER_HEALTH_PORT: 'ephemeral' } });
    await importLedgers(world);
  });
  afterAll(async () => world?.close());

  async function deletedCount(kind: string): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${world.worker!.healthPort}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`retention_sweep_deleted_total{kind="${kind}"}`));
    return line ? Number(line.split(' ')[1]) : 0;
  }

  it('deletes an export past EXPORT_RETENTION_SECONDS: expired status, 410, and the same request renders anew', async () => {
    const done = await completedExport(world);
    expect(done.status).toBe('completed');
    const { rows } = await world.pool.query<{ object_key: string }>('SELECT object_key FROM exports WHERE id = $1', [done.exportId]);
    const key = rows[0]!.object_key;
    expect(existsSync(objectPath(key))).toBe(true);
    expect(Date.parse(String(done.expiresAt)) - Date.parse(String(done.completedAt))).toBe(1000);

    const expired = await until(async () => {
      const res = await request(world.url).get(`${STATUS}/${done.exportId}`).set(auth(world));
      return res.body.status === 'expired' ? res.body : undefined;
    }, 30_000, 'the export to expire');
    expect(existsSync(objectPath(key))).toBe(false);
    expect(expired.expiresAt).toBe(done.expiresAt);
    expect(expired).not.toHaveProperty('downloadUrl');
    expect(expired).not.toHaveProperty('downloadUrlExpiresAt');
    expect(expired).not.toHaveProperty('fileUrl');
    expect(await deletedCount('export')).toBeGreaterThanOrEqual(1);

    const gone = await request(world.url).get(`${STATUS}/${done.exportId}/file`).set(auth(world));
    expect([gone.status, gone.body.errorCode]).toEqual([410, 'EXPORT_EXPIRED']);

    const again = await request(world.url).post(EXPORT).set(auth(world)).send(SOURCE).buffer(true).parse(binaryBody);
    expect(again.status).toBe(200);
    const newId = again.headers['x-export-id'] as string;
    expect(newId).not.toBe(done.exportId);
    expect((again.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
    const stored = await world.pool.query<{ sha256: string }>('SELECT sha256 FROM exports WHERE id = $1', [newId]);
    expect(sha256(again.body as Buffer)).toBe(stored.rows[0]!.sha256);
  });

  it('keeps night-audit files past EXPORT_RETENTION_SECONDS and deletes files and manifest past their own expiry', async () => {
    const started = await request(world.url).post(NIGHT_AUDIT).set(auth(world)).send({ businessDate: '2026-11-21' });
    expect(started.status).toBe(202);
    const batchId = started.body.batchId as string;
    const finished = await until(async () => {
      const res = await request(world.url).get(`${NIGHT_AUDIT}/${batchId}`).set(auth(world));
      return res.body.status === 'completed' ? res.body : undefined;
    }, 60_000, 'the batch to finish');
    const manifestKey = finished.manifestKey as string;
    const fileKey = 'night-audit/1/2026-11-21/RESERVATION-100.pdf';
    expect(manifestKey).toBe('night-audit/1/2026-11-21/manifest.json');
    const days = (Date.parse(finished.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(399.99);
    expect(days).toBeLessThanOrEqual(400);

    // An on-demand export expiring proves sweeps ran since the batch finished: it is untouched.
    const done = await completedExport(world, { ...SOURCE, format: 'XLSX' });
    await until(async () => {
      const res = await request(world.url).get(`${STATUS}/${done.exportId}`).set(auth(world));
      return res.body.status === 'expired';
    }, 30_000, 'the export to expire');
    expect((await request(world.url).get(`${NIGHT_AUDIT}/${batchId}`).set(auth(world))).body.status).toBe('completed');
    expect([existsSync(objectPath(fileKey)), existsSync(objectPath(manifestKey))]).toEqual([true, true]);

    // NIGHT_AUDIT_RETENTION_DAYS has passed for this batch.
    await world.pool.query(`UPDATE night_audit_batches SET expires_at = now() - interval '1 second' WHERE id = $1`, [batchId]);
    const expired = await until(async () => {
      const res = await request(world.url).get(`${NIGHT_AUDIT}/${batchId}`).set(auth(world));
      return res.body.status === 'expired' ? res.body : undefined;
    }, 30_000, 'the batch to expire');
    expect(expired).toMatchObject({ batchId, status: 'expired', manifestKey: null, total: 1, completed: 1, failed: 0 });
    expect([existsSync(objectPath(fileKey)), existsSync(objectPath(manifestKey))]).toEqual([false, false]);
    expect(await deletedCount('night_audit_file')).toBe(1);
    expect(await deletedCount('night_audit_manifest')).toBe(1);
  });

  it("keeps the date's manifest while the other format's batch of that date is alive", async () => {
    const run = async (format: 'PDF' | 'XLSX') => {
      const started = await request(world.url).post(NIGHT_AUDIT).set(auth(world)).send({ businessDate: '2026-11-21', format });
      expect(started.status).toBe(202);
      const id = started.body.batchId as string;
      await until(async () => (await request(world.url).get(`${NIGHT_AUDIT}/${id}`).set(auth(world))).body.status === 'completed', 60_000, `the ${format} batch`);
      return id;
    };
    const [pdf, xlsx] = [await run('PDF'), await run('XLSX')];
    const manifest = objectPath('night-audit/1/2026-11-21/manifest.json');
    const expire = async (id: string) => {
      await world.pool.query(`UPDATE night_audit_batches SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
      await until(async () => (await request(world.url).get(`${NIGHT_AUDIT}/${id}`).set(auth(world))).body.status === 'expired', 30_000, 'the batch to expire');
    };
    await expire(pdf);
    expect([existsSync(objectPath('night-audit/1/2026-11-21/RESERVATION-100.pdf')), existsSync(objectPath('night-audit/1/2026-11-21/RESERVATION-100.xlsx')), existsSync(manifest)]).toEqual([
      false, true, true,
    ]);
    await expire(xlsx);
    expect([existsSync(objectPath('night-audit/1/2026-11-21/RESERVATION-100.xlsx')), existsSync(manifest)]).toEqual([false, false]);
  });
});
