// Both halves. A client should import `@a2aplane/a2a-grpc/client`, a server `@a2aplane/a2a-grpc/server`:
// then neither loads the other's modules (the client half never reaches a2a-server-express).
export * from './client/index.js';
export * from './server/index.js';
