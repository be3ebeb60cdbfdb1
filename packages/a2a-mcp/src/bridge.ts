import { type A2AClient, type A2AClientOptions, createA2AClient } from '@a2aplane/a2a-client';
import type { AgentCard } from '@a2aplane/a2a-types';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describeCallError } from './errors.js';
import { errorResult, runToolCall, type ToolCallHooks, type ToolCallResult } from './tool-call.js';
import { type BridgedTool, type SkillToolMapping, toolsFromCard } from './tool-map.js';

export interface AgentMcpBridgeOptions {
  /**
   * The agent: an A2A client of ours, or the options to make one. Card verification (on by
   * default), request signing, auth, retries and timeouts are the client's and apply to every call.
   */
  agent: A2AClient | A2AClientOptions;
  /** Per skill id: tool name, description, input schema, how arguments become message parts. */
  tools?: Readonly<Record<string, SkillToolMapping>>;
  /** Times one call may answer an `input-required` task through elicitation. Default 3. */
  maxInputRounds?: number;
  /** MCP server name. Default: the card's name. */
  name?: string;
}

export interface AgentMcpBridge {
  /** The agent's card, as the client read (and verified) it. */
  readonly card: AgentCard;
  readonly tools: readonly BridgedTool[];
  /** A fresh MCP server over the bridge (one per connection or HTTP session). */
  createServer(): Server;
}

const isClient = (agent: A2AClient | A2AClientOptions): agent is A2AClient =>
  typeof (agent as Partial<A2AClient>).sendMessage === 'function';

/**
 * Exposes an A2A agent as MCP tools: reads the card through the client (a signed card that fails
 * verification throws here, before any tool exists), then one tool per skill.
 */
export async function createAgentMcpBridge(options: AgentMcpBridgeOptions): Promise<AgentMcpBridge> {
  const maxInputRounds = options.maxInputRounds ?? 3;
  if (!Number.isInteger(maxInputRounds) || maxInputRounds < 0) throw new TypeError('maxInputRounds must be a non-negative integer');
  const client = isClient(options.agent) ? options.agent : createA2AClient(options.agent);
  const card = await client.getCard();
  const tools = toolsFromCard(card, options.tools);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const streaming = card.capabilities?.streaming === true;
  const info = { name: options.name ?? card.name, version: card.version || '0.0.0' };

  const createServer = (): Server => {
    const server = new Server(info, { capabilities: { tools: {} }, instructions: card.description });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<ToolCallResult> => {
      const tool = byName.get(request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      const parts = tool.toParts(request.params.arguments ?? {});
      if (parts.length === 0) return errorResult(`${tool.name} needs input: give "text" or "data".`);
      const token = extra._meta?.progressToken;
      let step = 0;
      const hooks: ToolCallHooks = { signal: extra.signal };
      if (token !== undefined) {
        hooks.progress = (message) =>
          extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: ++step, ...(message ? { message } : {}) },
          });
      }
      if (server.getClientCapabilities()?.elicitation) {
        hooks.elicit = async (message) => {
          const answer = await server.elicitInput(
            { message, requestedSchema: { type: 'object', properties: { text: { type: 'string', title: 'Reply' } }, required: ['text'] } },
            { relatedRequestId: extra.requestId, signal: extra.signal },
          );
          const text = answer.content?.text;
          return answer.action === 'accept' && typeof text === 'string' ? text : undefined;
        };
      }
      try {
        return await runToolCall(client, { streaming, maxInputRounds }, parts, hooks);
      } catch (error) {
        if (extra.signal.aborted) throw error; // the MCP client canceled; it ignores any answer
        return errorResult(describeCallError(error));
      }
    });
    return server;
  };
  return { card, tools, createServer };
}
