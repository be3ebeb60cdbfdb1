import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

export interface ToolServer {
  url: string;
  /** The `_meta` of every `lookup` call the server received, in order. */
  calls: Record<string, unknown>[];
  close(): Promise<void>;
}

/**
 * A real MCP server (the official SDK's `McpServer`, stateless Streamable HTTP) on 127.0.0.1:0
 * with one tool, `lookup`, which answers `found <q>` and reports `usd` as its usage when given.
 */
export async function startToolServer(options: { reportUsd?: number } = {}): Promise<ToolServer> {
  const calls: Record<string, unknown>[] = [];
  const http = createServer(async (req, res) => {
    const server = new McpServer({ name: 'tools', version: '1.0.0' });
    server.registerTool('lookup', { description: 'Looks a word up.', inputSchema: { q: z.string() } }, async ({ q }, extra) => {
      calls.push({ ...(extra._meta ?? {}) });
      return {
        content: [{ type: 'text', text: `found ${q}` }],
        ...(options.reportUsd ? { _meta: { ruvector: { usage: { usd: options.reportUsd } } } } : {}),
      };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
