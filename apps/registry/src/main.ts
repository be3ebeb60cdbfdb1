import { startRegistryService } from '@a2aplane/a2a-registry';
import { createPostgresRegistryStore } from '@a2aplane/a2a-registry/postgres';
import { configFromEnv } from './config.js';

// `pnpm --filter registry start`: the registry on PORT (default 8470) until Ctrl-C; on
// PostgreSQL when REGISTRY_DATABASE_URL is set (several replicas can share it), else in memory.
let config: ReturnType<typeof configFromEnv>;
try {
  config = configFromEnv(process.env);
} catch (error) {
  console.error(`registry: ${(error as Error).message}`);
  process.exit(64);
}
const databaseUrl = process.env.REGISTRY_DATABASE_URL;
const store = databaseUrl ? await createPostgresRegistryStore({ connectionString: databaseUrl }) : undefined;
const service = await startRegistryService({ ...config, registryOptions: { ...config.registryOptions, ...(store ? { store } : {}) } });
console.log(service.url);
if (Object.keys(config.operatorTokens ?? {}).length === 0) console.error('registry: no REGISTRY_OPERATOR_TOKENS, admin calls are refused');
const stop = () => {
  void service.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
