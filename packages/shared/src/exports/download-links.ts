// Download links (docs/export.md#download-links): a URL that fetches a completed export's file
// without the JWT until it expires. MinIO presigns a GET on its public host; with the folder driver
// the link is the API's own file path with `expires` (Unix seconds) and an HMAC-SHA256 `signature`
// over "<exportId>.<expires>" under EXPORT_LINK_KEY, relative to the API's base URL like statusUrl.
// The API signs links at every status read; a worker signs the one a webhook carries.

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ObjectStorage } from '../storage/object-storage.js';
import { exportFilePath } from './export-paths.js';

/** A link's URL and when it stops working (ISO 8601). */
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

/**
 * A link to a completed export's file, valid `ttlSeconds` from `now` or until the file's retention
 * ends (`expiresAt`), whichever comes first: a link never outlives its file. Undefined once the
 * retention has ended (the file is due to the sweep, or already gone). Expiry is whole seconds.
 */
export async function downloadLink(
  storage: ObjectStorage,
  settings: { linkKey: Buffer; ttlSeconds: number },
  file: { exportId: string; objectKey: string; filename: string; expiresAt: Date },
  now = new Date(),
): Promise<TDownloadLink | undefined> {
  const from = Math.floor(now.getTime() / 1000);
  const expires = Math.min(from + settings.ttlSeconds, Math.floor(file.expiresAt.getTime() / 1000));
  if (expires <= from) return undefined;
  const presigned = await storage.presignedGet(file.objectKey, expires - from, file.filename, new Date(from * 1000));
  const downloadUrl = presigned ?? `${exportFilePath(file.exportId)}?expires=${expires}&signature=${linkSignature(settings.linkKey, file.exportId, expires)}`;
  return { downloadUrl, downloadUrlExpiresAt: new Date(expires * 1000).toISOString() };
}
