import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHandOffMessage, handOffVectors } from '@a2aplane/a2a-rulake-artifacts';
import { createFileSystemWitnessStore } from '@a2aplane/a2a-rulake-artifacts/node';
import { createJsonRpcRequest } from '@a2aplane/a2a-types';
import { num, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

const DIM = 8;

/** Vectors generated lazily so 1M of them never sit in memory at once. */
function* vectors(count: number): Generator<Float32Array> {
  for (let i = 0; i < count; i++) {
    const v = new Float32Array(DIM);
    for (let j = 0; j < DIM; j++) v[j] = Math.sin(i * 0.001 + j);
    yield v;
  }
}

export interface HandOffRow {
  vectors: number;
  rawFloatBytes: number;
  storedPayloadBytes: number;
  requestBodyBytes: number;
  handOffMs: number;
}

export async function runHandOff(options: RunOptions): Promise<SuiteResult> {
  const dir = await mkdtemp(join(tmpdir(), 'a2aplane-bench-handoff-'));
  const encoder = new TextEncoder();
  const rows: HandOffRow[] = [];
  try {
    const store = createFileSystemWitnessStore({ directory: dir });
    const counts = options.quick ? [1_000, 10_000, 100_000, 1_000_000] : [1_000, 10_000, 100_000, 1_000_000];
    for (const count of counts) {
      const started = performance.now();
      const result = await handOffVectors(store, vectors(count), DIM);
      const handOffMs = performance.now() - started;
      if (result.count !== count) throw new Error(`expected ${count} vectors stored, got ${result.count}`);
      const message = createHandOffMessage(result.artifact, { text: 'nearest neighbours of these, please' });
      const body = JSON.stringify(createJsonRpcRequest(1, 'SendMessage', { message }));
      rows.push({
        vectors: count,
        rawFloatBytes: count * DIM * 4,
        storedPayloadBytes: result.payloadBytes,
        requestBodyBytes: encoder.encode(body).length,
        handOffMs,
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const markdown = [
    `\`handOffVectors\` into the file-system witness store (temp dir), then \`createHandOffMessage\` wrapped in a JSON-RPC \`SendMessage\` request. Vectors of dimension ${DIM} (float32), generated lazily.`,
    '',
    table(
      ['vectors', 'raw float32 bytes', 'stored payload bytes', 'JSON-RPC request body bytes', 'hand-off time'],
      rows.map((r) => [num(r.vectors), num(r.rawFloatBytes), num(r.storedPayloadBytes), num(r.requestBodyBytes), `${num(r.handOffMs)} ms`]),
    ),
    '',
    'The request body stays the same size whatever the number of vectors: the receiver gets a witness and reads the payload from the shared tier.',
  ].join('\n');
  return { title: 'Memory hand-off (a2a-rulake-artifacts)', markdown, data: rows };
}
