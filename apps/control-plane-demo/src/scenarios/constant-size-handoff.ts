import { pathToFileURL } from 'node:url';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileSystemWitnessStore } from '@a2aplane/a2a-rulake-artifacts/node';
import type { Dispatcher } from '@a2aplane/a2a-routing';
import { type HostedAgent, hostAgent } from '../agent-host.js';
import { checksumVectors, createMemoryReaderExecutor } from '../agents/memory-reader.js';
import {
  createRetrieverExecutor,
  RESOLVE_SKILL,
  RETRIEVE_SKILL,
  type RetrievalReport,
  type RetrievalRequest,
  retrievalResult,
} from '../agents/retriever.js';
import {
  type AgentSummary,
  type ControlPlane,
  countSignedCalls,
  createDispatcher,
  createKeyDirectory,
  discoverPeers,
  type SignedCalls,
  summarizePeers,
} from '../control-plane.js';
import type { ScenarioOptions } from './remote-equals-local.js';

export const HANDOFF_BODY_LIMIT_BYTES = 2048;
export const DEFAULT_VECTOR_COUNTS = [1_000, 10_000, 100_000, 1_000_000] as const;
const SEED = 42;

export interface HandOffRow {
  vectors: number;
  payloadBytes: number;
  requestBodyBytes: number;
  witness: string;
  resolvedCount: number;
  checksumMatches: boolean;
}

export interface HandOffResult {
  passed: boolean;
  dim: number;
  rows: HandOffRow[];
  /** Every body is at most 2 KiB and all bodies have the same size. */
  constantSize: boolean;
  agents: AgentSummary[];
  /** A's hand-offs reached B signed by A and verified as A's AgentID; the demo's requests to A as the demo's. */
  signedCalls: SignedCalls;
}

/** Bytes of each SendMessage body by message id, as it leaves a client (a request interceptor). */
function createBodyMeter(): { record(body: unknown): void; bytesOf(messageId: string): number | undefined } {
  const sizes = new Map<string, number>();
  return {
    record(body) {
      if (typeof body !== 'string') return;
      const messageId = (JSON.parse(body) as { params?: { message?: { messageId?: string } } }).params?.message?.messageId;
      if (messageId) sizes.set(messageId, new TextEncoder().encode(body).length);
    },
    bytesOf: (messageId) => sizes.get(messageId),
  };
}

/**
 * ADR-159 acceptance test 2: agent A produces a retrieval result and hands it to agent B as a
 * RuLakeWitness through the file-system tier. The A2A request body A sends B (captured as it
 * leaves A's client) stays under 2 KiB and the same size for every payload size; B resolves the
 * payload from the tier, checks the read grant and the witness, and reports what it read.
 */
export async function runConstantSizeHandOff(
  plane: ControlPlane,
  options: ScenarioOptions & { counts?: readonly number[]; dim?: number } = {},
): Promise<HandOffResult> {
  options.signal?.throwIfAborted();
  const counts = options.counts ?? DEFAULT_VECTOR_COUNTS;
  const dim = options.dim ?? 8;
  const directory = await mkdtemp(join(tmpdir(), 'a2aplane-demo-tier-'));
  options.onProgress?.(`scenario 2: starting agents A (retriever) and B (memory reader) on the file-system tier ${directory}`);
  const tier = createFileSystemWitnessStore({ directory });
  const meter = createBodyMeter();
  const dispatchers = new Map<string, Dispatcher>();
  const agents: HostedAgent[] = [];
  // Every agent signs its requests with its own key and serves only signed callers it knows.
  const keys = createKeyDirectory(['A retriever', 'B memory-reader']);
  try {
    const reader = await hostAgent({
      name: 'B memory-reader',
      key: keys.keyOf('B memory-reader'),
      callerKeys: keys.publicKeys,
      skill: {
        id: RESOLVE_SKILL,
        name: 'Resolve memory',
        description: 'Reads a witnessed payload from the shared tier.',
        tags: ['memory'],
      },
      governor: (agentId) => plane.governorFor(agentId),
      executor: () => createMemoryReaderExecutor(tier),
      memory: { shard: pathToFileURL(directory).href, capabilities: ['read'] },
    });
    agents.push(reader);
    const retriever = await hostAgent({
      name: 'A retriever',
      key: keys.keyOf('A retriever'),
      callerKeys: keys.publicKeys,
      skill: {
        id: RETRIEVE_SKILL,
        name: 'Retrieve',
        description: 'Retrieves vectors and hands them to the memory reader.',
        tags: ['memory'],
      },
      governor: (agentId) => plane.governorFor(agentId),
      executor: ({ agentId }) =>
        createRetrieverExecutor({
          self: { agentId },
          tier,
          dispatcher: () => dispatchers.get(agentId)!,
          readerAgentId: () => reader.agentId,
          requestBodyBytes: meter.bytesOf,
        }),
      memory: { shard: pathToFileURL(directory).href, capabilities: ['read', 'write'] },
    });
    agents.push(retriever);
    // A's client to B measures the bodies it sends (and signs them with A's key).
    const peers = await discoverPeers(agents, {
      as: keys.demo,
      clientOptions: (agent) => (agent === reader ? { interceptors: { beforeRequest: (request) => meter.record(request.body) } } : {}),
    });
    dispatchers.set(retriever.agentId, createDispatcher(plane, retriever, peers));
    const summaries = summarizePeers(peers);
    options.onAgents?.(summaries);

    const a = peers.get(retriever.agentId)!.client;
    const rows: HandOffRow[] = [];
    for (const count of counts) {
      options.signal?.throwIfAborted();
      options.onProgress?.(`scenario 2: A hands B ${count.toLocaleString('en-US')} vectors`);
      const request: RetrievalRequest = { vectors: count, dim, seed: SEED };
      const response = await a.sendMessage(
        {
          message: {
            messageId: globalThis.crypto.randomUUID(),
            role: 'ROLE_USER',
            parts: [{ data: { ...request } }],
            metadata: { skillId: RETRIEVE_SKILL },
          },
        },
        options.signal ? { signal: options.signal } : {},
      );
      const report = response.task?.artifacts?.find((artifact) => artifact.artifactId === 'handoff')?.parts[0]?.data as
        | RetrievalReport
        | undefined;
      if (!report) {
        const status = response.task?.status;
        const why = status?.message?.parts.find((part) => part.text !== undefined)?.text;
        throw new Error(`agent A returned no hand-off report (task ${status?.state ?? 'missing'}${why ? `: ${why}` : ''})`);
      }
      // What B must have read: the same seeded vectors, checksummed here independently of A and B.
      const expected = await checksumVectors(
        (async function* () {
          yield* retrievalResult(count, dim, SEED, options.signal);
        })(),
      );
      rows.push({
        vectors: count,
        payloadBytes: report.payloadBytes,
        requestBodyBytes: report.requestBodyBytes,
        witness: report.witness,
        resolvedCount: report.resolution?.count ?? 0,
        checksumMatches:
          report.resolution?.verified === true &&
          report.resolution.checksum === expected.checksum &&
          report.resolution.witness === report.witness,
      });
    }
    const sizes = new Set(rows.map((row) => row.requestBodyBytes));
    const constantSize =
      sizes.size === 1 && rows.every((row) => row.requestBodyBytes > 0 && row.requestBodyBytes <= HANDOFF_BODY_LIMIT_BYTES);
    const signedCalls = countSignedCalls(agents, keys.demoAgentId);
    const passed =
      constantSize &&
      rows.every((row) => row.resolvedCount === row.vectors && row.checksumMatches) &&
      signedCalls.verified === signedCalls.requests &&
      signedCalls.betweenAgents === rows.length;
    return { passed, dim, rows, constantSize, agents: summaries, signedCalls };
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
    await rm(directory, { recursive: true, force: true });
  }
}
