import { defineScript, type RedisScript } from '../script.js';

/**
 * A replica's heartbeat, and the registration of the tasks it runs, in one atomic step: the lease
 * is refreshed before any task is added, so a task is never listed under a replica whose lease a
 * sweeper could find missing at that moment.
 * KEYS: lease, replicas set, the replica's task set, then one runner key per ref
 * ARGV: replica id, lease ms, replace '1'|'0' (rewrite the task set), runner ttl ms, refs...
 * Returns 1 when the lease was still there, 0 when it had lapsed (or Redis lost it).
 * A Lua function, so the bus's commit script can register a task with the same code.
 */
export const LEASE_FUNCTION = `
local function lease(KEYS, ARGV)
  local had = redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'GET')
  redis.call('SADD', KEYS[2], ARGV[1])
  if ARGV[3] == '1' then redis.call('DEL', KEYS[3]) end
  for i = 5, #ARGV do
    redis.call('SADD', KEYS[3], ARGV[i])
    redis.call('SET', KEYS[i - 1], ARGV[1], 'PX', ARGV[4])
  end
  -- The registry outlives the last heartbeat by the runner TTL (the tasks it names are gone by then),
  -- so a deployment whose replicas all stopped leaves nothing in Redis for good.
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
  if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[4]) end
  if had then return 1 end
  return 0
end
`;

export const LEASE: RedisScript = defineScript(`${LEASE_FUNCTION}return lease(KEYS, ARGV)
`);

/**
 * Tasks whose runs ended on this replica leave its task set; their runner keys are dropped if
 * they still name it. KEYS: the replica's task set, then one runner key per ref   ARGV: replica id, refs...
 */
export const UNREGISTER: RedisScript = defineScript(`
for i = 2, #ARGV do
  redis.call('SREM', KEYS[1], ARGV[i])
  if redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('DEL', KEYS[i]) end
end
return 1
`);

/**
 * A task leaves a dead replica's task set once a sweeper ended it. The runner key and the claim
 * are dropped only if they still name that replica / that sweeper.
 * KEYS: the replica's task set, runner key, claim key   ARGV: ref, replica id, claimer id
 */
export const DROP_TASK: RedisScript = defineScript(`
redis.call('SREM', KEYS[1], ARGV[1])
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
if redis.call('GET', KEYS[3]) == ARGV[3] then redis.call('DEL', KEYS[3]) end
return 1
`);

/**
 * One sweeper claims one task of a dead replica: only while that replica's lease is still missing,
 * the task still listed under it and still run by it (else the entry is stale and dropped), and
 * nobody else holds the claim (SET NX with a TTL, so a sweeper that dies mid-way is replaced).
 * KEYS: dead replica's lease, its task set, runner key, claim key
 * ARGV: ref, dead replica id, claimer id, claim ms
 * Returns 1 when claimed.
 */
export const CLAIM: RedisScript = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 0 then return 0 end
if redis.call('GET', KEYS[3]) ~= ARGV[2] then
  redis.call('SREM', KEYS[2], ARGV[1])
  return 0
end
if redis.call('SET', KEYS[4], ARGV[3], 'NX', 'PX', ARGV[4]) then return 1 end
return 0
`);

/**
 * Drops a dead replica from the registry once its lease is gone and it lists no task.
 * KEYS: lease, task set, replicas set   ARGV: replica id
 */
export const FORGET: RedisScript = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 0 and redis.call('SCARD', KEYS[2]) == 0 then
  redis.call('SREM', KEYS[3], ARGV[1])
  return 1
end
return 0
`);
