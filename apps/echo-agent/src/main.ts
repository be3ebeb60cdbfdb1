import { startEchoAgent } from './serve.js';

// `pnpm --filter echo-agent start [-- --port 4000] [--metrics]`: serves the echo agent until Ctrl-C.
const portFlag = process.argv.indexOf('--port');
const rawPort = portFlag > 0 ? process.argv[portFlag + 1] : '0';
const port = Number(rawPort);
if (!/^\d+$/.test(rawPort ?? '') || port > 65_535) {
  console.error(`echo-agent: --port expects an integer from 0 to 65535, got ${JSON.stringify(rawPort ?? '')}`);
  process.exit(64);
}
let agent: Awaited<ReturnType<typeof startEchoAgent>>;
try {
  agent = await startEchoAgent({
    port,
    wordDelayMs: 50,
    metrics: process.argv.includes('--metrics'),
    onPushEvent: (event) => {
      if (event.type !== 'retrying')
        console.log(`  push ${event.type} for task ${event.taskId}${'reason' in event ? `: ${event.reason}` : ''}`);
    },
  });
} catch (error) {
  const code = (error as { code?: unknown })?.code;
  console.error(`echo-agent: cannot listen on 127.0.0.1:${port}${code === 'EADDRINUSE' ? ': the port is in use' : `: ${String(error)}`}`);
  process.exit(1);
}
console.log(`Echo agent listening on ${agent.url}`);
console.log(`  card:     ${agent.url}/.well-known/agent-card.json (signed; key at ${agent.url}/.well-known/jwks.json)`);
console.log(`  JSON-RPC: ${agent.url}/a2a/jsonrpc`);
console.log(`  REST:     ${agent.url}/a2a/rest`);
console.log(`  AgentID:  ${agent.agentId}`);
if (agent.metricsUrl) console.log(`  metrics:  ${agent.metricsUrl} (Prometheus text format)`);
console.log('  streaming, cancel, push notifications (Ed25519-signed webhooks to loopback URLs); Ctrl-C stops it');
const stop = (): void => {
  void agent.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
