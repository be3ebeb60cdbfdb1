import { randomBytes, randomUUID } from 'node:crypto';

/** The Redis the tests use: `REDIS_URL`, default `redis://127.0.0.1:6379`. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The PostgreSQL the tests use: `POSTGRES_URL`, default `postgres://postgres@127.0.0.1:5432/test`. */
export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A Redis key prefix of its own per run and suite, so parallel runs never collide. */
export function testKeyPrefix(suite: string): string {
  return `a2a-test:${process.pid}:${randomUUID()}:${suite}:`;
}

/** A PostgreSQL schema name of its own per run and suite (lower case, at most 48 characters), so parallel runs never collide. */
export function testSchema(suite: string): string {
  return `t_${suite}_${process.pid}_${randomBytes(4).toString('hex')}`.toLowerCase().slice(0, 48);
}
