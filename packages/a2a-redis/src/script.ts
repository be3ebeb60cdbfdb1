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
      // One array, built once: this runs per task write.
      const command = new Array<string>(3 + keys.length + args.length);
      command[0] = 'EVALSHA';
      command[1] = sha;
      command[2] = String(keys.length);
      for (let i = 0; i < keys.length; i++) command[3 + i] = keys[i] as string;
      for (let i = 0; i < args.length; i++) command[3 + keys.length + i] = args[i] as string;
      try {
        return await client.sendCommand(command);
      } catch (error) {
        // A restarted (or flushed) Redis has forgotten the script: EVAL sends and caches it again.
        if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
          command[0] = 'EVAL';
          command[1] = source;
          return client.sendCommand(command);
        }
        throw error;
      }
    },
  };
}
