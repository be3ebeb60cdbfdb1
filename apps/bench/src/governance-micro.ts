// Run: pnpm --filter bench exec tsx src/governance-micro.ts [message|task] [governed|ungoverned] [--rounds N]
// In-process CPU of the server core's `handle` for SendMessage (no HTTP), with the governance of
// the governed bench server or without any. One variant per process (run both, alternating, and
// compare medians): in one process the shared request path would turn polymorphic (decision 0019).
import { createA2AServer, createInMemoryTaskStore } from '@a2aplane/a2a-server-express';
import { cpuMicrosPerRequest } from './lib/in-process.js';
import { benchGovernance } from './servers/bench-governor.js';
import type { Mode } from './servers/common.js';
import { oursOptions } from './servers/ours-agent.js';

const argv = process.argv.slice(2);
const value = (flag: string): string | undefined => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
const mode = (argv[0] === 'task' ? 'task' : 'message') as Mode;
const governed = argv[1] !== 'ungoverned';
const rounds = Number(value('--rounds') ?? 20);
const perRun = Number(value('--per-run') ?? 4000);
const concurrency = 50;

// One server for the whole process, as a running server keeps its store and governance state.
const server = createA2AServer({
  ...oursOptions('http://127.0.0.1:1', mode, 4, createInMemoryTaskStore()),
  ...(governed ? { governance: benchGovernance() } : {}),
});

const run = (): Promise<number> => cpuMicrosPerRequest(server, perRun, concurrency);

const results: number[] = [];
for (let round = 0; round < rounds + 3; round++) {
  const micros = await run();
  if (round >= 3) results.push(micros); // three warm-up rounds
}
await server.close();
const median = [...results].sort((a, b) => a - b)[Math.floor(results.length / 2)] ?? Number.NaN;
process.stdout.write(
  `${mode} ${governed ? 'governed' : 'ungoverned'}: ${median.toFixed(1)} µs/request (median of ${rounds} runs of ${perRun})\n`,
);
