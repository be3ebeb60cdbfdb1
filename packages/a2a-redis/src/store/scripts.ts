import { defineScript, type RedisScript } from '../script.js';

/**
 * Writes a task record if its stored revision is the expected one (compare-and-set), and keeps the
 * ListTasks summary, the live and ended sets (capacity) and the TTLs in step, in one atomic step.
 * A new task at capacity evicts the task that ended first; with none ended it is refused.
 * KEYS: task, summary, live, push, ended
 * ARGV: record JSON, expected revision ('0' = must not exist), owner, task id, summary JSON,
 *       terminal ('1'|'0'), ttl ms, now ms, max tasks, max record bytes, set member, live ttl ms,
 *       key prefix, terminal ttl ms
 * Returns {'ok', revision} | {'conflict', stored revision} | {'full', limit}.
 * `upsert(KEYS, ARGV)` is a Lua function so the bus's commit script (decision 0039) runs the same code.
 */
export const UPSERT_FUNCTION = `
local function upsert(KEYS, ARGV)
  local cur = redis.call('HGET', KEYS[1], 'rev') or '0'
  if cur ~= ARGV[2] then return {'conflict', cur} end
  local terminal = ARGV[6] == '1'
  if string.len(ARGV[1]) > tonumber(ARGV[10]) and not (terminal and string.len(ARGV[1]) <= tonumber(ARGV[10]) + 4096) then
    return {'full', 'maxTaskBytes'}
  end
  local now = tonumber(ARGV[8])
  local horizon = math.max(tonumber(ARGV[12]), tonumber(ARGV[14]))
  if cur == '0' then
    -- Set members whose task expired (a replica died, a TTL ran out) leave first.
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[12]))
    redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - tonumber(ARGV[14]))
    -- A task that expired by its TTL leaves its ListTasks entry behind (its record, which names the
    -- entry, is gone). Each new task checks a few random entries of its owner's index and drops the
    -- expired ones: with 8 checks per entry added, at most about one entry in eight is stale, so the
    -- index stays bounded by the owner's live tasks even for owners that never list.
    local sample = redis.call('HRANDFIELD', KEYS[2], 8, 'WITHVALUES')
    for i = 1, #sample, 2 do
      local expires = tonumber(string.match(sample[i + 1], ',([-+.%deE]+)%]$') or '')
      if expires and expires <= now then redis.call('HDEL', KEYS[2], sample[i]) end
    end
    while redis.call('ZCARD', KEYS[3]) + redis.call('ZCARD', KEYS[5]) >= tonumber(ARGV[9]) do
      local victim = redis.call('ZPOPMIN', KEYS[5])[1]
      if not victim then return {'full', 'maxTasks'} end
      local idx = redis.call('HGET', victim, 'idx')
      if idx then redis.call('HDEL', idx, redis.call('HGET', victim, 'id')) end
      redis.call('DEL', victim, ARGV[13] .. 'push:' .. string.sub(victim, string.len(ARGV[13]) + 6))
    end
  end
  local rev = tonumber(cur) + 1
  redis.call('HSET', KEYS[1], 'rec', ARGV[1], 'rev', rev, 'owner', ARGV[3], 'id', ARGV[4], 'idx', KEYS[2])
  redis.call('HSET', KEYS[2], ARGV[4], ARGV[5])
  if terminal then
    redis.call('ZREM', KEYS[3], ARGV[11])
    redis.call('ZADD', KEYS[5], now, ARGV[11])
  else
    redis.call('ZREM', KEYS[5], ARGV[11])
    redis.call('ZADD', KEYS[3], now, ARGV[11])
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[7])
  redis.call('PEXPIRE', KEYS[4], ARGV[7])
  -- The index and the capacity sets outlive their newest member by at most the longer TTL: once
  -- every replica of a deployment is gone, nothing of it stays in Redis for good.
  if redis.call('PTTL', KEYS[2]) < horizon then redis.call('PEXPIRE', KEYS[2], horizon) end
  redis.call('PEXPIRE', KEYS[3], horizon)
  redis.call('PEXPIRE', KEYS[5], horizon)
  return {'ok', tostring(rev)}
end
`;

export const UPSERT: RedisScript = defineScript(`${UPSERT_FUNCTION}return upsert(KEYS, ARGV)
`);

/**
 * Deletes a task with its push configs and index entries (the caller read the owner, which never
 * changes, to name the summary key).
 * KEYS: task, push, live, summary, ended   ARGV: task id, set member
 */
export const DELETE: RedisScript = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZREM', KEYS[5], ARGV[2])
redis.call('HDEL', KEYS[4], ARGV[1])
return 1
`);

/** Stores a push config when the task exists, with the task's TTL. KEYS: task, push  ARGV: id, JSON, max configs. */
export const PUT_PUSH: RedisScript = defineScript(`
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then return -1 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
`);

/** Deletes a send key if it still names the task. KEYS: send key  ARGV: task id. */
export const RELEASE_SEND: RedisScript = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);
