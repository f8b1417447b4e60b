import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { Client } from 'minio';
import { request } from 'undici';
import { assertSafeKey, digestFile, ObjectMissingError, StorageWriteError, type ObjectStorage, type TStoredObject } from './object-storage.js';

export interface TMinioSettings {
  endpoint: string;
  /** The host clients reach the store on (MINIO_PUBLIC_ENDPOINT); presigned links name it. */
  publicEndpoint?: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  /** The bucket's region (MINIO_REGION); every request and presigned link is signed for it. */
  region?: string;
}

/** S3's region when none is given (MINIO_REGION's default). */
export const DEFAULT_REGION = 'us-east-1';

export class MinioStorage implements ObjectStorage {
  readonly driver = 'minio' as const;
  private readonly client: Client;
  /** Signs links for the public host; presigning is computed locally (the region is given, no call). */
  private readonly publicClient: Client;
  private readonly bucket: string;
  private readonly region: string;
  private bucketReady?: Promise<void>;

  constructor(settings: TMinioSettings) {
    this.region = settings.region ?? DEFAULT_REGION;
    const clientFor = (endpoint: string) => {
      const url = new URL(endpoint);
      return new Client({
        endPoint: url.hostname,
        port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
        useSSL: url.protocol === 'https:',
        accessKey: settings.accessKey,
        secretKey: settings.secretKey,
        pathStyle: true,
        // Given, so the client never asks the store for the bucket's location and signs for it.
        region: this.region,
      });
    };
    this.client = clientFor(settings.endpoint);
    this.publicClient = settings.publicEndpoint ? clientFor(settings.publicEndpoint) : this.client;
    this.bucket = settings.bucket;
  }

  private ensureBucket(): Promise<void> {
    this.bucketReady ??= (async () => {
      if (!(await this.client.bucketExists(this.bucket))) {
        await this.client.makeBucket(this.bucket, this.region).catch(async (error: unknown) => {
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

  async putFile(key: string, path: string, contentType: string): Promise<TStoredObject> {
    assertSafeKey(key);
    try {
      const digest = await digestFile(path);
      await this.ensureBucket();
      // minio-js putObject reads a stream of up to one part (64 MiB) into a Buffer before sending
      // it, so the file is PUT through a presigned URL instead: streamed from disk with its known
      // length, one request (s3rver lacks the multipart listing unknown lengths need).
      const url = await this.client.presignedPutObject(this.bucket, key, 600);
      const answer = await request(url, {
        method: 'PUT',
        body: createReadStream(path),
        headers: { 'content-length': String(digest.size), 'content-type': contentType },
      });
      const text = await answer.body.text();
      if (answer.statusCode < 200 || answer.statusCode > 299) throw new Error(`S3 PUT answered ${answer.statusCode}: ${text.slice(0, 200)}`);
      return { key, ...digest };
    } catch (error) {
      throw new StorageWriteError(error);
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    await this.client.removeObject(this.bucket, key);
  }

  async presignedGet(key: string, seconds: number, filename: string, from?: Date): Promise<string> {
    assertSafeKey(key);
    return this.publicClient.presignedGetObject(
      this.bucket,
      key,
      seconds,
      { 'response-content-disposition': `attachment; filename="${filename}"` },
      from,
    );
  }

  async get(key: string): Promise<Readable> {
    assertSafeKey(key);
    return this.client.getObject(this.bucket, key).catch((error: unknown) => {
      throw isMissing(error) ? new ObjectMissingError(key, error) : error;
    });
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

/** S3's answer for a key (or bucket) that holds no object. */
function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'NoSuchKey' || code === 'NotFound' || code === 'NoSuchBucket';
}
