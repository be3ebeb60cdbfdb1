-- a2aplane PostgreSQL schema, version 3: a send key carries the fingerprint of its message, so the
-- same message id with another message is another key (a repeat is the same message).
-- Keys written before have no fingerprint: they match no new send and expire with their TTL.
ALTER TABLE send_keys ADD COLUMN fingerprint text NOT NULL DEFAULT '';
ALTER TABLE send_keys DROP CONSTRAINT send_keys_pkey;
ALTER TABLE send_keys ADD PRIMARY KEY (tenant, owner, message_id, fingerprint);
