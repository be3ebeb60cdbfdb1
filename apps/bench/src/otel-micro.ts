// Run: pnpm --filter bench exec tsx src/otel-micro.ts [message|task] [--sdk | --context-manager]
//        [--module <another build's a2a-otel dist/index.js>] [--rounds N]
// A quick before/after check of a2a-otel, not a suite of `pnpm bench`. In-process CPU of the
// governed server's `handle` (no HTTP) for SendMessage: without instrumentation (`governed`), with
// this workspace's a2a-otel (`traced`) and, with `--module`, with that build (`baseline`), all in
// one process, interleaved round by round (a fresh server and task store per run), so each round's
// differences over `governed` are paired under the same machine load. `--sdk` registers the bench's
// SDK for all of them (then `governed` runs under its context manager too); `--context-manager`
// only a context manager. Prints medians of CPU µs per request and of the paired differences.
// `--module` needs a build with this core's seam (`serve(request)`, decision 0046).
import { pathToFileURL } from 'node:url';
import * as otel from '@a2aplane/a2a-otel';
import { createA2AServer, type ServerInstrumentation, createInMemoryTaskStore } from '@a2aplane/a2a-server-express';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { cpuMicrosPerRequest } from './lib/in-process.js';
import { benchGovernance } from './servers/bench-governor.js';
import type { Mode } from './servers/common.js';
import { oursOptions } from './servers/ours-agent.js';

const argv = process.argv.slice(2);
const value = (flag: string): string | undefined => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
const mode = (argv[0] === 'task' ? 'task' : 'message') as Mode;
const rounds = Number(value('--rounds') ?? 30);
const perRun = 4000;
const concurrency = 50;

if (argv.includes('--context-manager')) context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const meterProvider = argv.includes('--sdk') ? (await import('./servers/otel-sdk.js')).registerBenchSdk() : undefined;
const options = { agentId: 'bench-ours', agentName: 'bench', ...(meterProvider ? { meterProvider } : {}) };
type Instrumentation = ReturnType<typeof otel.createServerInstrumentation>;
const variants: Record<string, Instrumentation | undefined> = { governed: undefined, traced: otel.createServerInstrumentation(options) };
const baseline = value('--module');
if (baseline) variants.baseline = ((await import(pathToFileURL(baseline).href)) as typeof otel).createServerInstrumentation(options);

/** CPU µs per request of one run on a fresh server: no run pays for the heap of the ones before. */
async function run(instrumentation: Instrumentation | undefined): Promise<number> {
  const server = createA2AServer({
    ...oursOptions('http://127.0.0.1:1', mode, 4, createInMemoryTaskStore()),
    governance: benchGovernance(instrumentation?.governanceHooks),
    ...(instrumentation ? { instrumentation: instrumentation as ServerInstrumentation } : {}),
  });
  const micros = await cpuMicrosPerRequest(server, perRun, concurrency);
  await server.close();
  return micros;
}

const results: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < rounds + 3; round++) {
  for (const [name, instrumentation] of Object.entries(variants)) {
    const micros = await run(instrumentation);
    if (round >= 3) results[name]?.push(micros); // three warm-up rounds
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const setup = meterProvider ? 'SDK' : argv.includes('--context-manager') ? 'context manager only' : 'no SDK';
const governed = results.governed ?? [];
for (const [name, xs] of Object.entries(results)) {
  const paired =
    name === 'governed' ? '' : `, ${median(xs.map((x, i) => x - (governed[i] ?? Number.NaN))).toFixed(1)} µs over governed (paired)`;
  console.log(`${mode}, ${setup}, ${name}: ${median(xs).toFixed(1)} µs CPU/request${paired} (${rounds} rounds)`);
}
