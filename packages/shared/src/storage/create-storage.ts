import type { TConfig } from '../config.js';
import { FsStorage } from './fs-storage.js';
import { MinioStorage } from './minio-storage.js';
import type { ObjectStorage, TStoredObject } from './object-storage.js';
import { inSpan } from '../tracing/spans.js';

/**
 * Every upload a span (docs/operations.md#tracing): the driver, the object's key and, once stored,
 * its size. The API's spans' no-op ones while tracing is off.
 */
function tracedUploads(storage: ObjectStorage): ObjectStorage {
  const upload = (key: string, work: () => Promise<TStoredObject>) =>
    inSpan('storage upload', { 'folio.storage.driver': storage.driver, 'folio.storage.key': key }, async (span) => {
      const stored = await work();
      span.setAttribute('folio.storage.bytes', stored.size);
      return stored;
    });
  return {
    driver: storage.driver,
    ping: () => storage.ping(),
    put: (key, body, contentType) => upload(key, () => storage.put(key, body, contentType)),
    putFile: (key, path, contentType) => upload(key, () => storage.putFile(key, path, contentType)),
    delete: (key) => storage.delete(key),
    presignedGet: (key, seconds, filename, from) => storage.presignedGet(key, seconds, filename, from),
    get: (key) => storage.get(key),
    size: (key) => storage.size(key),
  };
}

export function createStorage(config: TConfig): ObjectStorage {
  return tracedUploads(driverOf(config));
}

function driverOf(config: TConfig): ObjectStorage {
  if (config.STORAGE_DRIVER === 'minio') {
    return new MinioStorage({
      endpoint: config.MINIO_ENDPOINT!,
      publicEndpoint: config.MINIO_PUBLIC_ENDPOINT,
      accessKey: config.MINIO_ACCESS_KEY!,
      secretKey: config.MINIO_SECRET_KEY!,
      bucket: config.MINIO_BUCKET,
      region: config.MINIO_REGION,
    });
  }
  return new FsStorage(config.STORAGE_DIR);
}
