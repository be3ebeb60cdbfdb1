import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseTraceparent } from '@a2aplane/a2a-types';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { context, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import * as z from 'zod';

/** What the tool server saw of one call. */
export interface ToolServerCall {
  item: string;
  /** The `traceparent` the caller put in the request's `_meta`, if any. */
  traceparent?: string;
  /** Whether the caller's lineage (our metadata namespace) came along. */
  lineage: boolean;
}

export interface DemoToolServer {
  /** The MCP endpoint (Streamable HTTP). */
  url: string;
  readonly calls: readonly ToolServerCall[];
  close(): Promise<void>;
}

/** The tool of the demo's MCP server. */
export const PRICE_TOOL = 'price';

/**
 * An MCP server (the official SDK's `McpServer`, stateless Streamable HTTP) on 127.0.0.1 with one
 * tool, `price`, which reports its cost as usage (`_meta.ruvector.usage.usd`). With a tracer, it
 * continues the caller's trace from the `traceparent` in the request's `_meta`, as an MCP server
 * that speaks W3C trace context would: its span is a child of the caller's `tools/call` span.
 */
export async function startToolServer(options: { costUsd: number; tracer?: Tracer }): Promise<DemoToolServer> {
  const calls: ToolServerCall[] = [];
  const http = createServer(async (req, res) => {
    const server = new McpServer({ name: 'price-list', version: '1.0.0' });
    server.registerTool(
      PRICE_TOOL,
      { description: 'The list price of an item, in USD.', inputSchema: { item: z.string().max(200) } },
      async ({ item }, extra) => {
        const meta = extra._meta ?? {};
        const traceparent = typeof meta.traceparent === 'string' ? meta.traceparent : undefined;
        calls.push({ item, ...(traceparent ? { traceparent } : {}), lineage: typeof meta.ruvector === 'object' && meta.ruvector !== null });
        const answer = () => ({
          content: [{ type: 'text' as const, text: `${item}: $${(item.length * 1.25).toFixed(2)}` }],
          _meta: { ruvector: { usage: { usd: options.costUsd } } },
        });
        const parent = traceparent ? parseTraceparent(traceparent) : undefined;
        if (!options.tracer || !parent) return answer();
        const remote = trace.setSpanContext(context.active(), {
          traceId: parent.traceId,
          spanId: parent.parentId,
          traceFlags: Number.parseInt(parent.flags, 16) & 1,
          isRemote: true,
        });
        const span = options.tracer.startSpan(
          `tools/call ${PRICE_TOOL}`,
          {
            kind: SpanKind.SERVER,
            attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': PRICE_TOOL, 'a2a.cost.usd': options.costUsd },
          },
          remote,
        );
        span.end();
        return answer();
      },
    );
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
