// Task store, event bus, push config keys, replay cache and migrations on PostgreSQL (node-postgres).
export { MigrationError, type PostgresUnavailableCause, PostgresUnavailableError, PushConfigCryptoError } from './errors.js';
export { latestSchemaVersion, type MigrateOptions, type MigrateResult, migrate } from './migrate/migrate.js';
export { createStaticKeyring, type PushConfigKeyring, type StaticKeyringOptions } from './push/keyring.js';
export { createPostgresTaskStore, type PostgresTaskStore, type PostgresTaskStoreOptions } from './store/postgres-task-store.js';
export {
  createPostgresTaskEventBus,
  type PostgresTaskEventBus,
  type PostgresTaskEventBusOptions,
} from './bus/postgres-task-event-bus.js';
export type { PostgresOrphanRecoveryOptions } from './bus/orphan-sweeper.js';
export { type RotatePushConfigKeysOptions, type RotatePushConfigKeysResult, rotatePushConfigKeys } from './push/rotate.js';
export { createPostgresPushOutbox, type PostgresPushOutboxOptions } from './push/push-outbox.js';
export { type AsyncNonceCache, createPostgresNonceCache, type PostgresNonceCacheOptions } from './replay/nonce-cache.js';
