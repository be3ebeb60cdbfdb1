export { type AgentMcpBridge, type AgentMcpBridgeOptions, createAgentMcpBridge } from './bridge.js';
export { type BridgeContent, partToContent } from './content.js';
export {
  createGovernedMcpClient,
  executorTask,
  type GovernedMcpClient,
  type GovernedMcpClientOptions,
  type McpLineage,
  type McpToolCall,
  type McpUsage,
  type MeteredTask,
  reportedUsage,
} from './governed.js';
export { McpToolRefusedError, type McpRefusalReason } from './errors.js';
export {
  createMcpHttpHandler,
  type McpHttpHandler,
  type McpHttpHandlerOptions,
  type McpHttpServer,
  type ServeMcpHttpOptions,
  serveMcpHttp,
} from './http.js';
export { serveMcpStdio } from './stdio.js';
export type { ToolCallResult } from './tool-call.js';
export { type BridgedTool, DEFAULT_INPUT_SCHEMA, type SkillToolMapping, type ToolInputSchema, toolsFromCard } from './tool-map.js';
