import { createA2AClient } from '@a2aplane/a2a-client';
import { createAgentMcpBridge, serveMcpHttp } from '@a2aplane/a2a-mcp';
import { createTaskUpdater } from '@a2aplane/a2a-server-express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { sendMessageParams } from '../lib/fixtures.js';
import { perCall } from '../lib/load.js';
import { goalTable, median, num, ratio, table } from '../lib/format.js';
import { type Listening, listen, listenA2A } from '../lib/listen.js';
import { createBareMcpServer } from '../lib/mcp-bare.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

// Issue 40's goal: an MCP tool call through the bridge costs at most 1.2x the same blocking SendMessage made directly
// with our client. One process, one local agent (non-streaming, so the bridge makes exactly that SendMessage); the
// MCP hop over three transports, each with and without the bridge, tells the bridge's own cost from the SDK's.
const GOAL = 1.2;

/** The SDK's Streamable HTTP transport alone (one session, the SDK's handler on node:http, no code of ours). */
async function sdkOverHttp(server: Server): Promise<Listening> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => globalThis.crypto.randomUUID() });
  await server.connect(transport);
  const listening = await listen(
    (req, res) => void transport.handleRequest(req, res),
    () => transport.close(),
  );
  return { ...listening, url: `${listening.url}/mcp` };
}

const TRANSPORTS = [
  ['http', 'Streamable HTTP (bare and hand-written: the SDK transport alone; bridged: serveMcpHttp)'],
  ['stdio', 'stdio (a child process the MCP client spawned)'],
  ['memory', "the SDK's in-memory transport (same process, no serialization)"],
] as const;
type TransportId = (typeof TRANSPORTS)[number][0];
const KINDS = ['bare', 'hand-written', 'bridged'] as const;
type PathName = 'direct' | `${TransportId} ${(typeof KINDS)[number]}`;
const PATHS: PathName[] = ['direct', ...TRANSPORTS.flatMap(([id]) => KINDS.map((kind): PathName => `${id} ${kind}`))];

/** Per transport, from per-block figures (in their own unit): each path against direct, and the bridge against the hand-written tool. */
function summarize(values: Record<PathName, number[]>) {
  const against = (path: PathName) => median(values[path].map((v, i) => v / values.direct[i]!));
  return TRANSPORTS.map(([id, label]) => ({
    id,
    label,
    cells: KINDS.map((kind) => median(values[`${id} ${kind}`])),
    ratios: KINDS.map((kind) => against(`${id} ${kind}`)),
    /** What the bridge adds over the hand-written tool: our code's own cost. */
    own: median(values[`${id} bridged`].map((v, i) => v - values[`${id} hand-written`][i]!)),
  }));
}

export async function runMcp(options: RunOptions): Promise<SuiteResult> {
  const blocks = options.quick ? 6 : 20;
  const perBlock = options.quick ? 50 : 100;
  const agent = await listenA2A({
    executor: {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.addArtifact([{ text: context.message.parts[0]?.text ?? '' }], { artifactId: 'echo' });
        task.complete();
      },
    },
  });
  const agentClient = () => createA2AClient({ baseUrl: agent.url });
  const client = agentClient();
  const bridge = await createAgentMcpBridge({ agent: agentClient() });
  const servers: Listening[] = [];
  const sessions: Client[] = [];
  /** An MCP client session over `transport`; its `callTool`. */
  const connect = async (transport: Transport | Promise<Transport>) => {
    const session = new Client({ name: 'bench', version: '1.0.0' });
    await session.connect(await transport);
    sessions.push(session);
    return () => session.callTool({ name: 'echo', arguments: { text: 'hello' } });
  };
  const overHttp = async (server: Promise<Listening>) => {
    servers.push(await server);
    return connect(new StreamableHTTPClientTransport(new URL(servers.at(-1)!.url)));
  };
  // The MCP client spawns `src/servers/mcp-stdio.ts` (the bridge, or the bare server).
  const overStdio = (...args: string[]) =>
    connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', 'src/servers/mcp-stdio.ts', ...args],
        cwd: new URL('../..', import.meta.url).pathname,
        env: { ...(process.env as Record<string, string>), NODE_ENV: 'production' },
        stderr: 'inherit',
      }),
    );
  // No serialization, no I/O: what is left is the SDK's protocol layer and our code.
  const inMemory = async (server: { connect(transport: Transport): Promise<void> }) => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    return connect(clientSide);
  };
  try {
    const calls: Record<PathName, () => Promise<unknown>> = {
      direct: () => client.sendMessage(sendMessageParams()),
      'http bare': await overHttp(sdkOverHttp(createBareMcpServer())),
      'http hand-written': await overHttp(sdkOverHttp(createBareMcpServer(agentClient()))),
      'http bridged': await overHttp(serveMcpHttp(bridge)),
      'stdio bare': await overStdio('--bare'),
      'stdio hand-written': await overStdio('--agent', agent.url, '--hand-written'),
      'stdio bridged': await overStdio('--agent', agent.url),
      'memory bare': await inMemory(createBareMcpServer()),
      'memory hand-written': await inMemory(createBareMcpServer(agentClient())),
      'memory bridged': await inMemory(bridge.createServer()),
    };
    for (const path of PATHS) await perCall(perBlock, calls[path]); // warm-up
    const ms = Object.fromEntries(PATHS.map((path) => [path, [] as number[]])) as Record<PathName, number[]>;
    const cpuUs = Object.fromEntries(PATHS.map((path) => [path, [] as number[]])) as Record<PathName, number[]>;
    for (let b = 0; b < blocks; b++) {
      for (const path of PATHS) {
        const block = await perCall(perBlock, calls[path]);
        ms[path].push(block.ms);
        cpuUs[path].push(block.cpuUs);
      }
    }
    // CPU of this process per call: the whole path for HTTP and in-memory (client, MCP server, bridge and agent all
    // run here), far steadier than latency on a loaded machine. Not stdio: there the MCP server and the bridge run in the child.
    const byUnit = [
      { what: 'Latency per call', unit: (v: number) => `${num(v * 1000)} µs`, rows: summarize(ms), direct: median(ms.direct) * 1000 },
      {
        what: 'CPU time of the bench process per call (user + system)',
        unit: (v: number) => `${num(v)} µs`,
        rows: summarize(cpuUs).filter((t) => t.id !== 'stdio'),
        direct: median(cpuUs.direct),
      },
    ];
    const httpRatio = byUnit[0]!.rows[0]!.ratios[2]!;
    const markdown = [
      ...byUnit.flatMap(({ what, unit, rows, direct }) => [
        `${what}; SendMessage with our client (direct): ${num(direct)} µs.`,
        '',
        table(
          ['MCP transport', ...KINDS.map((kind) => `${kind} tool`), ...KINDS.map((kind) => `${kind} / direct`), 'bridged − hand-written'],
          rows.map((t) => [t.label, ...t.cells.map(unit), ...t.ratios.map(ratio), unit(t.own)]),
        ),
        '',
      ]),
      goalTable([['bridge / direct over Streamable HTTP (issue 40)', ratio(httpRatio), `<= ${GOAL}x`, httpRatio <= GOAL]]),
      '',
      `Medians of ${blocks} alternating blocks of ${perBlock} sequential calls per path. The bare tool answers at once (the SDK's transport and protocol alone); the hand-written tool is an SDK server whose tool makes the same SendMessage with our client (the least any bridge on that transport can cost); the last column is what the bridge's own code adds over it.`,
    ].join('\n');
    return { markdown, data: { blocks, perBlock, ratio: httpRatio, goal: GOAL, ms, cpuUs } };
  } finally {
    await Promise.allSettled(sessions.map((session) => session.close()));
    await Promise.allSettled(servers.map((server) => server.close()));
    await agent.close();
  }
}
