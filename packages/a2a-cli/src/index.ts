export { CLI_VERSION, runCli } from './cli.js';
export type { CliIo, CliStream } from './io.js';
export { CliError, describeError, EXIT_CODES, type ExitCode } from './errors.js';
export { JWKS_PATH, type ServeAgentOptions, type ServedAgent, startServeAgent } from './agent.js';
