import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Client } from 'minio';
import { assertSafeKey, StorageWriteError, type ObjectStorage, type TStoredObject } from './object-storage.js';

export interface TMinioSettings {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
}

export class MinioStorage implements ObjectStorage {
  readonly driver = 'minio' as const;
  private readonly client: Client;
  private readonly bucket: string;
  private bucketReady?: Promise<void>;

  constructor(settings: TMinioSettings) {
    const url = new URL(settings.endpoint);
    this.client = new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
      useSSL: url.protocol === 'https:',
      accessKey: settings.accessKey,
      secretKey: settings.secretKey,
      pathStyle: true,
    });
    this.bucket = settings.bucket;
  }

  private ensureBucket(): Promise<void> {
    this.bucketReady ??= (async () => {
      if (!(await this.client.bucketExists(this.bucket))) {
        await this.client.makeBucket(this.bucket).catch(async (error: unknown) => {
          if (!(await this.client.bucketExists(this.bucket))) throw error;
        });
      }
    })().catch((error: unknown) => {
      this.bucketReady = undefined;
      throw error;
    });
    return this.bucketReady;
  }

  async ping(): Promise<void> {
    // A round trip every time: the bucket check is cached for uploads, but readiness must see a
    // store that went away after it.
    if (await this.client.bucketExists(this.bucket)) return;
    this.bucketReady = undefined;
    await this.ensureBucket();
  }

  async put(key: string, body: Buffer, contentType: string): Promise<TStoredObject> {
    assertSafeKey(key);
    try {
      await this.ensureBucket();
      await this.client.putObject(this.bucket, key, body, body.length, { 'Content-Type': contentType });
    } catch (error) {
      throw new StorageWriteError(error);
    }
    return { key, size: body.length, sha256: createHash('sha256').update(body).digest('hex') };
  }

  async get(key: string): Promise<Readable> {
    assertSafeKey(key);
    return this.client.getObject(this.bucket, key);
  }

  async size(key: string): Promise<number | undefined> {
    assertSafeKey(key);
    try {
      return (await this.client.statObject(this.bucket, key)).size;
    } catch {
      return undefined;
    }
  }
}
