import { mkdirSync } from 'node:fs';
import type S3rverClass from 's3rver';
import type { TRunningService } from './redis-server.js';

/** Credentials s3rver accepts. */
export const S3RVER_CREDENTIALS = { accessKey: 'S3RVER', secretKey: 'S3RVER' } as const;

export async function startS3Server(options: { dir: string; port: number }): Promise<TRunningService> {
  let S3rver: typeof S3rverClass;
  try {
    S3rver = (await import('s3rver')).default;
  } catch {
    throw new Error('s3rver is not installed (npm ci installs it as a development dependency)');
  }
  mkdirSync(options.dir, { recursive: true });
  const server = new S3rver({ port: options.port, address: '127.0.0.1', silent: true, directory: options.dir });
  await server.run();
  return { url: `http://127.0.0.1:${options.port}`, stop: () => server.close() };
}
