import { readHandOffMessage, resolveHandOff, type WitnessStore } from '@a2aplane/a2a-rulake-artifacts';
import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';

/** Order-sensitive checksum of a vector stream, computed the same way on both sides. */
export async function checksumVectors(vectors: AsyncIterable<Float32Array>): Promise<{ count: number; checksum: number }> {
  let count = 0;
  let checksum = 0;
  for await (const vector of vectors) {
    for (let i = 0; i < vector.length; i++) checksum = (checksum * 31 + Math.round(vector[i]! * 1000)) % 2_147_483_647;
    count += 1;
  }
  return { count, checksum };
}

/**
 * Agent B of scenario 2: receives a RuLakeWitness hand-off, resolves the payload from the shared
 * tier (checking the read grant and the witness), and answers with what it found.
 */
export function createMemoryReaderExecutor(store: WitnessStore): AgentExecutor {
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork('resolving witness');
      const artifact = readHandOffMessage(context.message);
      if (!artifact) {
        task.reject('expected a RuLakeWitness hand-off');
        return;
      }
      try {
        const { vectors, witness } = await resolveHandOff(store, artifact);
        const { count, checksum } = await checksumVectors(vectors);
        task.addArtifact([{ data: { witness, count, checksum, verified: true } }], {
          artifactId: 'resolution',
          name: 'resolution',
          lastChunk: true,
        });
        task.complete();
      } catch (error) {
        task.fail(error instanceof Error ? `${error.name}: ${error.message}` : 'could not resolve the witness');
      }
    },
  };
}
