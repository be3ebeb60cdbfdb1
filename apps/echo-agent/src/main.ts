import { startEchoAgent } from './serve.js';

// `pnpm --filter echo-agent start [-- --port 4000]`: serves the echo agent until Ctrl-C.
const portFlag = process.argv.indexOf('--port');
const port = portFlag > 0 ? Number(process.argv[portFlag + 1]) : 0;
const agent = await startEchoAgent({ port, wordDelayMs: 50 });
console.log(`Echo agent listening on ${agent.url}`);
console.log(`  card:     ${agent.url}/.well-known/agent-card.json`);
console.log(`  JSON-RPC: ${agent.url}/a2a/jsonrpc`);
console.log(`  REST:     ${agent.url}/a2a/rest`);
console.log(`  AgentID:  ${agent.agentId}`);
const stop = (): void => {
  void agent.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
