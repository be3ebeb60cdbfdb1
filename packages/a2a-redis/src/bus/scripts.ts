import { defineScript, type RedisScript } from '../script.js';
import { UPSERT_ARGC, UPSERT_FUNCTION } from '../store/scripts.js';
import { LEASE_FUNCTION } from './lease-scripts.js';

/** Where the commit script's own arguments start: after the upsert's. */
const U = UPSERT_ARGC;

/**
 * A task's stream: `append` adds an event; `trim` then drops the oldest entries beyond the cap
 * and sets the TTL (retention after a final event, the live TTL otherwise). Trimmed with XDEL
 * (not MAXLEN) so the stream records the newest dropped id: READ reports a gap from it. Lua
 * functions, so the publish and commit scripts run the same code.
 */
const STREAM_FUNCTIONS = `
local function append(stream, event, final, revision)
  return redis.call('XADD', stream, '*', 'e', event, 'f', final, 'r', revision)
end
local function trim(stream, maxEvents, ttl)
  local over = redis.call('XLEN', stream) - tonumber(maxEvents)
  if over > 0 then
    for _, entry in ipairs(redis.call('XRANGE', stream, '-', '+', 'COUNT', over)) do redis.call('XDEL', stream, entry[1]) end
  end
  redis.call('PEXPIRE', stream, ttl)
end
`;

/**
 * Appends an event to a task's stream, trims it to the cap and sets its TTL, atomically.
 * KEYS: stream   ARGV: event JSON, final '1'|'0', revision, max events, ttl ms
 * Returns the entry id (`<ms>-<seq>`, increasing per stream).
 */
export const PUBLISH: RedisScript = defineScript(`${STREAM_FUNCTIONS}
local id = append(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
trim(KEYS[1], ARGV[4], ARGV[5])
return id
`);

/**
 * A task write and the append of its events in one atomic step (decision 0039): the store's
 * `upsert`, then, only when it wrote, `append` per event with the revision it produced and one `trim`, and the
 * registration of this replica as the task's runner (`lease`) when the commit carries it.
 * KEYS: task, summary, live, push, ended (upsert's), stream, [lease, replicas, replica's tasks, runner]
 * ARGV: upsert's UPSERT_ARGC, max events, live ttl ms, retention ms, event count n, n x (event JSON, final '1'|'0'),
 *       [replica id, lease ms, runner ttl ms, task ref]
 * Returns upsert's refusal as it is, or {'ok', revision, lease (1 held, 0 lapsed, -1 not carried), ids...}.
 */
export const COMMIT: RedisScript = defineScript(`${UPSERT_FUNCTION}${STREAM_FUNCTIONS}${LEASE_FUNCTION}
local written = upsert({KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]}, {unpack(ARGV, 1, ${U})})
if written[1] ~= 'ok' then return written end
local revision = written[2]
local n = tonumber(ARGV[${U + 4}])
local out = {'ok', revision, -1}
local ttl = ARGV[${U + 2}]
for i = 1, n do
  local final = ARGV[${U + 4} + 2 * i]
  if final == '1' then ttl = ARGV[${U + 3}] else ttl = ARGV[${U + 2}] end
  out[3 + i] = append(KEYS[6], ARGV[${U + 3} + 2 * i], final, revision)
end
-- Once per burst: the cap, and the TTL of the newest event's kind, as publishing them one by one leaves them.
if n > 0 then trim(KEYS[6], ARGV[${U + 1}], ttl) end
if #KEYS > 6 then
  local b = ${U + 5} + 2 * n
  out[3] = lease({KEYS[7], KEYS[8], KEYS[9], KEYS[10]}, {ARGV[b], ARGV[b + 1], '0', ARGV[b + 2], ARGV[b + 3]})
end
return out
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
