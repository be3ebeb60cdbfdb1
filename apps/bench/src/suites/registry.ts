// Registry search (issue 34): 10,000 enrolled agents, ARD `POST /search` at a constant 200 req/s
// (open loop: latency counts from each request's scheduled start, so queueing is not hidden),
// against the embedded in-memory store and PostgreSQL. Goals: p99 under 10 ms and 25 ms.
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { startServer } from '../lib/children.js';
import { processCpuSeconds } from '../lib/cpu.js';
import { columns, num, passFail, percentile } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';
import { SKILLS, TAGS } from '../servers/registry-fixtures.js';

const AGENTS = 10_000;
const RATE = 200;
/** A second, lower rate: on a loaded machine, a p99 that falls with the rate is queueing, not search work. */
const LOW_RATE = 50;
const GOALS: Record<string, number> = { memory: 10, postgres: 25 };

/** The mix: a quarter each by skill id, by tag, by free text, and the second page of a skill search. */
function searchBody(index: number, secondPageToken: string | undefined): string {
  switch (index % 4) {
    case 0:
      return JSON.stringify({ filters: { skill: SKILLS[index % SKILLS.length] }, pageSize: 20 });
    case 1:
      return JSON.stringify({ filters: { tag: TAGS[index % TAGS.length] }, pageSize: 20 });
    case 2:
      return JSON.stringify({ query: index % 8 === 2 ? 'forecast agent' : 'invoice', pageSize: 20 });
    default:
      return JSON.stringify({ filters: { skill: SKILLS[0] }, pageSize: 20, ...(secondPageToken ? { pageToken: secondPageToken } : {}) });
  }
}

function post(agent: Agent, url: URL, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A registry process on `store`: after 400 warm-up searches, each rate for `seconds`, open loop. */
async function measure(store: string, seconds: number) {
  const child = await startServer('registry', ['--store', store, '--agents', String(AGENTS)], { timeoutMs: 180_000 });
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  try {
    const url = new URL('/search', child.url);
    const first = await post(agent, url, JSON.stringify({ filters: { skill: SKILLS[0] }, pageSize: 20 }));
    const token = (JSON.parse(first.text) as { nextPageToken?: string }).nextPageToken;
    for (let index = 0; index < 400; index++) await post(agent, url, searchBody(index, token));
    const rows = [];
    for (const rate of [RATE, LOW_RATE]) {
      const total = rate * seconds;
      const latencies: number[] = [];
      let errors = 0;
      const cpuBefore = processCpuSeconds(child.process.pid);
      const loadAverage = loadavg()[0] ?? 0;
      const started = performance.now();
      const inFlight: Array<Promise<void>> = [];
      for (let index = 0; index < total; index++) {
        // Latency counts from the scheduled start, so queueing is not hidden.
        const scheduled = started + (index * 1000) / rate;
        const wait = scheduled - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const done = (ok: boolean) => {
          latencies.push(performance.now() - scheduled);
          if (!ok) errors++;
        };
        inFlight.push(
          post(agent, url, searchBody(index, token)).then(
            (reply) => done(reply.status === 200),
            () => void errors++,
          ),
        );
      }
      await Promise.all(inFlight);
      const cpu = (processCpuSeconds(child.process.pid) ?? Number.NaN) - (cpuBefore ?? Number.NaN);
      latencies.sort((a, b) => a - b);
      const [p50, p99, max] = [percentile(latencies, 50), percentile(latencies, 99), latencies.at(-1) ?? 0];
      // CPU the registry process spent per search (user + system): steadier than latency on a shared machine.
      rows.push({ store, rate, requests: total, errors, p50, p99, max, cpuMsPerRequest: (cpu * 1000) / total, loadAverage });
    }
    return rows;
  } finally {
    agent.destroy();
    await child.stop();
  }
}

export async function runRegistry(options: RunOptions): Promise<SuiteResult> {
  const seconds = options.quick ? 5 : 15;
  const rows = [...(await measure('memory', seconds)), ...(await measure('postgres', seconds))];
  const markdown = [
    `ARD \`POST /search\` on a registry holding ${num(AGENTS)} enrolled agents (50 skills, 20 tags; a quarter of the searches by skill id, a quarter by tag, a quarter by free text, a quarter the second page of a skill search; 20 results a page), at a constant ${RATE} req/s, then ${LOW_RATE} req/s, for ${seconds} s each after 400 warm-up requests (the goals are read at ${RATE} req/s; the lower rate shows how much of the tail is the machine's queueing). The registry runs in its own process (node:http, \`createRegistryRequestHandler\`); latency counts from each request's scheduled start (open loop). PostgreSQL is the local server (one schema per run, 10 pooled connections).`,
    '',
    columns(rows, [
      ['store', (row) => (row.store === 'memory' ? 'embedded (in memory)' : 'PostgreSQL')],
      ['req/s', (row) => row.rate],
      ['requests', (row) => num(row.requests)],
      ['errors', (row) => row.errors],
      ['p50 ms', (row) => num(row.p50, 2)],
      ['p99 ms', (row) => num(row.p99, 2)],
      ['max ms', (row) => num(row.max, 2)],
      ['goal: p99 under', (row) => `${GOALS[row.store]} ms`],
      ['met', (row) => (row.rate === RATE ? `**${passFail(row.p99 < GOALS[row.store]! && row.errors === 0)}**` : 'n/a')],
      ['registry CPU ms / search', (row) => num(row.cpuMsPerRequest, 2)],
      ['1-min load', (row) => num(row.loadAverage, 1)],
    ]),
  ].join('\n');
  return { markdown, data: { agents: AGENTS, rate: RATE, lowRate: LOW_RATE, seconds, rows } };
}
