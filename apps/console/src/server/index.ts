export { ConsoleRequestError, readBody, readJsonBody, sendError, sendJson } from './http-helpers.js';
export { createMesh, type Mesh, type MeshOptions, OTLP_TRACES_PATH, type RegistryAgent } from './mesh/index.js';
export type { RelayOptions } from './relay.js';
export { TOKEN_HEADER } from './session.js';
export type { ConsoleRoute } from './types.js';
export { type ConsoleServer, type ConsoleServerOptions, createConsoleServer } from './console-server.js';
export { CONSOLE_HELP, createConsoleFor, parseConsoleArgs, type StartConsoleOptions, startConsole } from './start.js';
