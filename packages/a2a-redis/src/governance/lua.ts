import { defineScript } from '../script.js';

/*
 * The scripts run atomically in Redis, so a decision and its write can't interleave with another
 * replica's. Time is Redis's own clock (TIME), the one clock all replicas share. Amounts are
 * integers (nano-dollars, whole tokens) carried as strings formatted with %.0f, so Lua's doubles
 * stay exact up to 2^53.
 */

/** Current time in ms from Redis, and the helpers of the budget scripts. */
const BUDGET_PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function int(x) return string.format('%.0f', x) end
local function pair(s)
  local sep = string.find(s, ' ', 1, true)
  return tonumber(string.sub(s, 1, sep - 1)), tonumber(string.sub(s, sep + 1))
end
-- KEYS: 1 tasks (zset id -> acquiredAt), 2 spend (zset id -> meteredAt), 3 spend amounts (hash id -> "usd tokens"),
-- 4 sums (hash), 5 in-flight (zset id -> lease expiry), 6 reservations (hash id -> "usd tokens"), 7 ticket sequence
local tasks, spend, amounts, sums, inflight, rsv, seq = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local function sum(field) return tonumber(redis.call('HGET', sums, field) or '0') end
-- Drops what left the window (entries at or before now - window) and the reservations of expired leases.
local function prune(now, window)
  local cutoff = now - window
  redis.call('ZREMRANGEBYSCORE', tasks, '-inf', cutoff)
  local gone = redis.call('ZRANGEBYSCORE', spend, '-inf', cutoff)
  if #gone > 0 then
    local usd, tok = 0, 0
    for _, id in ipairs(gone) do
      local a = redis.call('HGET', amounts, id)
      if a then local u, k = pair(a); usd = usd + u; tok = tok + k end
      redis.call('HDEL', amounts, id)
    end
    redis.call('ZREMRANGEBYSCORE', spend, '-inf', cutoff)
    redis.call('HSET', sums, 'usd', int(sum('usd') - usd), 'tokens', int(sum('tokens') - tok))
  end
  local expired = redis.call('ZRANGEBYSCORE', inflight, '-inf', now)
  if #expired > 0 then
    local usd, tok = 0, 0
    for _, id in ipairs(expired) do
      local r = redis.call('HGET', rsv, id)
      if r then local u, k = pair(r); usd = usd + u; tok = tok + k end
      redis.call('HDEL', rsv, id)
    end
    redis.call('ZREMRANGEBYSCORE', inflight, '-inf', now)
    redis.call('HSET', sums, 'rsvUsd', int(sum('rsvUsd') - usd), 'rsvTokens', int(sum('rsvTokens') - tok))
  end
end
-- Every key lives as long as the longest-lived entry could matter, then the whole ledger expires together.
local function touch(ttl)
  for i = 1, 7 do redis.call('PEXPIRE', KEYS[i], ttl) end
end
-- Milliseconds until the spend column (1 usd, 2 tokens) falls to target or below by expiry alone; -1 if never.
local function wait_spend(now, window, column, target)
  local total = sum(column == 1 and 'usd' or 'tokens')
  if total <= target then return 0 end
  -- Oldest first, in pages, so a refusal reads only as far as the answer.
  local from = 0
  while true do
    local entries = redis.call('ZRANGE', spend, from, from + 127, 'WITHSCORES')
    if #entries == 0 then return -1 end
    for i = 1, #entries, 2 do
      local a = redis.call('HGET', amounts, entries[i])
      if a then
        local u, k = pair(a)
        total = total - (column == 1 and u or k)
        if total <= target then return tonumber(entries[i + 1]) + window - now end
      end
    end
    from = from + 128
  end
end
`;

/**
 * ARGV: window, cap usd (nano, -1 none), cap tokens (-1), cap tasks (-1), estimate usd (nano),
 * estimate tokens, lease ms, key ttl ms.
 * Returns {1, ticket id, now} or {0, limit, observed, cap, retryAfterMs (-1 never), wakeMs (-1 only a meter can)}.
 */
export const ACQUIRE = defineScript(`${BUDGET_PRELUDE}
local window, capUsd, capTok, capTasks = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local estUsd, estTok, lease, ttl = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local now = now_ms()
prune(now, window)
touch(ttl)
if capUsd >= 0 then
  local used = sum('usd') + sum('rsvUsd')
  if used >= capUsd or used + estUsd > capUsd then
    if estUsd > capUsd then return {0, 'usd', int(used), int(capUsd), -1, -1} end
    local wake = wait_spend(now, window, 1, math.min(capUsd - 1, capUsd - estUsd) - sum('rsvUsd'))
    return {0, 'usd', int(used), int(capUsd), wake >= 0 and wake or window, wake}
  end
end
if capTok >= 0 then
  local used = sum('tokens') + sum('rsvTokens')
  if used >= capTok or used + estTok > capTok then
    if estTok > capTok then return {0, 'tokens', int(used), int(capTok), -1, -1} end
    local wake = wait_spend(now, window, 2, math.min(capTok - 1, capTok - estTok) - sum('rsvTokens'))
    return {0, 'tokens', int(used), int(capTok), wake >= 0 and wake or window, wake}
  end
end
if capTasks >= 0 then
  local count = redis.call('ZCARD', tasks)
  if count >= capTasks then
    if capTasks == 0 then return {0, 'tasks', count, capTasks, -1, -1} end
    local oldest = redis.call('ZRANGE', tasks, count - capTasks, count - capTasks, 'WITHSCORES')
    local wake = tonumber(oldest[2]) + window - now
    return {0, 'tasks', count, capTasks, wake, wake}
  end
end
local id = redis.call('INCR', seq)
redis.call('ZADD', tasks, now, id)
redis.call('HINCRBY', sums, 'totalTasks', 1)
if capUsd < 0 then estUsd = 0 end
if capTok < 0 then estTok = 0 end
redis.call('HSET', rsv, id, int(estUsd) .. ' ' .. int(estTok))
redis.call('ZADD', inflight, now + lease, id)
redis.call('HSET', sums, 'rsvUsd', int(sum('rsvUsd') + estUsd), 'rsvTokens', int(sum('rsvTokens') + estTok))
return {1, id, now}
`);

/**
 * ARGV: window, ticket id, usd (nano), tokens, key ttl. Releases the ticket's reservation (if its
 * lease is still live) and records the spend. Returns 1 when a reservation was released.
 */
export const METER = defineScript(`${BUDGET_PRELUDE}
local window, id, usd, tok, ttl = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local now = now_ms()
prune(now, window)
touch(ttl)
local released = 0
local r = redis.call('HGET', rsv, id)
if r then
  local u, k = pair(r)
  redis.call('HDEL', rsv, id)
  redis.call('ZREM', inflight, id)
  redis.call('HSET', sums, 'rsvUsd', int(sum('rsvUsd') - u), 'rsvTokens', int(sum('rsvTokens') - k))
  released = 1
end
if usd > 0 or tok > 0 then
  redis.call('ZADD', spend, now, id)
  redis.call('HSET', amounts, id, int(usd) .. ' ' .. int(tok))
  redis.call('HSET', sums, 'usd', int(sum('usd') + usd), 'tokens', int(sum('tokens') + tok))
end
redis.call('HSET', sums, 'totalUsd', int(sum('totalUsd') + usd), 'totalTokens', int(sum('totalTokens') + tok))
return released
`);

/**
 * ARGV: window, ticket id, more usd (nano), more tokens, cap usd (-1), cap tokens (-1), lease, key ttl.
 * Grows a live ticket's reservation when metered + reserved + more <= cap. Returns 1 or 0.
 */
export const RESERVE_MORE = defineScript(`${BUDGET_PRELUDE}
local window, id, moreUsd, moreTok = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local capUsd, capTok, lease, ttl = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local now = now_ms()
prune(now, window)
touch(ttl)
local r = redis.call('HGET', rsv, id)
if not r then return 0 end
if capUsd >= 0 and sum('usd') + sum('rsvUsd') + moreUsd > capUsd then return 0 end
if capTok >= 0 and sum('tokens') + sum('rsvTokens') + moreTok > capTok then return 0 end
local u, k = pair(r)
redis.call('HSET', rsv, id, int(u + moreUsd) .. ' ' .. int(k + moreTok))
redis.call('ZADD', inflight, 'XX', now + lease, id)
redis.call('HSET', sums, 'rsvUsd', int(sum('rsvUsd') + moreUsd), 'rsvTokens', int(sum('rsvTokens') + moreTok))
return 1
`);

/** ARGV: window, lease, key ttl, ticket ids... Pushes the leases of live tickets forward. */
export const RENEW_TICKETS = defineScript(`${BUDGET_PRELUDE}
local window, lease, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()
prune(now, window)
touch(ttl)
for i = 4, #ARGV do redis.call('ZADD', inflight, 'XX', now + lease, ARGV[i]) end
return 1
`);

/** ARGV: window. Returns {usd, tokens, tasks, inFlight, rsvUsd, rsvTokens, totalUsd, totalTokens, totalTasks} as strings. */
export const SNAPSHOT = defineScript(`${BUDGET_PRELUDE}
local now = now_ms()
prune(now, tonumber(ARGV[1]))
return {int(sum('usd')), int(sum('tokens')), redis.call('ZCARD', tasks), redis.call('ZCARD', inflight), int(sum('rsvUsd')),
  int(sum('rsvTokens')), int(sum('totalUsd')), int(sum('totalTokens')), int(sum('totalTasks'))}
`);

/**
 * A token bucket. KEYS: the bucket (hash tokens, at). ARGV: capacity, refill per second, ttl ms.
 * Returns {1} or {0, retryAfterSeconds}.
 */
export const TAKE_TOKEN = defineScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local capacity, refill, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(state[1]), tonumber(state[2])
if tokens == nil then
  tokens = capacity
else
  -- A clock that steps backwards never adds tokens.
  tokens = math.min(capacity, tokens + math.max(0, now - at) / 1000 * refill)
end
local ok = tokens >= 1
if ok then tokens = tokens - 1 end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], ttl)
if ok then return {1} end
return {0, math.max(1, math.ceil((1 - tokens) / refill))}
`);

/**
 * Concurrency slots of one (caller, skill). KEYS: the slot set (zset lease -> expiry). ARGV: lease
 * id, max, lease ms. Returns {1} or {0, active}.
 */
export const ACQUIRE_SLOT = defineScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max, lease = tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local active = redis.call('ZCARD', KEYS[1])
if active >= max then return {0, active} end
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('PEXPIRE', KEYS[1], lease * 2)
return {1}
`);

/** KEYS: slot sets; ARGV: lease ms, then one lease id per key. Pushes live leases forward. */
export const RENEW_SLOTS = defineScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], 'XX', now + lease, ARGV[i + 1])
  redis.call('PEXPIRE', KEYS[i], lease * 2)
end
return 1
`);
