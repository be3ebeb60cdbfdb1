// The structure gates' allowlist: every violator in packages/*/src on the day the gates were added
// (decision 0087), with its size then. A ratchet, not a licence: the gates fail on any violation not
// listed here and on a listed one that grows; a listed one that shrinks passes and is printed as
// "to fix" until it is within the limit, and one that is fixed is printed as "fixed: remove it from
// structure-allowlist.mjs". Never add an entry to let new code in; lower or delete entries as they shrink.

/**
 * Import circles: each a set of files that import each other (directly or through one another),
 * paths from the repository root. A circle whose files all lie in one set passes (it may shrink); a
 * circle reaching any other file fails. Being removed by issue 32 (client) and issue 33 (server core).
 */
export const ALLOWED_CYCLES = [
  // a2a-server-express core: core/instrumentation.ts takes CoreRequest/CoreResponse from the composition root (issue 33 item 2).
  [
    'packages/a2a-server-express/src/core/caller.ts',
    'packages/a2a-server-express/src/core/cancel.ts',
    'packages/a2a-server-express/src/core/instrumentation.ts',
    'packages/a2a-server-express/src/core/orphaned-tasks.ts',
    'packages/a2a-server-express/src/core/send.ts',
    'packages/a2a-server-express/src/core/server-context.ts',
    'packages/a2a-server-express/src/core/server-types.ts',
    'packages/a2a-server-express/src/core/server.ts',
    'packages/a2a-server-express/src/core/streaming.ts',
    'packages/a2a-server-express/src/core/task-operations.ts',
    'packages/a2a-server-express/src/core/task-registry.ts',
    'packages/a2a-server-express/src/core/task-run.ts',
  ],
];

/**
 * Sizes, in lines: files over 500 (`path`) and functions or classes over 150 (`path › name`, the
 * name chain as the gate prints it). A class counts as one unit, like the factory closure it stands for.
 */
export const ALLOWED_SIZES = {
  // a2a-redis
  'packages/a2a-redis/src/store/redis-task-store.ts › createRedisTaskStore': 185,
  // a2a-server-express (issue 33 item 2: a run is one object; createA2ARequestHandler split; issue 32: createPushSender split)
  'packages/a2a-server-express/src/core/server.ts › createA2AServer': 172,
  'packages/a2a-server-express/src/core/streaming.ts › createStreaming': 171,
  'packages/a2a-server-express/src/core/task-run.ts › createTaskRun': 343,
  'packages/a2a-server-express/src/core/task-runtime.ts › TaskRuntime': 347,
  'packages/a2a-server-express/src/store/in-memory-task-store.ts › InMemoryTaskStore': 222,
  'packages/a2a-server-express/src/testing/task-event-bus-contract.ts › describeTaskEventBusContract': 217,
  'packages/a2a-server-express/src/testing/task-event-bus-contract.ts › describeTaskEventBusContract > (callback of t.describe)': 182,
  'packages/a2a-server-express/src/testing/task-store-contract.ts › describeTaskStoreContract': 276,
  'packages/a2a-server-express/src/testing/task-store-contract.ts › describeTaskStoreContract > (callback of t.describe)': 253,
};
