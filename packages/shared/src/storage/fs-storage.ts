import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, constants, copyFile, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { assertSafeKey, digestFile, StorageWriteError, type ObjectStorage, type TStoredObject } from './object-storage.js';

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

  async putFile(key: string, path: string, _contentType: string): Promise<TStoredObject> {
    await this.replace(key, (temp) => copyFile(path, temp));
    return { key, ...(await digestFile(path)) };
  }

  /** Write then rename: a reader never sees half a file, and a re-run replaces it whole. */
  private async replace(key: string, write: (temp: string) => Promise<void>): Promise<void> {
    const target = this.path(key);
    const temp = `${target}.${randomUUID()}.tmp`;
    try {
      await mkdir(dirname(target), { recursive: true });
      await write(temp);
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

  async get(key: string): Promise<Readable> {
    const path = this.path(key);
    await access(path, constants.R_OK);
    return createReadStream(path);
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await stat(this.path(key))).size;
    } catch {
      return undefined;
    }
  }
}
