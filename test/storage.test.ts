import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionServices, type TProvisioned } from '@folio-vault/dev-services/provision';
import { FsStorage } from '@folio-vault/shared/storage/fs-storage';
import { MinioStorage } from '@folio-vault/shared/storage/minio-storage';
import type { ObjectStorage } from '@folio-vault/shared/storage/object-storage';

/**
 * Both storage drivers behind the one interface, the MinIO driver against a real S3-protocol
 * server from the provisioning module (MINIO_ENDPOINT, else MinIO by testcontainers, else s3rver).
 */
let s3: TProvisioned;
const drivers: Array<[string, () => ObjectStorage]> = [];

beforeAll(async () => {
  s3 = await provisionServices({ env: process.env, mode: 'ephemeral', need: { s3: true } });
  const endpoint = s3.env.MINIO_ENDPOINT ?? process.env.MINIO_ENDPOINT!;
  const bucket = `fvt-${randomBytes(4).toString('hex')}`;
  drivers.push(
    ['fs', () => new FsStorage(mkdtempSync(join(tmpdir(), 'fv-objects-')))],
    [
      'minio',
      () =>
        new MinioStorage({
          endpoint,
          accessKey: s3.env.MINIO_ACCESS_KEY ?? process.env.MINIO_ACCESS_KEY!,
          secretKey: s3.env.MINIO_SECRET_KEY ?? process.env.MINIO_SECRET_KEY!,
          bucket,
        }),
    ],
  );
});
afterAll(async () => s3?.stop());

describe.each(['fs', 'minio'])('%s storage', (name) => {
  const storage = () => drivers.find(([driver]) => driver === name)![1]();

  it('answers ping, stores an object with size and sha256, and reads it back', async () => {
    const store = storage();
    await store.ping();
    const body = Buffer.from(`folio ${'€'.repeat(1000)}`);
    const stored = await store.put('exports/1/folio-RESERVATION-7.pdf', body, 'application/pdf');
    expect(stored).toEqual({ key: 'exports/1/folio-RESERVATION-7.pdf', size: body.length, sha256: createHash('sha256').update(body).digest('hex') });
    expect(await store.size(stored.key)).toBe(body.length);
    expect(await text(await store.get(stored.key))).toBe(body.toString());
  });

  it('rewrites the same key whole (a re-run replaces, never duplicates)', async () => {
    const store = storage();
    await store.put('night-audit/1/2026-11-21/RESERVATION-1.pdf', Buffer.from('first version, longer'), 'application/pdf');
    await store.put('night-audit/1/2026-11-21/RESERVATION-1.pdf', Buffer.from('second'), 'application/pdf');
    expect(await text(await store.get('night-audit/1/2026-11-21/RESERVATION-1.pdf'))).toBe('second');
  });

  it('answers undefined for the size of a missing object', async () => {
    expect(await storage().size('exports/none.pdf')).toBeUndefined();
  });

  it.each(['../etc/passwd', '/abs', 'a//b', 'a/../b', ''])('refuses the unsafe key %j', async (key) => {
    await expect(storage().put(key, Buffer.from('x'), 'text/plain')).rejects.toThrow(/not allowed/);
  });
});
