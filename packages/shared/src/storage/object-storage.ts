// Object storage behind one interface (docs/settings.md): a folder by default, MinIO/S3 when
// STORAGE_DRIVER=minio. Bodies are uploaded with a known length: s3rver, the S3 server used where
// Docker is missing, lacks the multipart listing that unknown-length streams need.

import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';

/** An object as stored: its key, size and sha256 (hex). */
export interface TStoredObject {
  key: string;
  size: number;
  sha256: string;
}

export interface ObjectStorage {
  readonly driver: 'fs' | 'minio';
  /** Resolves when the store answers; rejects with a reason otherwise (used by /readyz). */
  ping(): Promise<void>;
  put(key: string, body: Buffer, contentType: string): Promise<TStoredObject>;
  /**
   * Uploads the file at `path` (its length known from the file system) as a stream: a rendered
   * export reaches the store without being held whole in memory. The file is left where it is.
   */
  putFile(key: string, path: string, contentType: string): Promise<TStoredObject>;
  /** Deletes the object; no error when there is none. */
  delete(key: string): Promise<void>;
  /**
   * A URL that fetches the object without credentials for `seconds` (MinIO presigns it, on the host
   * of MINIO_PUBLIC_ENDPOINT when set); undefined for a store that cannot presign (the folder driver:
   * the API signs its own file path instead, docs/export.md#download-links). The link is signed
   * as of `from` (now when absent, to the second): it works until `from` + `seconds`.
   */
  presignedGet(key: string, seconds: number, filename: string, from?: Date): Promise<string | undefined>;
  /** The object's bytes; rejects with ObjectMissingError when there is no such object. */
  get(key: string): Promise<Readable>;
  /** Size in bytes, or undefined when there is no such object. */
  size(key: string): Promise<number | undefined>;
}

/**
 * The store could not take an object. Its message is one sentence fit for an export's status (no
 * driver text, address or path); the driver's error stays in `cause`, for the log.
 */
export class StorageWriteError extends Error {
  constructor(cause: unknown) {
    super('The file could not be written to object storage.', { cause });
    this.name = 'StorageWriteError';
  }
}

/**
 * A read found no object under the key: it was deleted (the retention sweep) or never stored. Apart
 * from a store that cannot answer, which is a fault to retry.
 */
export class ObjectMissingError extends Error {
  constructor(key: string, cause?: unknown) {
    super(`There is no object ${key}.`, { cause });
    this.name = 'ObjectMissingError';
  }
}

/** A digest reads this much at a time: a typical export (tens of kB) in one read, never a large file whole. */
const DIGEST_READ_BYTES = 256 * 1024;

/**
 * sha256 (hex) and size of a file, read in bounded pieces through one file handle (a read stream
 * would cost a small export several times the reads' own time in stream machinery).
 */
export async function digestFile(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(DIGEST_READ_BYTES);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      size += bytesRead;
    }
  } finally {
    await file.close();
  }
  return { size, sha256: hash.digest('hex') };
}

export function assertSafeKey(key: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,500}$/.test(key) || key.includes('..') || key.includes('//')) {
    throw new Error(`object key is not allowed: ${key}`);
  }
}
