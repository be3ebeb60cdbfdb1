import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * An extra route of the console's backend: requests whose method matches (`'*'` for any) and whose
 * path starts with `prefix` go to `handle`. Mounted routes are tried in order, before the built-in
 * API and the UI files. A route under `/api/` gets the console's session check first (see
 * `createConsoleServer`); others (such as OTLP's `/v1/traces`) are reached without it.
 */
export interface ConsoleRoute {
  method: string;
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
}
