import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ConsoleRequestError, sendError } from './http-helpers.js';
import { createRelay, type RelayOptions } from './relay.js';
import { hasSessionToken, isOwnHost, newSessionToken } from './session.js';
import { createStaticFiles } from './static-files.js';
import type { ConsoleRoute } from './types.js';

export interface ConsoleServerOptions {
  /** Extra routes (OTLP, traces, registry views), tried in order before the built-in ones. */
  routes?: readonly ConsoleRoute[];
  /** The relay for agents that do not allow the console's origin (CORS). */
  relay?: RelayOptions;
  /** The built UI (`dist/ui`); defaults to the one shipped beside this module. */
  uiRoot?: string;
  /** The session token the UI must send; default a fresh random one (tests pass their own). */
  sessionToken?: string;
}

export interface ConsoleServer {
  /** Starts listening (port 0: any free port; host default 127.0.0.1) and answers the console's URL. */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
  /** The console's URL once listening. */
  readonly url: string;
  /** The token the UI sends on `/api/*` calls (written into the page it serves). */
  readonly sessionToken: string;
}

const DEFAULT_UI_ROOT = fileURLToPath(new URL('../ui', import.meta.url));

/**
 * The console's backend: the UI build, the JSON API under `/api/` and any mounted routes, on
 * node:http. `/api/*` answers only requests that name the console as Host (no DNS rebinding) and
 * carry the session token of the page it served (no other site can drive the relay).
 */
export function createConsoleServer(options: ConsoleServerOptions = {}): ConsoleServer {
  const sessionToken = options.sessionToken ?? newSessionToken();
  const routes = [...(options.routes ?? [])];
  const staticFiles = createStaticFiles(options.uiRoot ?? DEFAULT_UI_ROOT, sessionToken);
  const relay = createRelay(options.relay);
  let boundHost = '127.0.0.1';
  let url = '';

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const pathname = new URL(req.url ?? '/', 'http://console').pathname;
    if (!isOwnHost(req, boundHost)) return sendError(res, 421, 'unknown host');
    const isApi = pathname === '/api' || pathname.startsWith('/api/');
    if (isApi && !hasSessionToken(req, sessionToken)) return sendError(res, 403, 'missing or wrong console session token');
    for (const route of routes) {
      if ((route.method === '*' || route.method === req.method) && pathname.startsWith(route.prefix)) {
        return await route.handle(req, res);
      }
    }
    if (pathname.startsWith('/api/relay')) return await relay.handle(req, res, pathname);
    if (isApi) return sendError(res, 404, 'no such API');
    return await staticFiles(req, res, pathname);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const status = error instanceof ConsoleRequestError ? error.status : 500;
      const message = error instanceof ConsoleRequestError ? error.message : 'internal error';
      if (!res.headersSent) sendError(res, status, message);
      else res.destroy();
    });
  });

  return {
    async listen(port = 0, host = '127.0.0.1') {
      boundHost = host;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      const address = server.address() as AddressInfo;
      const shown = host.includes(':') ? `[${host}]` : host;
      url = `http://${shown}:${address.port}`;
      return url;
    },
    async close() {
      relay.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    get url() {
      return url;
    },
    sessionToken,
  };
}
