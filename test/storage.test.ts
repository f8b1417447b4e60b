import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer, text } from 'node:stream/consumers';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionServices, type TProvisioned } from '@folio-vault/dev-services/provision';
import { FsStorage } from '@folio-vault/shared/storage/fs-storage';
import { MinioStorage } from '@folio-vault/shared/storage/minio-storage';
import { ObjectMissingError, type ObjectStorage } from '@folio-vault/shared/storage/object-storage';

/**
 * Both storage drivers behind the one interface, the MinIO driver against a real S3-protocol
 * server from the provisioning module (MINIO_ENDPOINT, else MinIO by testcontainers, else s3rver).
 */
let s3: TProvisioned;
let minioSettings: ConstructorParameters<typeof MinioStorage>[0];
const drivers: Array<[string, () => ObjectStorage]> = [];

beforeAll(async () => {
  s3 = await provisionServices({ env: process.env, mode: 'ephemeral', need: { s3: true } });
  const endpoint = s3.env.MINIO_ENDPOINT ?? process.env.MINIO_ENDPOINT!;
  const bucket = `fvt-${randomBytes(4).toString('hex')}`;
  minioSettings = {
    endpoint,
    accessKey: s3.env.MINIO_ACCESS_KEY ?? process.env.MINIO_ACCESS_KEY!,
    secretKey: s3.env.MINIO_SECRET_KEY ?? process.env.MINIO_SECRET_KEY!,
    bucket,
  };
  drivers.push(['fs', () => new FsStorage(mkdtempSync(join(tmpdir(), 'fv-objects-')))], ['minio', () => new MinioStorage(minioSettings)]);
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

  it('uploads a file by path (putFile): size and sha256 of the file, the same bytes read back, the file left in place', async () => {
    const store = storage();
    // Larger than a stream's 64 kB chunk, so the upload and the digest both take several reads.
    const body = randomBytes(300_000);
    const file = join(mkdtempSync(join(tmpdir(), 'fv-putfile-')), 'rendered.pdf');
    writeFileSync(file, body);
    const stored = await store.putFile('exports/1/streamed.pdf', file, 'application/pdf');
    expect(stored).toEqual({ key: 'exports/1/streamed.pdf', size: 300_000, sha256: createHash('sha256').update(body).digest('hex') });
    expect(await store.size('exports/1/streamed.pdf')).toBe(300_000);
    expect((await buffer(await store.get('exports/1/streamed.pdf'))).equals(body)).toBe(true);
    expect(readFileSync(file).equals(body)).toBe(true);
  });

  it('keeps a putFile object whole once its source file is removed, and makes a missing folder for it', async () => {
    const store = storage();
    const body = randomBytes(40_000);
    const file = join(mkdtempSync(join(tmpdir(), 'fv-putfile-')), 'rendered.pdf');
    writeFileSync(file, body);
    const stored = await store.putFile('exports/fresh-folder/deep/linked.pdf', file, 'application/pdf');
    rmSync(file);
    expect(stored).toEqual({ key: 'exports/fresh-folder/deep/linked.pdf', size: 40_000, sha256: createHash('sha256').update(body).digest('hex') });
    expect((await buffer(await store.get('exports/fresh-folder/deep/linked.pdf'))).equals(body)).toBe(true);
  });

  it('deletes an object (its size is then undefined) and deleting a missing key is no error', async () => {
    const store = storage();
    await store.put('exports/1/to-delete.pdf', Buffer.from('gone soon'), 'application/pdf');
    expect(await store.size('exports/1/to-delete.pdf')).toBe(9);
    await store.delete('exports/1/to-delete.pdf');
    expect(await store.size('exports/1/to-delete.pdf')).toBeUndefined();
    await expect(store.delete('exports/1/to-delete.pdf')).resolves.toBeUndefined();
    await expect(store.delete('exports/1/never-there.pdf')).resolves.toBeUndefined();
  });

  it('rejects the read of a missing object with ObjectMissingError (a deleted file, not a store that is down)', async () => {
    await expect(storage().get('exports/1/never-stored.pdf')).rejects.toBeInstanceOf(ObjectMissingError);
  });

  it.each(['../etc/passwd', '/abs', 'a//b', 'a/../b', ''])('refuses the unsafe key %j', async (key) => {
    await expect(storage().put(key, Buffer.from('x'), 'text/plain')).rejects.toThrow(/not allowed/);
  });
});

describe('presigned links', () => {
  it('the folder driver cannot presign: undefined (the API signs its own path instead)', async () => {
    const store = drivers.find(([driver]) => driver === 'fs')![1]();
    await store.put('exports/1/signed.pdf', Buffer.from('x'), 'application/pdf');
    expect(await store.presignedGet('exports/1/signed.pdf', 60, 'folio.pdf')).toBeUndefined();
  });

  it('the S3 driver presigns a URL whose plain GET (no credentials) answers the bytes', async () => {
    const store = drivers.find(([driver]) => driver === 'minio')![1]();
    const body = randomBytes(70_000);
    await store.put('exports/1/presigned.pdf', body, 'application/pdf');
    const url = await store.presignedGet('exports/1/presigned.pdf', 60, 'folio-RESERVATION-7.pdf');
    expect(new URL(url!).origin).toBe(new URL(minioSettings.endpoint).origin);
    expect(new URL(url!).searchParams.get('X-Amz-Expires')).toBe('60');
    const res = await fetch(url!);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
  });

  it('with a public endpoint the presigned URL names that host, not the one the worker uploads to', async () => {
    const store = new MinioStorage({ ...minioSettings, publicEndpoint: 'https://files.folio-vault.example:8443' });
    const url = new URL((await store.presignedGet('exports/1/presigned.pdf', 300, 'folio.pdf'))!);
    expect(url.origin).toBe('https://files.folio-vault.example:8443');
    expect(url.pathname).toBe(`/${minioSettings.bucket}/exports/1/presigned.pdf`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('response-content-disposition')).toBe('attachment; filename="folio.pdf"');
  });
});

describe('a bucket in another region (MINIO_REGION)', () => {
  it('uploads, and presigns a URL signed for that region that a plain GET downloads', async () => {
    const store = new MinioStorage({ ...minioSettings, bucket: `fvt-${randomBytes(4).toString('hex')}`, region: 'eu-west-3' });
    const body = randomBytes(20_000);
    const file = join(mkdtempSync(join(tmpdir(), 'fv-region-')), 'rendered.pdf');
    writeFileSync(file, body);
    await store.putFile('exports/1/regional.pdf', file, 'application/pdf');
    const url = new URL((await store.presignedGet('exports/1/regional.pdf', 60, 'folio.pdf'))!);
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^[^/]+\/\d{8}\/eu-west-3\/s3\/aws4_request$/);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
  });

  it('signs a link from the instant it is given: X-Amz-Date is that second and X-Amz-Expires counts from it', async () => {
    const store = new MinioStorage(minioSettings);
    const from = new Date('2026-11-27T23:10:05.000Z');
    const url = new URL((await store.presignedGet('exports/1/presigned.pdf', 42, 'folio.pdf', from))!);
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261127T231005Z');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('42');
  });
});
