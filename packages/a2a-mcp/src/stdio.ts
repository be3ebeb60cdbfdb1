import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { AgentMcpBridge } from './bridge.js';

/** Serves the bridge over stdio (an MCP client started this process); resolves once connected. */
export async function serveMcpStdio(
  bridge: AgentMcpBridge,
  streams: { stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream } = {},
): Promise<{ close(): Promise<void> }> {
  const server = bridge.createServer();
  const transport = new StdioServerTransport(
    streams.stdin as ConstructorParameters<typeof StdioServerTransport>[0],
    streams.stdout as ConstructorParameters<typeof StdioServerTransport>[1],
  );
  await server.connect(transport);
  return { close: () => server.close() };
}
