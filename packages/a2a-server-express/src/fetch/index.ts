// The fetch binding: the A2A server on the Web `Request → Response` contract. Loads no `node:` module.
export { type A2AFetchHandler, createFetchHandler, type FetchHandlerOptions } from './fetch-handler.js';
export type { CorsOptions } from '../http/cors.js';
export type { HttpHandlerOptions } from '../http/options.js';
