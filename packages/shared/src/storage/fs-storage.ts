import { createHash, randomUUID } from 'node:crypto';
import { access, constants, copyFile, link, mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { assertSafeKey, digestFile, ObjectMissingError, StorageWriteError, type ObjectStorage, type TStoredObject } from './object-storage.js';

/** A hard link where the file system allows one (same device, links supported), a copy otherwise. */
async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EMLINK') throw error;
    await copyFile(from, to);
  }
}

export class FsStorage implements ObjectStorage {
  readonly driver = 'fs' as const;
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    assertSafeKey(key);
    return join(this.root, key);
  }

  async ping(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    await access(this.root, constants.W_OK);
  }

  async put(key: string, body: Buffer, _contentType: string): Promise<TStoredObject> {
    await this.replace(key, (temp) => writeFile(temp, body));
    return { key, size: body.length, sha256: createHash('sha256').update(body).digest('hex') };
  }

  /**
   * The object is a hard link to the file when both sit on one file system (no byte is copied), a
   * copy otherwise. The file is left in place either way; a rendered export's temp file is never
   * written again once uploaded (apps/worker/src/exports/folio-exporter.ts removes it).
   */
  async putFile(key: string, path: string, _contentType: string): Promise<TStoredObject> {
    const digest = await digestFile(path);
    await this.replace(key, (temp) => linkOrCopy(path, temp));
    return { key, ...digest };
  }

  /**
   * Write then rename: a reader never sees half a file, and a re-run replaces it whole. The key's
   * folder is made only when the write finds it missing (a recursive mkdir before every write would
   * cost several system calls an export, for a folder that exists but the first time).
   */
  private async replace(key: string, write: (temp: string) => Promise<void>): Promise<void> {
    const target = this.path(key);
    const temp = `${target}.${randomUUID()}.tmp`;
    try {
      await write(temp).catch(async (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        await mkdir(dirname(target), { recursive: true });
        await write(temp);
      });
      await rename(temp, target);
    } catch (error) {
      // The temp file may not exist, or its folder may be the very problem: the write's error wins.
      await rm(temp, { force: true }).catch(() => undefined);
      throw new StorageWriteError(error);
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async presignedGet(): Promise<string | undefined> {
    return undefined;
  }

  /** Opens the file first, so a missing object fails here (ENOENT), not in the middle of an answer. */
  async get(key: string): Promise<Readable> {
    const file = await open(this.path(key), 'r').catch((error: unknown) => {
      throw (error as NodeJS.ErrnoException).code === 'ENOENT' ? new ObjectMissingError(key, error) : error;
    });
    return file.createReadStream();
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await stat(this.path(key))).size;
    } catch {
      return undefined;
    }
  }
}
