import { expect, it } from 'vitest';
import { agentAsMcpTools, mcpToolsInAGovernedTask } from '../src/mcp.js';

it('mcp: the shouter is an MCP tool the official MCP client calls', async () => {
  expect(await agentAsMcpTools()).toEqual({ tools: ['shout'], answer: 'HELLO MCP ' });
});

it('mcp: a governed task calls an MCP tool twice within its 2 USD budget; the third call is refused', async () => {
  expect(await mcpToolsInAGovernedTask()).toEqual(['found a', 'found b', 'c: refused (budget)']);
});
