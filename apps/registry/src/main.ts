import { startRegistryService } from '@a2aplane/a2a-registry';
import { configFromEnv } from './config.js';
import { openStore, storeChoice } from './store.js';

// `pnpm --filter registry start [-- --data FILE]`: the registry on PORT (default 8470) until Ctrl-C;
// in a JSON file with --data, on PostgreSQL when REGISTRY_DATABASE_URL is set (several replicas
// can share it), else in memory.
let config: ReturnType<typeof configFromEnv>;
let choice: ReturnType<typeof storeChoice>;
try {
  config = configFromEnv(process.env);
  choice = storeChoice(process.env, process.argv.slice(2));
} catch (error) {
  console.error(`registry: ${(error as Error).message}`);
  process.exit(64);
}
let store: Awaited<ReturnType<typeof openStore>>;
try {
  store = await openStore(choice);
} catch (error) {
  console.error(`registry: ${(error as Error).message}`);
  process.exit(1);
}
const service = await startRegistryService({ ...config, registryOptions: { ...config.registryOptions, ...(store ? { store } : {}) } });
console.log(service.url);
if (Object.keys(config.operatorTokens ?? {}).length === 0) console.error('registry: no REGISTRY_OPERATOR_TOKENS, admin calls are refused');
const stop = () => {
  void service.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
