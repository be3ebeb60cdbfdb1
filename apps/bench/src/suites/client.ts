import { ClientFactory } from '@a2a-js/sdk/client';
import { SendMessageRequest as SdkSendMessageRequest } from '@a2a-js/sdk';
import { createA2AClient } from '@a2aplane/a2a-client';
import { A2A_VERSION_HEADER, type AgentCard } from '@a2aplane/a2a-types';
import { type ServerChild, startServer } from '../lib/children.js';
import { describePinning, pinLoadGenerator } from '../lib/pinning.js';
import { sendMessageParams } from '../lib/fixtures.js';
import { median, num, passFail, ratio, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

type Call = () => Promise<boolean>;

interface Contender {
  name: string;
  call: Call;
}

export interface ClientRow {
  client: string;
  calls: number;
  failures: number;
  callsPerSecond: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU (user + system) of the bench process per call, in µs: the client's cost (the server is a child). */
  cpuUsPerCall: number;
}

interface Scenario {
  id: string;
  rows: ClientRow[];
  /** Per-block calls/s ratio of each client to the reference (raw fetch, or the official client). */
  ratios: Record<string, number>;
  /** Each contender's calls/s per block, in block order (for ratios to another contender). */
  blockRates: Record<string, number[]>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const cpuMicros = (): number => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

/**
 * Runs every contender for `total` calls with `concurrency` callers, in interleaved blocks so that
 * background load hits them alike. Ratios are medians of the per-block calls/s ratios to `reference`.
 */
async function runScenario(
  id: string,
  contenders: Contender[],
  total: number,
  blocks: number,
  concurrency: number,
  reference: string,
): Promise<Scenario> {
  const perBlock = Math.floor(total / blocks);
  const state = contenders.map((c) => ({ ...c, times: [] as number[], failures: 0, elapsed: 0, cpu: 0, blockRate: [] as number[] }));
  for (let block = 0; block < blocks; block++) {
    // Rotate who goes first, so that no contender always runs right after the same other one (GC debt).
    const order = state.map((_, i) => state[(i + block) % state.length]!);
    for (const c of order) {
      let next = 0;
      const cpu0 = cpuMicros();
      const started = performance.now();
      const worker = async (): Promise<void> => {
        while (next < perBlock) {
          next++;
          const t0 = performance.now();
          const ok = await c.call().catch(() => false);
          c.times.push(performance.now() - t0);
          if (!ok) c.failures++;
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      const elapsed = performance.now() - started;
      c.cpu += cpuMicros() - cpu0;
      c.elapsed += elapsed;
      c.blockRate.push((perBlock * 1000) / elapsed);
    }
  }
  const ref = state.find((c) => c.name === reference);
  const ratios: Record<string, number> = {};
  const blockRates: Record<string, number[]> = {};
  for (const c of state) {
    ratios[c.name] = ref ? median(c.blockRate.map((rate, i) => rate / ref.blockRate[i]!)) : Number.NaN;
    blockRates[c.name] = c.blockRate;
  }
  const rows = state.map((c) => {
    const sorted = [...c.times].sort((a, b) => a - b);
    return {
      client: c.name,
      calls: c.times.length,
      failures: c.failures,
      callsPerSecond: (c.times.length * 1000) / c.elapsed,
      meanMs: c.elapsed / c.times.length,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      cpuUsPerCall: c.cpu / c.times.length,
    };
  });
  return { id, rows, ratios, blockRates };
}

function scenarioTable(scenario: Scenario, reference: string): string {
  return table(
    ['client', 'calls', 'failures', 'calls/s', `vs ${reference}`, 'mean ms', 'p50 ms', 'p99 ms', 'CPU µs/call'],
    scenario.rows.map((r) => [
      r.client,
      num(r.calls),
      num(r.failures),
      num(r.callsPerSecond),
      ratio(scenario.ratios[r.client] ?? Number.NaN),
      r.meanMs.toFixed(3),
      r.p50Ms.toFixed(3),
      r.p99Ms.toFixed(3),
      num(r.cpuUsPerCall),
    ]),
  );
}

/** Interleaved blocks per scenario: more, shorter blocks make the median ratio steadier on a busy machine. */
const BLOCKS = 24;
const RAW = 'raw fetch';
const OURS = 'ours (@a2aplane/a2a-client)';
const OFFICIAL = 'official (@a2a-js/sdk ClientFactory)';

/** The contenders against one server: raw fetch, our client, the official client. */
async function contendersFor(server: ServerChild): Promise<Contender[]> {
  const endpoint = `${server.url}/a2a/jsonrpc`;
  const params = sendMessageParams('hello');
  const isReply = (text: unknown) => text === 'echo: hello';

  // Raw fetch: the same JSON-RPC body, serialized and parsed per call.
  let id = 0;
  const raw: Call = async () => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [A2A_VERSION_HEADER]: '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'SendMessage', params }),
    });
    const body = (await response.json()) as { result?: { message?: { parts?: Array<{ text?: string }> } } };
    return isReply(body.result?.message?.parts?.[0]?.text);
  };
  const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as AgentCard;
  // As users build it: the defaults (timeouts, per-origin cap, circuit breaker) stay on.
  const client = createA2AClient({ card, preferredBindings: ['JSONRPC'] });
  const ours: Call = async () => {
    const result = await client.sendMessage(params);
    const part = result.message?.parts[0];
    return isReply(part && 'text' in part ? part.text : undefined);
  };

  const official = await new ClientFactory().createFromUrl(server.url);
  const sdkParams = SdkSendMessageRequest.fromJSON(params);
  const officialCall: Call = async () => {
    const result = (await official.sendMessage(sdkParams)) as { parts?: Array<{ content?: { $case: string; value: unknown } }> };
    const content = result.parts?.[0]?.content;
    return content?.$case === 'text' && isReply(content.value);
  };

  return [
    { name: RAW, call: raw },
    { name: OURS, call: ours },
    { name: OFFICIAL, call: officialCall },
  ];
}

async function warmUp(contenders: Contender[], calls: number): Promise<void> {
  for (const c of contenders) {
    let failures = 0;
    for (let i = 0; i < calls; i++) if (!(await c.call())) failures++;
    if (failures > 0) throw new Error(`${c.name}: ${failures} warm-up calls did not return the expected reply`);
  }
}

export async function runClient(options: RunOptions): Promise<SuiteResult> {
  const quick = options.quick;
  // The bench process (every client) on one CPU, the servers on the other, as the throughput suite does
  // (decision 0036): otherwise a server's work lands on the client's core at random and moves the ratios.
  const pins = pinLoadGenerator();
  const serverCpu = pins.pinned ? { cpu: pins.serverCpu } : {};
  let instant: ServerChild | undefined;
  let delayed: ServerChild | undefined;
  try {
    instant = await startServer('ours', ['--mode', 'message'], serverCpu);
    delayed = await startServer('ours', ['--mode', 'message', '--delay-ms', '1'], serverCpu);
    const atInstant = await contendersFor(instant);
    const atDelayed = await contendersFor(delayed);
    // Every contender gets the same warm-up on each server, long enough for V8 to have compiled its
    // hot path (decision 0040: compile work inside a measured block reads as client cost).
    await warmUp(atInstant, quick ? 200 : 1000);
    await warmUp(atDelayed, quick ? 100 : 400);

    const sequential = await runScenario('instant', atInstant, quick ? 800 : 3200, BLOCKS, 1, RAW);
    // 400 calls a block (decision 0056): the server's 1 ms timer fires after 1.1 to 2.4 ms, and with
    // 100 a block two identical contenders read up to 25 % apart in one block.
    const delay = await runScenario('delay-1ms', atDelayed, quick ? 480 : 9600, BLOCKS, 1, RAW);
    const concurrent = await runScenario('concurrent-16', atInstant, quick ? 1600 : 6400, BLOCKS, 16, OFFICIAL);

    const failures = [sequential, delay, concurrent].flatMap((s) => s.rows).reduce((n, r) => n + r.failures, 0);
    const goals = {
      instantVsRaw: sequential.ratios[OURS]!,
      delayVsRaw: delay.ratios[OURS]!,
      concurrentVsOfficial: concurrent.ratios[OURS]!,
    };
    const pass = {
      instant: goals.instantVsRaw >= 0.8,
      delay: goals.delayVsRaw >= 0.95,
      concurrent: goals.concurrentVsOfficial >= 0.8,
    };
    const cpuOf = (s: Scenario, client: string) => num(s.rows.find((r) => r.client === client)!.cpuUsPerCall);
    // The client's CPU per call next to each ratio: steadier than calls/s on a busy machine.
    const cpuNote = (s: Scenario, reference: string, label: string) =>
      `ours ${cpuOf(s, OURS)} µs CPU/call, ${label} ${cpuOf(s, reference)}`;
    const markdown = [
      `\`SendMessage\` round trips from this process against child processes of our server (node:http, message mode): one that answers at once, one whose executor waits 1 ms. Our client and the official one are used as users run them (built \`dist\`, default options: for ours the 10 s timeout, per-origin cap and circuit breaker stay on). Raw fetch sends the same JSON-RPC body (\`JSON.stringify\` per call) and parses the reply. Every reply is checked. Every contender is warmed up on each server before any block. Each scenario runs in ${BLOCKS} interleaved blocks (the order rotates every block); ratios are medians of the per-block calls/s ratios, calls/s and CPU are totals. CPU µs/call is this process's user + system CPU per call (the client's own cost; the server runs in a child). Bundle sizes are in the bundle suite.`,
      '',
      describePinning(pins),
      '',
      `**Sequential, instant server** (${num(sequential.rows[0]!.calls)} calls each):`,
      '',
      scenarioTable(sequential, RAW),
      '',
      `**Sequential, 1 ms server delay** (${num(delay.rows[0]!.calls)} calls each):`,
      '',
      scenarioTable(delay, RAW),
      '',
      `**16 concurrent callers, instant server** (${num(concurrent.rows[0]!.calls)} calls each):`,
      '',
      scenarioTable(concurrent, OFFICIAL),
      '',
      '| goal | measured | target | result |',
      '| --- | --- | --- | --- |',
      `| round trip vs raw fetch, instant server | ${ratio(goals.instantVsRaw)} (${cpuNote(sequential, RAW, 'raw')}) | >= 0.80x | **${passFail(pass.instant)}** |`,
      `| round trip vs raw fetch, 1 ms server delay | ${ratio(goals.delayVsRaw)} (${cpuNote(delay, RAW, 'raw')}) | >= 0.95x | **${passFail(pass.delay)}** |`,
      `| calls/s vs the official client, 16 concurrent callers | ${ratio(goals.concurrentVsOfficial)} (${cpuNote(concurrent, OFFICIAL, 'official')}) | >= 0.80x | **${passFail(pass.concurrent)}** |`,
      '',
      `Failed calls: ${num(failures)}.`,
    ].join('\n');
    return {
      title: 'Client round trips',
      markdown,
      data: {
        scenarios: [sequential, delay, concurrent],
        goals,
        pass,
        failures,
      },
    };
  } finally {
    await instant?.stop();
    await delayed?.stop();
    pins.release();
  }
}
