import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createA2AClient } from '@a2aplane/a2a-client';
import { createHandOffMessage, handOffVectors } from '@a2aplane/a2a-rulake-artifacts';
import { createFileSystemWitnessStore } from '@a2aplane/a2a-rulake-artifacts/node';
import { hostAgent } from '../agent-host.js';
import { checksumVectors, createMemoryReaderExecutor } from '../agents/memory-reader.js';

export const HANDOFF_BODY_LIMIT_BYTES = 2048;
export const DEFAULT_VECTOR_COUNTS = [1_000, 10_000, 100_000, 1_000_000] as const;

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
}

/** A retrieval result of `count` vectors, generated lazily from a seed (never all in memory). */
function* retrievalResult(count: number, dim: number, seed: number): Generator<Float32Array> {
  let state = seed >>> 0;
  for (let i = 0; i < count; i++) {
    const vector = new Float32Array(dim);
    for (let d = 0; d < dim; d++) {
      state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
      vector[d] = state / 4_294_967_296;
    }
    yield vector;
  }
}

/**
 * ADR-159 acceptance test 2: agent A hands agent B a retrieval result as a RuLakeWitness through
 * the file-system tier. The A2A request body A sends (captured on the wire by a client
 * interceptor) stays under 2 KiB and the same size for every payload size; B resolves the
 * payload from the tier, checks the grant and the witness, and reports what it read.
 */
export async function runConstantSizeHandOff(
  options: { counts?: readonly number[]; dim?: number; onProgress?: (line: string) => void } = {},
): Promise<HandOffResult> {
  const counts = options.counts ?? DEFAULT_VECTOR_COUNTS;
  const dim = options.dim ?? 8;
  const directory = await mkdtemp(join(tmpdir(), 'a2aplane-demo-tier-'));
  const tier = createFileSystemWitnessStore({ directory });
  const reader = await hostAgent({
    name: 'memory-reader',
    skill: { id: 'memory.resolve', name: 'Resolve memory', description: 'Reads a witnessed payload from the shared tier.', tags: ['memory'] },
    executor: () => createMemoryReaderExecutor(tier),
  });
  try {
    let lastBodyBytes = 0;
    const client = createA2AClient({
      baseUrl: reader.url,
      timeoutMs: 120_000,
      interceptors: {
        beforeRequest: (request) => {
          if (typeof request.body === 'string') lastBodyBytes = new TextEncoder().encode(request.body).length;
        },
      },
    });
    const rows: HandOffRow[] = [];
    for (const count of counts) {
      options.onProgress?.(`scenario 2: handing off ${count.toLocaleString('en-US')} vectors`);
      const handOff = await handOffVectors(tier, retrievalResult(count, dim, 42), dim, { capabilities: ['read'] });
      const expected = await checksumVectors(
        (async function* () {
          yield* retrievalResult(count, dim, 42);
        })(),
      );
      const response = await client.sendMessage({
        message: createHandOffMessage(handOff.artifact, { messageId: globalThis.crypto.randomUUID() }),
      });
      const resolution = response.task?.artifacts?.[0]?.parts[0]?.data as { witness: string; count: number; checksum: number } | undefined;
      rows.push({
        vectors: count,
        payloadBytes: handOff.payloadBytes,
        requestBodyBytes: lastBodyBytes,
        witness: handOff.kind.witness,
        resolvedCount: resolution?.count ?? 0,
        checksumMatches: resolution?.checksum === expected.checksum && resolution?.witness === handOff.kind.witness,
      });
    }
    const sizes = new Set(rows.map((row) => row.requestBodyBytes));
    const constantSize = sizes.size === 1 && rows.every((row) => row.requestBodyBytes > 0 && row.requestBodyBytes <= HANDOFF_BODY_LIMIT_BYTES);
    const passed = constantSize && rows.every((row) => row.resolvedCount === row.vectors && row.checksumMatches);
    return { passed, dim, rows, constantSize };
  } finally {
    await reader.close();
    await rm(directory, { recursive: true, force: true });
  }
}
