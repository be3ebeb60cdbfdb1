import { startServer } from '../lib/children.js';
import { mib, num, table } from '../lib/format.js';
import { load } from '../lib/load.js';
import { describePinning, pinLoadGenerator } from '../lib/pinning.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

const TARGETS = [
  { id: 'ours', label: 'ours (node:http, default store settings)' },
  { id: 'official', label: 'official @a2a-js/sdk (InMemoryTaskStore)' },
  { id: 'ours-redis', label: 'ours with the Redis task store + event bus (state in Redis, one replica)' },
] as const;

export interface RssSample {
  second: number;
  rssBytes: number;
  heapUsedBytes: number;
  tasksStored: number;
}

export interface MemoryRun {
  target: string;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  valid: boolean;
  samples: RssSample[];
}

/** Task mode at full load (50 connections) for the whole duration; the child reports RSS every second. */
export async function runMemory(options: RunOptions): Promise<SuiteResult> {
  const seconds = options.quick ? 15 : 60;
  const runs: MemoryRun[] = [];
  const pins = pinLoadGenerator();
  try {
    // `--targets a,b` runs a subset.
    for (const target of TARGETS.filter((t) => options.targets === undefined || options.targets.includes(t.id))) {
      const server = await startServer(target.id, ['--mode', 'task', '--report-rss'], pins.pinned ? { cpu: pins.serverCpu } : {});
      const samples: RssSample[] = [];
      let startedAt = 0;
      server.onLine((line) => {
        const [tag, rss, heap, tasks] = line.split(' ');
        if (tag !== 'RSS' || startedAt === 0) return;
        samples.push({
          second: Math.round((performance.now() - startedAt) / 1000),
          rssBytes: Number(rss),
          heapUsedBytes: Number(heap),
          tasksStored: Number(tasks),
        });
      });
      try {
        startedAt = performance.now();
        const result = await load(server.url, 'task', seconds);
        // One more sample after the load stops.
        await new Promise((resolve) => setTimeout(resolve, 1100));
        runs.push({
          target: target.id,
          seconds,
          requests: result.total2xx,
          requestsPerSecond: result.requestsPerSecond,
          valid: result.valid,
          samples,
        });
        const last = samples.at(-1);
        process.stdout.write(
          `  memory ${target.id}: ${num(result.total2xx)} tasks, RSS ${last ? mib(last.rssBytes) : 'n/a'}, stored ${last?.tasksStored ?? 'n/a'}\n`,
        );
      } finally {
        await server.stop();
      }
    }
  } finally {
    pins.release();
  }
  // One row every 5 s: the sample nearest each mark.
  const marks: number[] = [];
  for (let s = 0; s <= seconds; s += 5) marks.push(s);
  marks.push(seconds + 1);
  const nearest = (run: MemoryRun | undefined, second: number) =>
    run?.samples.reduce<RssSample | undefined>(
      (best, s) => (best === undefined || Math.abs(s.second - second) < Math.abs(best.second - second) ? s : best),
      undefined,
    );
  const ours = runs.find((r) => r.target === 'ours');
  const official = runs.find((r) => r.target === 'official');
  const cell = (s: RssSample | undefined) => (s ? `${mib(s.rssBytes)} / ${num(s.tasksStored)}` : 'n/a');
  const rows = marks.map((second) => [
    second > seconds ? `${second} (after load)` : String(second),
    cell(nearest(ours, second)),
    cell(nearest(official, second)),
  ]);
  const summary = runs.map((r) => {
    const last = r.samples.at(-1);
    const peak = Math.max(...r.samples.map((s) => s.rssBytes));
    return [
      TARGETS.find((t) => t.id === r.target)?.label ?? r.target,
      num(r.requests),
      num(r.requestsPerSecond),
      mib(peak),
      last ? mib(last.rssBytes) : 'n/a',
      last ? num(last.tasksStored) : 'n/a',
      r.valid ? 'yes' : 'no',
    ];
  });
  const markdown = [
    `Task mode (submitted -> working -> artifact -> completed) at full load (the bench's load generator, \`src/lib/http-load.ts\`, 50 connections) for ${seconds} s against one child process each; the child prints \`process.memoryUsage()\` and the number of tasks in its store every second. Our store runs with its defaults (at most 10 000 tasks, terminal tasks expire after 10 minutes); the official \`InMemoryTaskStore\` never evicts.`,
    '',
    describePinning(
      pins,
      runs.some((r) => r.target === 'ours-redis'),
    ),
    '',
    table(['second', 'ours RSS / tasks stored', 'official RSS / tasks stored'], rows),
    '',
    table(['server', 'tasks completed', 'req/s', 'peak RSS', 'final RSS', 'final tasks stored', 'all replies valid'], summary),
  ].join('\n');
  return { title: 'Memory under sustained load', markdown, data: runs };
}
