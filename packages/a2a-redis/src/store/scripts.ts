import { defineScript, type RedisScript } from '../script.js';

/**
 * A caller's share: `share_prune` drops tasks whose live TTL ran out (a replica died mid-task),
 * `share_refusal` names the share `tasks` more tasks and `growth` more bytes would pass (or nil),
 * `share_set` records a task's bytes while it is live and forgets it once it ends or goes.
 */
const SHARE_FUNCTIONS = `
local function share_bytes(share, member)
  return tonumber(redis.call('HGET', share .. ':bytes', member) or '0')
end
local function share_forget(share, member)
  local old = share_bytes(share, member)
  redis.call('ZREM', share, member)
  if redis.call('HDEL', share .. ':bytes', member) == 1 then redis.call('HINCRBY', share .. ':bytes', '#total', -old) end
end
local function share_prune(share, now, livettl)
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', share, '-inf', now - livettl)) do share_forget(share, member) end
end
local function share_refusal(share, tasks, growth, maxtasks, maxbytes)
  if maxtasks >= 0 and tasks > 0 and redis.call('ZCARD', share) + tasks > maxtasks then return 'maxTasksPerOwner' end
  if maxbytes >= 0 and growth > 0 and tonumber(redis.call('HGET', share .. ':bytes', '#total') or '0') + growth > maxbytes then
    return 'maxBytesPerOwner'
  end
  return nil
end
local function share_set(share, member, now, len, live, horizon)
  if not live then
    share_forget(share, member)
    return
  end
  redis.call('ZADD', share, now, member)
  redis.call('HINCRBY', share .. ':bytes', '#total', len - share_bytes(share, member))
  redis.call('HSET', share .. ':bytes', member, len)
  redis.call('PEXPIRE', share, horizon)
  redis.call('PEXPIRE', share .. ':bytes', horizon)
end
`;

/** How many ARGV the UPSERT function reads (the bus's commit script passes them first). */
export const UPSERT_ARGC = 17;

/**
 * Writes a task record if its stored revision is the expected one (compare-and-set), and keeps the
 * ListTasks summary, the live and ended sets (capacity) and the TTLs in step, in one atomic step.
 * A new task at capacity evicts the task that ended first; with none ended it is refused.
 * KEYS: task, summary, live, push, ended
 * ARGV: record JSON, expected revision ('0' = must not exist), owner, task id, summary JSON,
 *       terminal ('1'|'0'), ttl ms, now ms, max tasks, max record bytes, set member, live ttl ms,
 *       key prefix, terminal ttl ms, share key, max tasks per owner, max bytes per owner ('-1': none)
 * Returns {'ok', revision} | {'conflict', stored revision} | {'full', limit}.
 * A caller's share (decision 0069) is a sorted set of its live tasks by update time (`share`) and a
 * hash of their record bytes with their sum in `#total` (`share:bytes`), named from ARGV as the
 * evicted tasks' keys are.
 * `upsert(KEYS, ARGV)` is a Lua function so the bus's commit script (decision 0039) runs the same code.
 */
export const UPSERT_FUNCTION = `
${SHARE_FUNCTIONS}
local function upsert(KEYS, ARGV)
  local cur = redis.call('HGET', KEYS[1], 'rev') or '0'
  if cur ~= ARGV[2] then return {'conflict', cur} end
  local terminal = ARGV[6] == '1'
  if string.len(ARGV[1]) > tonumber(ARGV[10]) and not (terminal and string.len(ARGV[1]) <= tonumber(ARGV[10]) + 4096) then
    return {'full', 'maxTaskBytes'}
  end
  local now = tonumber(ARGV[8])
  local horizon = math.max(tonumber(ARGV[12]), tonumber(ARGV[14]))
  local len = string.len(ARGV[1])
  if not terminal then
    local refused
    if cur == '0' then
      share_prune(ARGV[15], now, tonumber(ARGV[12]))
      refused = share_refusal(ARGV[15], 1, len, tonumber(ARGV[16]), tonumber(ARGV[17]))
    else
      refused = share_refusal(ARGV[15], 0, len - share_bytes(ARGV[15], ARGV[11]), tonumber(ARGV[16]), tonumber(ARGV[17]))
    end
    if refused then return {'full', refused} end
  end
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
  share_set(ARGV[15], ARGV[11], now, len, not terminal, horizon)
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
 * Deletes a task with its push configs and index entries, and its place in its caller's share (the
 * caller read the owner, which never changes, to name the summary and share keys).
 * KEYS: task, push, live, summary, ended   ARGV: task id, set member, share key
 */
export const DELETE: RedisScript = defineScript(`${SHARE_FUNCTIONS}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
share_forget(ARGV[3], ARGV[2])
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

/**
 * Refuses as a create would now, writing nothing but expired entries away: the caller's share
 * (one more task, one more byte), then the capacity (a new task evicts an ended one; with only
 * live tasks it is refused).
 * KEYS: live, ended   ARGV: share key, max tasks per owner, max bytes per owner, now ms, live ttl ms,
 * terminal ttl ms, max tasks. Returns '' (admitted) or the limit that refuses.
 */
export const ADMIT: RedisScript = defineScript(`${SHARE_FUNCTIONS}
local now = tonumber(ARGV[4])
share_prune(ARGV[1], now, tonumber(ARGV[5]))
local refused = share_refusal(ARGV[1], 1, 1, tonumber(ARGV[2]), tonumber(ARGV[3]))
if refused then return refused end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[5]))
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[6]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[7]) then return 'maxTasks' end
return ''
`);
