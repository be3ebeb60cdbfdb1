import { defineScript, type RedisScript } from '../script.js';

/**
 * Appends an event to a task's stream, trims it to the cap and sets its TTL (retention after a
 * final event, the live TTL otherwise), atomically. KEYS: stream
 * ARGV: event JSON, final '1'|'0', revision, max events, ttl ms
 * Returns the entry id (`<ms>-<seq>`, increasing per stream).
 */
export const PUBLISH: RedisScript = defineScript(`
-- Trimmed with XDEL (not MAXLEN) so the stream records the newest dropped id: READ reports a gap from it.
local over = redis.call('XLEN', KEYS[1]) - tonumber(ARGV[4]) + 1
if over > 0 then
  for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', over)) do redis.call('XDEL', KEYS[1], entry[1]) end
end
local id = redis.call('XADD', KEYS[1], '*', 'e', ARGV[1], 'f', ARGV[2], 'r', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return id
`);

/**
 * Reads a task's stream after an id, with what a resume needs to know, in one atomic step.
 * KEYS: stream   ARGV: after id ('' = from the start)
 * Returns {exists 0|1, newest id or '', max deleted id or '', entries}.
 */
export const READ: RedisScript = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, '', '', {}} end
local start = '-'
if ARGV[1] ~= '' then start = '(' .. ARGV[1] end
local entries = redis.call('XRANGE', KEYS[1], start, '+')
local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local info = redis.call('XINFO', 'STREAM', KEYS[1])
local deleted = ''
for i = 1, #info, 2 do
  if info[i] == 'max-deleted-entry-id' then deleted = info[i + 1] end
end
local last = ''
if newest[1] then last = newest[1][1] end
return {1, last, deleted, entries}
`);
