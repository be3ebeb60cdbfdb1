import { startRegistryService } from '@a2aplane/a2a-registry';
import { configFromEnv } from './config.js';

// `pnpm --filter registry start`: the registry on PORT (default 8470) until Ctrl-C.
let config: ReturnType<typeof configFromEnv>;
try {
  config = configFromEnv(process.env);
} catch (error) {
  console.error(`registry: ${(error as Error).message}`);
  process.exit(64);
}
const service = await startRegistryService(config);
console.log(service.url);
if (Object.keys(config.operatorTokens ?? {}).length === 0) console.error('registry: no REGISTRY_OPERATOR_TOKENS, admin calls are refused');
const stop = () => {
  void service.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
