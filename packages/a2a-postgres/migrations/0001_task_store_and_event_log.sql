-- a2aplane PostgreSQL schema, version 1: task store and per-task event log.
-- migrate() runs this in a transaction with search_path set to the target schema.
-- Times are milliseconds since the epoch (bigint), as the replicas' TaskRecord.updatedAt.

-- Ids compare bytewise (COLLATE "C"): ListTasks pages in the same order whatever the database's locale.
CREATE TABLE tasks (
  tenant      text    NOT NULL,
  task_id     text    COLLATE "C" NOT NULL,
  owner       text    NOT NULL,
  context_id  text    NOT NULL,
  state       text    NOT NULL,
  -- ListTasks order and statusTimestampAfter: the status timestamp, else updated_at.
  status_time bigint  NOT NULL,
  updated_at  bigint  NOT NULL,
  -- Past it the row is invisible to every read and the sweeper deletes it.
  expires_at  bigint  NOT NULL,
  terminal    boolean NOT NULL,
  -- Compare-and-set revision: 1 when created, one more per write.
  revision    integer NOT NULL,
  -- json, not jsonb: kept as written (jsonb refuses \u0000 in strings).
  task        json    NOT NULL,
  PRIMARY KEY (tenant, task_id)
);
CREATE INDEX tasks_list ON tasks (tenant, owner, status_time DESC, task_id);
CREATE INDEX tasks_expiry ON tasks (expires_at);

-- Push configs, sealed with AES-256-GCM: key_id names the operator's key, sealed is iv || ciphertext || tag.
CREATE TABLE push_configs (
  tenant    text  NOT NULL,
  task_id   text  NOT NULL,
  config_id text  NOT NULL,
  key_id    text  NOT NULL,
  sealed    bytea NOT NULL,
  PRIMARY KEY (tenant, task_id, config_id),
  FOREIGN KEY (tenant, task_id) REFERENCES tasks (tenant, task_id) ON DELETE CASCADE
);

-- SendMessage idempotency keys (spec 3.3.1).
CREATE TABLE send_keys (
  tenant     text   NOT NULL,
  owner      text   NOT NULL,
  message_id text   NOT NULL,
  task_id    text   NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (tenant, owner, message_id)
);
CREATE INDEX send_keys_expiry ON send_keys (expires_at);

-- The head of each task's event log: the newest sequence number and the oldest one retained.
CREATE TABLE task_logs (
  tenant     text   NOT NULL,
  task_id    text   NOT NULL,
  last_seq   bigint NOT NULL,
  first_seq  bigint NOT NULL DEFAULT 1,
  expires_at bigint NOT NULL,
  PRIMARY KEY (tenant, task_id)
);
CREATE INDEX task_logs_expiry ON task_logs (expires_at);

-- The events; seq is the SSE event id (Last-Event-ID) of the event.
CREATE TABLE task_events (
  tenant   text    NOT NULL,
  task_id  text    NOT NULL,
  seq      bigint  NOT NULL,
  final    boolean NOT NULL,
  revision integer NOT NULL,
  event    json    NOT NULL,
  PRIMARY KEY (tenant, task_id, seq)
);
