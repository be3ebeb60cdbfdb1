export { createEchoExecutor, type EchoExecutorOptions } from './echo-executor.js';
export { type EchoAgent, type StartEchoAgentOptions, startEchoAgent } from './serve.js';
