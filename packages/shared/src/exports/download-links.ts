import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ObjectStorage } from '../storage/object-storage.js';
import { exportFilePath } from './export-paths.js';

/**
 * Download links (docs/export.md#download-links): a URL that fetches a completed export's file
 * without the JWT until it expires. MinIO presigns a GET on its public host; with the folder driver
 * the link is the API's own file path with `expires` (Unix seconds) and an HMAC-SHA256 `signature`
 * over "<exportId>.<expires>" under EXPORT_LINK_KEY, relative to the API's base URL like statusUrl.
 * The API signs links at every status read; a worker signs the one a webhook carries.
 */
export interface TDownloadLink {
  downloadUrl: string;
  downloadUrlExpiresAt: string;
}

export function linkSignature(linkKey: Buffer, exportId: string, expires: number): string {
  return createHmac('sha256', linkKey).update(`${exportId}.${expires}`).digest('base64url');
}

/** Whether `signature` signs (exportId, expires) and `expires` has not passed at `now`. */
export function checkLinkSignature(linkKey: Buffer, exportId: string, expires: string, signature: string, now = new Date()): 'valid' | 'expired' | 'invalid' {
  if (!/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'invalid';
  const expected = Buffer.from(linkSignature(linkKey, exportId, Number(expires)));
  if (!timingSafeEqual(expected, Buffer.from(signature))) return 'invalid';
  return Number(expires) * 1000 <= now.getTime() ? 'expired' : 'valid';
}

export async function downloadLink(
  storage: ObjectStorage,
  settings: { linkKey: Buffer; ttlSeconds: number },
  file: { exportId: string; objectKey: string; filename: string },
  now = new Date(),
): Promise<TDownloadLink> {
  const expires = Math.floor(now.getTime() / 1000) + settings.ttlSeconds;
  const presigned = await storage.presignedGet(file.objectKey, settings.ttlSeconds, file.filename);
  const downloadUrl = presigned ?? `${exportFilePath(file.exportId)}?expires=${expires}&signature=${linkSignature(settings.linkKey, file.exportId, expires)}`;
  return { downloadUrl, downloadUrlExpiresAt: new Date(expires * 1000).toISOString() };
}
