import type { TaskContext } from '@a2aplane/a2a-governance';
import { createHandOffMessage, handOffVectors, type WitnessStore } from '@a2aplane/a2a-rulake-artifacts';
import type { Dispatcher } from '@a2aplane/a2a-routing';
import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';

export const RETRIEVE_SKILL = 'retrieve';
export const RESOLVE_SKILL = 'memory.resolve';

/** What the caller asks agent A for: a retrieval result of `vectors` vectors of `dim` floats. */
export interface RetrievalRequest {
  vectors: number;
  dim: number;
  seed: number;
}

/** What agent A answers: the hand-off it made and what agent B reported back. */
export interface RetrievalReport {
  vectors: number;
  payloadBytes: number;
  /** Size of the A2A request body A sent to B, as it left A's client. */
  requestBodyBytes: number;
  witness: string;
  resolution?: { witness: string; count: number; checksum: number; verified: boolean };
  /** The state of B's task when it did not complete. */
  failure?: string;
}

/**
 * A retrieval result of `count` vectors, generated lazily from a seed (one block at a time,
 * never all in memory). Aborting the signal stops the generation.
 */
export function* retrievalResult(count: number, dim: number, seed: number, signal?: AbortSignal): Generator<Float32Array> {
  let state = seed >>> 0;
  for (let i = 0; i < count; i++) {
    if (i % 4096 === 0) signal?.throwIfAborted();
    const vector = new Float32Array(dim);
    for (let d = 0; d < dim; d++) {
      state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
      vector[d] = state / 4_294_967_296;
    }
    yield vector;
  }
}

export interface RetrieverOptions {
  self: { agentId: string };
  /** The shared tier A writes the payload to. */
  tier: WitnessStore;
  /** A's outbound dispatcher (recursion guard, then the remote executor to B). */
  dispatcher: () => Dispatcher;
  /** Agent B, the memory reader. */
  readerAgentId: () => string;
  /** Bytes of the request body that carried `messageId`, as captured by A's client to B. */
  requestBodyBytes: (messageId: string) => number | undefined;
}

/**
 * Agent A of scenario 2: produces a retrieval result, writes it to the shared tier as a
 * RuLakeWitness, hands B the witness (not the vectors) over A2A, and reports both sizes and B's
 * verified resolution.
 */
export function createRetrieverExecutor(options: RetrieverOptions): AgentExecutor {
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      const request = context.message.parts.find((part) => part.data !== undefined)?.data as Partial<RetrievalRequest> | undefined;
      const { vectors, dim, seed } = request ?? {};
      if (
        !Number.isInteger(vectors) ||
        !Number.isInteger(dim) ||
        !Number.isInteger(seed) ||
        (vectors as number) < 0 ||
        (dim as number) < 1
      ) {
        task.reject('expected a data part {vectors, dim, seed} of integers');
        return;
      }
      const lineage = context.taskContext as TaskContext | undefined;
      if (!lineage) {
        task.reject('no lineage: this agent runs under governance');
        return;
      }
      task.startWork(`writing ${vectors} vectors to the tier`);
      const handOff = await handOffVectors(
        options.tier,
        retrievalResult(vectors as number, dim as number, seed as number, context.signal),
        dim as number,
        {
          capabilities: ['read'],
        },
      );
      const messageId = globalThis.crypto.randomUUID();
      const message = createHandOffMessage(handOff.artifact, { messageId });
      const result = await options.dispatcher().dispatch({
        request: { message: { ...message, metadata: { ...message.metadata, skillId: RESOLVE_SKILL } } },
        task: { skillId: RESOLVE_SKILL },
        caller: options.self.agentId,
        context: lineage,
        parentTaskId: context.taskId,
        targetAgentId: options.readerAgentId(),
        signal: context.signal,
      });
      const reader = result.final.task;
      const report: RetrievalReport = {
        vectors: vectors as number,
        payloadBytes: handOff.payloadBytes,
        requestBodyBytes: options.requestBodyBytes(messageId) ?? 0,
        witness: handOff.kind.witness,
      };
      const resolution = reader?.artifacts?.find((artifact) => artifact.artifactId === 'resolution')?.parts[0]?.data;
      if (resolution) report.resolution = resolution as NonNullable<RetrievalReport['resolution']>;
      if (reader?.status.state !== 'TASK_STATE_COMPLETED') report.failure = reader?.status.state ?? 'no task';
      task.addArtifact([{ data: { ...report } }], { artifactId: 'handoff', name: 'hand-off report', lastChunk: true });
      task.complete();
    },
  };
}
