export { createEchoExecutor, type EchoExecutorOptions } from './echo-executor.js';
export { type EchoAgent, JWKS_PATH, type StartEchoAgentOptions, startEchoAgent } from './serve.js';
