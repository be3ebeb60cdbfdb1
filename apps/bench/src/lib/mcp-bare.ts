import type { A2AClient } from '@a2aplane/a2a-client';
import { sendMessageParams } from './fixtures.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * A low-level MCP SDK server with one tool. Without `agent`: the SDK's own floor, a tool that
 * answers at once. With `agent`: the least any bridge can do on the SDK, a tool written by hand
 * that makes one SendMessage with our client and returns the reply's first text.
 */
export function createBareMcpServer(agent?: A2AClient): Server {
  const server = new Server({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (!agent) return { content: [{ type: 'text', text: 'hello' }] };
    const text = String(request.params.arguments?.text ?? '');
    const reply = await agent.sendMessage(sendMessageParams(text));
    return { content: [{ type: 'text', text: reply.task?.artifacts?.[0]?.parts[0]?.text ?? '' }] };
  });
  return server;
}
