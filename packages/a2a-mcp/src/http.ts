import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AgentMcpBridge } from './bridge.js';

export interface McpHttpHandlerOptions {
  /** Open MCP sessions at most; a new one past it gets 503. Default 100. */
  maxSessions?: number;
  /**
   * `Host` header values accepted (DNS-rebinding protection), such as `127.0.0.1:8080`.
   * `serveMcpHttp` sets it to its own address; give it when you mount the handler yourself.
   */
  allowedHosts?: readonly string[];
  /** A session with no request in flight for this long is closed (clients often leave without DELETE). Default 300 000 ms. */
  sessionIdleMs?: number;
}

export interface McpHttpHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Open sessions. */
  readonly sessions: number;
  /** Closes every session. */
  close(): Promise<void>;
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** The MCP Streamable HTTP transport over the bridge, one MCP server per session. */
export function createMcpHttpHandler(bridge: AgentMcpBridge, options: McpHttpHandlerOptions = {}): McpHttpHandler {
  const maxSessions = options.maxSessions ?? 100;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new TypeError('maxSessions must be a positive integer');
  const idleMs = options.sessionIdleMs ?? 300_000;
  if (!(idleMs > 0)) throw new TypeError('sessionIdleMs must be a positive number');
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const activity = new WeakMap<StreamableHTTPServerTransport, { inflight: number; timer?: NodeJS.Timeout }>();
  const allowedHosts = options.allowedHosts ? [...options.allowedHosts] : undefined;

  /** Counts the request in flight; the session's idle timer runs only while none is (one timer per session, re-armed). */
  const track = (transport: StreamableHTTPServerTransport, res: ServerResponse) => {
    let current = activity.get(transport);
    if (!current) {
      current = { inflight: 0 };
      activity.set(transport, current);
    }
    const state = current;
    state.inflight++;
    res.once('close', () => {
      if (--state.inflight > 0) return;
      if (state.timer) state.timer.refresh();
      else {
        state.timer = setTimeout(() => {
          // A request arrived since the timer was re-armed: the session is not idle.
          if (state.inflight === 0) void transport.close();
        }, idleMs);
        state.timer.unref();
      }
    });
  };

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const header = req.headers['mcp-session-id'];
    const sessionId = typeof header === 'string' ? header : undefined;
    let transport = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (sessionId !== undefined && !transport) return reply(res, 404, 'Unknown MCP session');
    if (!transport) {
      if (req.method !== 'POST') return reply(res, 400, 'No MCP session: initialize with a POST first');
      if (sessions.size >= maxSessions) return reply(res, 503, 'Too many MCP sessions');
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
        ...(allowedHosts ? { enableDnsRebindingProtection: true, allowedHosts } : {}),
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await bridge.createServer().connect(created);
      transport = created;
    }
    track(transport, res);
    await transport.handleRequest(req, res);
  };
  // defineProperties, not Object.assign: assign would copy the getter's value at creation (0), not the getter.
  return Object.defineProperties(handler, {
    sessions: { get: () => sessions.size, enumerable: true },
    close: {
      value: async () => {
        for (const t of sessions.values()) clearTimeout(activity.get(t)?.timer);
        await Promise.allSettled([...sessions.values()].map((t) => t.close()));
        sessions.clear();
      },
    },
  }) as McpHttpHandler;
}

export interface ServeMcpHttpOptions extends McpHttpHandlerOptions {
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** Where the MCP endpoint is. Default `/mcp`. */
  path?: string;
}

export interface McpHttpServer {
  /** The MCP endpoint, such as `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the bridge over Streamable HTTP on its own node:http server; only its own `Host` is accepted. */
export async function serveMcpHttp(bridge: AgentMcpBridge, options: ServeMcpHttpOptions = {}): Promise<McpHttpServer> {
  const path = options.path ?? '/mcp';
  const http = createServer();
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port, family } = http.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  const hosts = options.allowedHosts ?? [`${host}:${port}`, ...(address === '127.0.0.1' ? [`localhost:${port}`] : [])];
  const handler = createMcpHttpHandler(bridge, { ...options, allowedHosts: hosts });
  http.on('request', (req, res) => {
    // The raw path before any query, compared as is (no URL parse per request): a non-canonical spelling is not found.
    const target = req.url ?? '/';
    const query = target.indexOf('?');
    if ((query === -1 ? target : target.slice(0, query)) !== path) return reply(res, 404, 'Not found');
    handler(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, 'Internal error');
      else res.destroy();
    });
  });
  return {
    url: `http://${host}:${port}${path}`,
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
