export {
  createPostgresRegistryStore,
  type PostgresPoolLike,
  type PostgresQueryable,
  type PostgresRegistryStore,
  type PostgresRegistryStoreOptions,
} from './postgres-store.js';
