import type { TConfig } from '../config.js';
import { FsStorage } from './fs-storage.js';
import { MinioStorage } from './minio-storage.js';
import type { ObjectStorage } from './object-storage.js';

export function createStorage(config: TConfig): ObjectStorage {
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
