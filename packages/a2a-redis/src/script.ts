import { createHash } from 'node:crypto';

/** A Lua script run by its SHA1 (EVALSHA), loaded on first use and again after a Redis restart (NOSCRIPT). */
export interface RedisScript {
  readonly sha: string;
  run(client: { sendCommand(args: string[]): Promise<unknown> }, keys: readonly string[], args: readonly string[]): Promise<unknown>;
}

/** One Lua script, atomic in Redis: the way this package does every read-check-write. */
export function defineScript(source: string): RedisScript {
  const sha = createHash('sha1').update(source).digest('hex');
  return {
    sha,
    async run(client, keys, args) {
      const tail = [String(keys.length), ...keys, ...args];
      try {
        return await client.sendCommand(['EVALSHA', sha, ...tail]);
      } catch (error) {
        // A restarted (or flushed) Redis has forgotten the script: EVAL sends and caches it again.
        if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return client.sendCommand(['EVAL', source, ...tail]);
        throw error;
      }
    },
  };
}
