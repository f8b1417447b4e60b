import { Cluster } from 'ioredis';
import type { TRedisClient } from '@folio-vault/shared/connections';

/**
 * Finds card data in clear in a blob of text. A PAN is looked for as plain digits and in the
 * usual groupings; a CVV only as a whole token (not inside a longer run of digits or base64), as
 * a short number otherwise matches by chance inside any ciphertext or timestamp.
 */
export function findPans(text: string, pans: string[]): string[] {
  const hits: string[] = [];
  for (const pan of pans) {
    const grouped = pan.match(/.{1,4}/g)!;
    const variants = [pan, grouped.join(' '), grouped.join('-')];
    if (variants.some((variant) => text.includes(variant))) hits.push(pan);
  }
  return hits;
}

export function findCvvs(text: string, cvvs: string[]): string[] {
  return cvvs.filter((cvv) => new RegExp(`(?<![A-Za-z0-9+/=_-])${cvv}(?![A-Za-z0-9+/=_-])`).test(text));
}

/** Every key of the Redis database (of every master of a cluster), every type, as text (key names included). */
export async function dumpRedis(client: TRedisClient): Promise<{ text: string; keys: number }> {
  const parts: string[] = [];
  let keys = 0;
  for (const redis of client instanceof Cluster ? client.nodes('master') : [client]) {
    for await (const batch of redis.scanStream({ count: 1000 }) as AsyncIterable<string[]>) {
      for (const key of batch) {
        keys += 1;
        parts.push(key);
        const type = await redis.type(key);
        if (type === 'string') parts.push((await redis.get(key)) ?? '');
        else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
        else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
        else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
        else if (type === 'zset') parts.push(JSON.stringify(await redis.zrange(key, 0, -1)));
        else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
        else parts.push(`<${type}>`);
      }
    }
  }
  return { text: parts.join('\n'), keys };
}
