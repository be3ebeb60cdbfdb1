-- a2aplane PostgreSQL schema, version 4: the push outbox, and per-caller shares of the task store.

-- Pending push deliveries (PushOutbox of a2a-server-express). seq is the enqueue order; holder is
-- the push sender holding the entry ('' = released: anyone may take it). The entry (config with its
-- credentials, payload) is sealed with the push config keys, as push_configs are.
CREATE TABLE push_outbox (
  seq    bigserial PRIMARY KEY,
  id     text  NOT NULL UNIQUE,
  holder text  NOT NULL,
  key_id text  NOT NULL,
  sealed bytea NOT NULL
);
CREATE INDEX push_outbox_holder ON push_outbox (holder, seq);

-- Each holder's lease end, in milliseconds of the database's clock (replicas' clocks need not agree).
CREATE TABLE push_outbox_holders (
  holder      text   PRIMARY KEY,
  lease_until bigint NOT NULL
);
CREATE INDEX push_outbox_holders_lease ON push_outbox_holders (lease_until);

-- Bytes of a task's record (JSON), for the per-caller byte share; live tasks per caller are read
-- from this partial index alone.
ALTER TABLE tasks ADD COLUMN bytes integer NOT NULL DEFAULT 0;
UPDATE tasks SET bytes = octet_length(task::text) WHERE NOT terminal;
CREATE INDEX tasks_live_owner ON tasks (tenant, owner) INCLUDE (bytes, expires_at) WHERE NOT terminal;
