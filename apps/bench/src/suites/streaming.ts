import { A2A_VERSION_HEADER } from '@a2aplane/a2a-types';
import { startServer } from '../lib/children.js';
import { sendMessageParams } from '../lib/fixtures.js';
import { num, ratio, table } from '../lib/format.js';
import { describePinning, pinLoadGenerator } from '../lib/pinning.js';
import { readSseData } from '../lib/sse.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

const EVENTS_PER_TASK = 100;
const TARGETS = [
  { id: 'official', label: 'official @a2a-js/sdk' },
  { id: 'ours', label: 'ours (node:http)' },
] as const;

export interface StreamingRun {
  target: string;
  subscribers: number;
  streams: number;
  events: number;
  /** Streams that did not deliver exactly EVENTS_PER_TASK events ending in COMPLETED. */
  mismatches: number;
  seconds: number;
  eventsPerSecond: number;
}

/** `subscribers` concurrent loops, each opening SendStreamingMessage streams one after another until the deadline. */
async function drive(url: string, subscribers: number, seconds: number): Promise<Omit<StreamingRun, 'target' | 'subscribers'>> {
  // A fresh messageId per stream: a repeated one would replay the original task, not run a new one.
  const body = (): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: sendMessageParams('hello') });
  const deadline = performance.now() + seconds * 1000;
  let streams = 0;
  let events = 0;
  let mismatches = 0;
  const started = performance.now();
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const response = await fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', [A2A_VERSION_HEADER]: '1.0' },
        body: body(),
      });
      if (!response.ok || !response.body) {
        mismatches++;
        await response.arrayBuffer().catch(() => undefined);
        continue;
      }
      const data = await readSseData(response.body);
      streams++;
      events += data.length;
      if (data.length !== EVENTS_PER_TASK || !data.at(-1)?.includes('"state":"TASK_STATE_COMPLETED"')) mismatches++;
    }
  };
  await Promise.all(Array.from({ length: subscribers }, loop));
  const elapsed = (performance.now() - started) / 1000;
  return { streams, events, mismatches, seconds: elapsed, eventsPerSecond: events / elapsed };
}

export async function runStreaming(options: RunOptions): Promise<SuiteResult> {
  const levels = [1, 10, 100];
  const seconds = options.quick ? 2 : 4;
  const runs: StreamingRun[] = [];
  const pins = pinLoadGenerator();
  try {
    for (const subscribers of levels) {
      for (const target of TARGETS) {
        const server = await startServer(
          target.id,
          ['--mode', 'stream', '--events', String(EVENTS_PER_TASK)],
          pins.pinned ? { cpu: pins.serverCpu } : {},
        );
        try {
          await drive(server.url, subscribers, 1);
          const result = await drive(server.url, subscribers, seconds);
          runs.push({ target: target.id, subscribers, ...result });
          process.stdout.write(
            `  stream ${subscribers} ${target.id}: ${num(result.eventsPerSecond)} events/s (${result.mismatches} mismatches)\n`,
          );
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    pins.release();
  }
  const rows = levels.map((subscribers) => {
    const official = runs.find((r) => r.target === 'official' && r.subscribers === subscribers);
    const ours = runs.find((r) => r.target === 'ours' && r.subscribers === subscribers);
    const cell = (r: StreamingRun | undefined) =>
      r ? `${num(r.eventsPerSecond)}${r.mismatches ? ` (${r.mismatches} bad streams)` : ''}` : 'n/a';
    return [
      String(subscribers),
      cell(official),
      cell(ours),
      ratio(ours && official ? ours.eventsPerSecond / official.eventsPerSecond : Number.NaN),
      `${official?.streams ?? 0} / ${ours?.streams ?? 0}`,
    ];
  });
  const markdown = [
    `\`SendStreamingMessage\` (JSON-RPC over SSE) with ${EVENTS_PER_TASK} events per task (task, working, ${EVENTS_PER_TASK - 3} artifact chunks, completed). N concurrent subscribers each open one stream after another for ${seconds} s (after 1 s warm-up), consumed with \`fetch\` and a minimal SSE parser; every stream is checked for ${EVENTS_PER_TASK} events ending in COMPLETED. Fresh server process per cell.`,
    '',
    describePinning(pins),
    '',
    table(['concurrent subscribers', 'official events/s', 'ours events/s', 'ours / official', 'streams (official / ours)'], rows),
  ].join('\n');
  return { title: 'Streaming', markdown, data: runs };
}
