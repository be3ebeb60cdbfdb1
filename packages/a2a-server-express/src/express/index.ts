// The express entry: `a2aExpress`, the node:http binding mounted as express middleware.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { A2AServer } from '../core/server.js';
import { createA2ARequestHandler, type NodeHttpHandlerOptions } from '../http/node-http.js';

export type A2AExpressOptions = NodeHttpHandlerOptions;

/** An express-compatible middleware: `(req, res, next)`. Typed structurally so express stays an optional peer. */
export type A2AExpressMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * Mounts the A2A server on an express app: `app.use(a2aExpress(server))`. The middleware answers
 * the JSON-RPC, REST and card paths and calls `next()` for everything else. It reads the raw body
 * itself, so do not put `express.json()` in front of it (it also accepts an already parsed `req.body`).
 */
export function a2aExpress(server: A2AServer, options: A2AExpressOptions = {}): A2AExpressMiddleware {
  const handle = createA2ARequestHandler(server, options);
  return (req, res, next) => {
    handle(req, res).then(
      (handled) => {
        if (!handled) next();
      },
      (error: unknown) => next(error),
    );
  };
}
