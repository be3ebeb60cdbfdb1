import { ClientFactory } from '@a2a-js/sdk/client';
import { SendMessageRequest as SdkSendMessageRequest } from '@a2a-js/sdk';
import { createA2AClient } from '@a2aplane/a2a-client';
import { A2A_VERSION_HEADER, type AgentCard } from '@a2aplane/a2a-types';
import { startServer } from '../lib/children.js';
import { sendMessageParams } from '../lib/fixtures.js';
import { median, num, passFail, ratio, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

type Call = () => Promise<boolean>;

export interface ClientRow {
  client: string;
  calls: number;
  failures: number;
  callsPerSecond: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export async function runClient(options: RunOptions): Promise<SuiteResult> {
  const total = 2000;
  const warmup = options.quick ? 200 : 500;
  const blocks = 8;
  const server = await startServer('ours', ['--mode', 'message']);
  try {
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
    const ours = createA2AClient({ card, preferredBindings: ['JSONRPC'] });
    const oursCall: Call = async () => {
      const result = await ours.sendMessage(params);
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

    const clients: Array<{ name: string; call: Call; times: number[]; failures: number; elapsed: number }> = [
      { name: 'raw fetch', call: raw, times: [], failures: 0, elapsed: 0 },
      { name: 'ours (@a2aplane/a2a-client)', call: oursCall, times: [], failures: 0, elapsed: 0 },
      { name: 'official (@a2a-js/sdk ClientFactory)', call: officialCall, times: [], failures: 0, elapsed: 0 },
    ];
    for (const c of clients) {
      for (let i = 0; i < warmup; i++) if (!(await c.call())) c.failures++;
      if (c.failures > 0) throw new Error(`${c.name}: ${c.failures} warm-up calls did not return the expected reply`);
    }
    // Interleaved blocks so background load hits the three clients alike.
    const perBlock = total / blocks;
    const blockRatios: number[] = [];
    for (let block = 0; block < blocks; block++) {
      const blockElapsed: number[] = [];
      for (const c of clients) {
        const started = performance.now();
        for (let i = 0; i < perBlock; i++) {
          const t0 = performance.now();
          const ok = await c.call().catch(() => false);
          c.times.push(performance.now() - t0);
          if (!ok) c.failures++;
        }
        const elapsed = performance.now() - started;
        c.elapsed += elapsed;
        blockElapsed.push(elapsed);
      }
      blockRatios.push(blockElapsed[0]! / blockElapsed[1]!);
    }
    const rows: ClientRow[] = clients.map((c) => {
      const sorted = [...c.times].sort((a, b) => a - b);
      return {
        client: c.name,
        calls: c.times.length,
        failures: c.failures,
        callsPerSecond: (c.times.length * 1000) / c.elapsed,
        meanMs: c.elapsed / c.times.length,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
      };
    });
    // ours throughput relative to raw fetch, median over the interleaved blocks.
    const oursVsRaw = median(blockRatios);
    const pass = oursVsRaw >= 0.95 && rows.every((r) => r.failures === 0);
    const markdown = [
      `${num(total)} sequential \`SendMessage\` round trips per client (after ${warmup} warm-up calls each) against one child process of our server (node:http, message mode), in ${blocks} interleaved blocks of ${perBlock}. Raw fetch sends the same JSON-RPC body (\`JSON.stringify\` per call) and parses the reply. Every reply is checked.`,
      '',
      table(
        ['client', 'calls', 'failures', 'calls/s', 'mean ms', 'p50 ms', 'p99 ms'],
        rows.map((r) => [r.client, num(r.calls), num(r.failures), num(r.callsPerSecond), r.meanMs.toFixed(3), r.p50Ms.toFixed(3), r.p99Ms.toFixed(3)]),
      ),
      '',
      `Ours vs raw fetch (calls/s, median of the per-block ratios): ${ratio(oursVsRaw)}; goal within 5% of raw fetch (>= 0.95x): **${passFail(pass)}**. Official vs raw fetch: ${ratio(rows[2]!.callsPerSecond / rows[0]!.callsPerSecond)}.`,
    ].join('\n');
    return { title: 'Client round trips', markdown, data: { rows, blockRatios, oursVsRaw, goalPass: pass } };
  } finally {
    await server.stop();
  }
}
