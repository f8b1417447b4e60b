// A key check value (KCV): the first 3 bytes of AES-256-ECB(key, 16 zero bytes), in hex — what a key
// ceremony compares to know two custodians rebuilt the same key without showing it (ANSI X9.24).
// Six hex digits say nothing usable about the key.

import { createCipheriv } from 'node:crypto';

export function checkValue(key: Buffer): string {
  const cipher = createCipheriv('aes-256-ecb', key, null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(Buffer.alloc(16)), cipher.final()]).subarray(0, 3).toString('hex');
}
