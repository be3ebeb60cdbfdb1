-- a2aplane PostgreSQL schema, version 2: cancel routing between replicas and the shared replay cache.

-- The replica running each task's executor. A replica holds a session advisory lock (lock_hi,
-- lock_lo) on its listening connection; a row whose lock is not held belongs to a dead replica.
CREATE TABLE cancel_runners (
  tenant  text    NOT NULL,
  task_id text    NOT NULL,
  lock_hi integer NOT NULL,
  lock_lo integer NOT NULL,
  PRIMARY KEY (tenant, task_id)
);
CREATE INDEX cancel_runners_replica ON cancel_runners (lock_hi, lock_lo);

-- Cancel requests on their way to a runner (NOTIFY carries only the id).
CREATE TABLE cancel_requests (
  id         bigserial PRIMARY KEY,
  tenant     text   NOT NULL,
  task_id    text   NOT NULL,
  request    json   NOT NULL,
  created_at bigint NOT NULL
);

-- Nonces of verified callers' signed requests, kept until the signature expires.
CREATE TABLE nonces (
  key        text   PRIMARY KEY,
  owner      text   NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX nonces_owner ON nonces (owner, expires_at);
CREATE INDEX nonces_expiry ON nonces (expires_at);

-- ListTasks by context: a filter the spec defines, served by an index from this version on.
CREATE INDEX tasks_context ON tasks (tenant, owner, context_id, status_time DESC, task_id);
