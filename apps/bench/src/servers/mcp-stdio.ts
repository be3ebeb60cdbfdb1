import { createA2AClient } from '@a2aplane/a2a-client';
import { createAgentMcpBridge, serveMcpStdio } from '@a2aplane/a2a-mcp';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createBareMcpServer } from '../lib/mcp-bare.js';

// An MCP server over stdio for the mcp suite (the MCP client spawns it): `--bare` the SDK's floor
// (a tool that answers at once); with `--agent <url>`, `--hand-written` a tool that makes one
// SendMessage to that agent, else the bridge to it (serveMcpStdio).
const argv = process.argv.slice(2);
const agentIndex = argv.indexOf('--agent');
const agentUrl = agentIndex === -1 ? undefined : argv[agentIndex + 1];
if (argv.includes('--bare')) {
  await createBareMcpServer().connect(new StdioServerTransport());
} else if (agentUrl && argv.includes('--hand-written')) {
  await createBareMcpServer(createA2AClient({ baseUrl: agentUrl })).connect(new StdioServerTransport());
} else if (agentUrl) {
  await serveMcpStdio(await createAgentMcpBridge({ agent: createA2AClient({ baseUrl: agentUrl }) }));
} else {
  process.stderr.write('expected --bare, or --agent <url> [--hand-written]\n');
  process.exit(2);
}
