export * from './attributes.js';
export { type ClientInstrumentationOptions, createClientInterceptors, instrumentClient } from './client.js';
export { DURATION_BUCKETS_S } from './metrics.js';
export { type A2AServerInstrumentation, createServerInstrumentation, type ServerInstrumentationOptions } from './server.js';
