import { Redis } from 'ioredis';

/**
 * Everything a Redis server holds, as one string: every key, and every value of every string,
 * hash, list, set, sorted set and stream. For checks that something (a secret) is nowhere in it.
 */
export async function dumpRedis(port: number): Promise<string> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
  await redis.connect();
  const parts: string[] = [];
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        parts.push(key);
        const type = await redis.type(key);
        if (type === 'string') parts.push((await redis.get(key)) ?? '');
        else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
        else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
        else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
        else if (type === 'zset') parts.push(JSON.stringify(await redis.zrange(key, 0, -1)));
        else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
      }
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return parts.join('\n');
}
