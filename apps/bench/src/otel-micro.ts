// Run: pnpm --filter bench exec tsx src/otel-micro.ts <governed|traced|traced-cm|sdk> [message|task] [N]
// (a quick before/after check of a2a-otel, not a suite of `pnpm bench`; one variant per process,
// since the SDK registers globally). In-process CPU of the governed server's `handle` (no HTTP)
// for SendMessage, without instrumentation (`governed`), with it and no SDK (`traced`), with only
// a context manager (`traced-cm`) and with the bench's SDK (`sdk`). Prints CPU µs per request.
import { createServerInstrumentation } from '@a2aplane/a2a-otel';
import { createA2AServer, InMemoryTaskStore } from '@a2aplane/a2a-server-express';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { benchGovernance } from './servers/bench-governor.js';
import type { Mode } from './servers/common.js';
import { oursOptions } from './servers/ours-agent.js';

const variant = process.argv[2] ?? 'traced';
const mode = (process.argv[3] ?? 'message') as Mode;
const total = Number(process.argv[4] ?? 5000);
const concurrency = 50;

if (variant === 'traced-cm') context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const meterProvider = variant === 'sdk' ? (await import('./servers/otel-sdk.js')).registerBenchSdk() : undefined;
const instrumentation =
  variant === 'governed'
    ? undefined
    : createServerInstrumentation({ agentId: 'bench-ours', agentName: 'bench', ...(meterProvider ? { meterProvider } : {}) });

// What the node:http handler hands the core: headers flattened on first read.
const raw = { host: '127.0.0.1:1', 'content-type': 'application/json', 'a2a-version': '1.0', connection: 'keep-alive' };
const request = () => ({
  method: 'SendMessage',
  params: { message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
  version: '1.0',
  auth: {
    method: 'POST',
    target: '/a2a/jsonrpc',
    get headers(): Record<string, string | undefined> {
      return { ...raw };
    },
    query: new URLSearchParams(),
  },
});

const results: number[] = [];
for (let round = 0; round < 12; round++) {
  // A fresh server (and task store) per round: no round pays for the heap of the ones before.
  const server = createA2AServer({
    ...oursOptions('http://127.0.0.1:1', mode, 4, new InMemoryTaskStore()),
    governance: benchGovernance(instrumentation?.governanceHooks),
    ...(instrumentation ? { instrumentation } : {}),
  });
  let n = 0;
  const worker = async (): Promise<void> => {
    while (n < total) {
      n += 1;
      const r = await server.handle(request());
      if (r.kind !== 'result') throw new Error(JSON.stringify(r));
    }
  };
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = process.cpuUsage(cpu0);
  await server.close();
  if (round >= 2) results.push((cpu.user + cpu.system) / total);
}
results.sort((a, b) => a - b);
const median = results[Math.floor(results.length / 2)] ?? Number.NaN;
console.log(`${variant} ${mode}: median ${median.toFixed(1)} µs CPU/req (${results.map((r) => r.toFixed(1)).join(' ')})`);
