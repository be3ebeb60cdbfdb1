import { cpus } from 'node:os';
import { num } from '../lib/format.js';
import { GENERATOR_BOUND } from '../lib/load.js';
import { pinLoadGenerator } from '../lib/pinning.js';
import { type Goal, judge, runServers, serverReport, serverTarget } from '../lib/server-suite.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

/** Each goal's pair runs back to back (official | ours | ours-governed). */
const TARGETS = [
  serverTarget('node-echo', 'echo', [], 'bare node:http echo (the floor)'),
  serverTarget('official', 'official', [], 'official @a2a-js/sdk (express)'),
  serverTarget('ours', 'ours', [], 'ours on node:http'),
  serverTarget('ours-governed', 'ours', ['--governed'], 'ours on node:http, full governance'),
];

/** The goals of issue 33 (server ratios within noise of the run before the diet). */
const GOALS: Goal[] = [
  { mode: 'message', name: 'ours / official', num: 'ours', den: 'official', min: 4 },
  { mode: 'message', name: 'governed / ungoverned', num: 'ours-governed', den: 'ours', min: 0.9 },
  { mode: 'task', name: 'ours / official', num: 'ours', den: 'official', min: 3 },
  { mode: 'task', name: 'governed / ungoverned', num: 'ours-governed', den: 'ours', min: 0.9 },
];

export async function runThroughput(options: RunOptions): Promise<SuiteResult> {
  // More, shorter rounds: a burst of other work spoils one round, and the median drops it (decision 0036).
  const rounds = options.quick ? 2 : 5;
  const timing = options.quick
    ? { warmupSeconds: 1, warmupRequests: 3_000, warmupMaxSeconds: 6, seconds: 2 }
    : { warmupSeconds: 2, warmupRequests: 6_000, warmupMaxSeconds: 12, seconds: 3 };
  const targets = TARGETS.filter((t) => options.targets === undefined || options.targets.includes(t.id));
  const pins = pinLoadGenerator();
  const runs = await runServers(targets, ['message', 'task'], rounds, timing, pins.serverCpu).finally(() => pins.release());
  const loads = runs.map((r) => r.loadAverage1m);
  const markdown = [
    `autocannon (HTTP/1.1 keep-alive), 50 connections with one request in flight each, the same JSON-RPC \`SendMessage\` (header \`A2A-Version: 1.0\`, a fresh messageId per request) to each server; ${rounds} interleaved rounds (every other round in reverse order), a fresh child process per run, warm-up by time and request count, then ${timing.seconds} s measured. Every reply body is checked (the echoed text; task mode: state COMPLETED); a run with a mismatched body, a non-2xx reply, a socket error or a timeout is invalid and left out. **Message mode**: the executor answers with one Message. **Task mode**: submitted -> working -> one text artifact -> completed; the blocking \`SendMessage\` returns the completed task.`,
    '',
    pins.note,
    '',
    ...serverReport(runs, targets, GOALS),
    '',
    `The goals are judged on req/s. "server CPU per request" is the inverse ratio of the servers' CPU per request (user + system from \`/proc\`): it does not depend on who set the pace, so it is the figure to read when a run is LG-bound (autocannon over ${GENERATOR_BOUND * 100}% of its core). 1-minute load average over the runs: ${num(Math.min(...loads), 1)} to ${num(Math.max(...loads), 1)} on ${cpus().length} CPUs.`,
  ].join('\n');
  return { markdown, data: { rounds, runs, goals: judge(runs, GOALS) } };
}
