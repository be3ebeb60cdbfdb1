import { defineScript } from '../script.js';

// The push outbox (see redis-push-outbox.ts). Keys: entries (hash id -> entry JSON), where (hash
// id -> holder), owners (sorted set holder -> lease end, ms of Redis's clock) and one sorted set
// per holder of the ids it holds, by enqueue sequence. Holder sets are named from ARGV (`held`
// + holder); every key shares one {hash tag}, so all live in one cluster slot.

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * KEYS: entries, where, owners, seq. ARGV: id, entry JSON, holder, leaseMs, held prefix.
 * Renews the holder's lease; an id already stored keeps its place and holder (its payload is replaced).
 */
export const ENQUEUE = defineScript(`${NOW}
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[4]), ARGV[3])
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 0
end
local seq = redis.call('INCR', KEYS[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', ARGV[5] .. ARGV[3], seq, ARGV[1])
return 1`);

/**
 * KEYS: entries, where, owners. ARGV: holder, leaseMs, limit, held prefix.
 * Renews the holder's lease, then moves up to `limit` entries of holders whose lease ended to it,
 * oldest first per holder; a holder left with none is forgotten. Returns their JSON.
 */
export const CLAIM = defineScript(`${NOW}
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[1])
local limit = tonumber(ARGV[3])
local out = {}
local dead = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. now)
for _, holder in ipairs(dead) do
  if #out >= limit then break end
  if holder ~= ARGV[1] then
    local from = ARGV[4] .. holder
    local taken = redis.call('ZRANGE', from, 0, limit - #out - 1, 'WITHSCORES')
    for i = 1, #taken, 2 do
      local id = taken[i]
      redis.call('ZREM', from, id)
      redis.call('ZADD', ARGV[4] .. ARGV[1], taken[i + 1], id)
      redis.call('HSET', KEYS[2], id, ARGV[1])
      local entry = redis.call('HGET', KEYS[1], id)
      if entry then out[#out + 1] = entry end
    end
    if redis.call('ZCARD', from) == 0 then redis.call('ZREM', KEYS[3], holder) end
  end
end
return out`);

/** KEYS: entries, where. ARGV: id, held prefix. Forgets the entry, whoever holds it. */
export const ACK = defineScript(`local holder = redis.call('HGET', KEYS[2], ARGV[1])
if holder then redis.call('ZREM', ARGV[2] .. holder, ARGV[1]) end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
return 1`);

/**
 * KEYS: where, owners. ARGV: id, holder, held prefix, the released holder.
 * Moves an entry the holder holds to the released holder, whose lease has always ended.
 */
export const RELEASE = defineScript(`if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
local seq = redis.call('ZSCORE', ARGV[3] .. ARGV[2], ARGV[1])
redis.call('ZREM', ARGV[3] .. ARGV[2], ARGV[1])
redis.call('ZADD', ARGV[3] .. ARGV[4], seq or 0, ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[2], 0, ARGV[4])
return 1`);
