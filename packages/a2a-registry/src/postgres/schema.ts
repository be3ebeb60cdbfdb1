/** A schema name we quote ourselves: letters, digits and underscores only. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The registry's tables (idempotent). Every AgentID an agent ever held maps to it in `agent_ids`.
 * One simple query, so one transaction: the advisory lock makes replicas starting together migrate
 * one after another (concurrent `CREATE … IF NOT EXISTS` of one name can fail on the catalog's unique index).
 */
export function migrationSql(schema: string): string {
  return `
SELECT pg_advisory_xact_lock(hashtext('a2a_registry migration ${schema}'));
CREATE SCHEMA IF NOT EXISTS "${schema}";
CREATE TABLE IF NOT EXISTS "${schema}".agents (
  id text PRIMARY KEY,
  agent_id text NOT NULL UNIQUE,
  card_url text NOT NULL UNIQUE,
  origin text NOT NULL,
  status text NOT NULL,
  health text NOT NULL,
  skills text[] NOT NULL,
  tags text[] NOT NULL,
  search_text text NOT NULL,
  revision integer NOT NULL
);
-- The record (card text, card, keys, history) apart from the columns searches filter on: a search
-- scans narrow rows and reads records only for the page it returns.
CREATE TABLE IF NOT EXISTS "${schema}".agent_records (
  id text PRIMARY KEY REFERENCES "${schema}".agents (id) ON DELETE CASCADE,
  record jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS "${schema}".agent_ids (
  agent_id text PRIMARY KEY,
  id text NOT NULL REFERENCES "${schema}".agents (id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS agents_origin ON "${schema}".agents (origin);
-- One row per (skill, agent) and (tag, agent): a search by skill or tag walks its primary key in id
-- order and stops after the page, however few agents match (decision 0148). Filled from the
-- agents' arrays the first time (a schema of an earlier version); the GIN indexes they replace go.
DO $$
BEGIN
  IF to_regclass('"${schema}".agent_skills') IS NULL THEN
    CREATE TABLE "${schema}".agent_skills (
      skill text NOT NULL,
      id text NOT NULL REFERENCES "${schema}".agents (id) ON DELETE CASCADE,
      PRIMARY KEY (skill, id)
    );
    INSERT INTO "${schema}".agent_skills (skill, id) SELECT DISTINCT unnest(skills), id FROM "${schema}".agents;
  END IF;
  IF to_regclass('"${schema}".agent_tags') IS NULL THEN
    CREATE TABLE "${schema}".agent_tags (
      tag text NOT NULL,
      id text NOT NULL REFERENCES "${schema}".agents (id) ON DELETE CASCADE,
      PRIMARY KEY (tag, id)
    );
    INSERT INTO "${schema}".agent_tags (tag, id) SELECT DISTINCT unnest(tags), id FROM "${schema}".agents;
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS agent_skills_id ON "${schema}".agent_skills (id);
CREATE INDEX IF NOT EXISTS agent_tags_id ON "${schema}".agent_tags (id);
DROP INDEX IF EXISTS "${schema}".agents_skills;
DROP INDEX IF EXISTS "${schema}".agents_tags;
`;
}
