// Runs the README quick start (sender, receiver, typed artifacts) with module names rewritten to
// the source and the tier directory moved to a temporary directory.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJsonRpcRequest, type Message } from '@a2aplane/a2a-types';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createHandOffMessage, fromArtifact, handOffVectors, readHandOffMessage, resolveHandOff, toArtifact } from '../../src/index.js';
import { createFileSystemWitnessStore } from '../../src/node/index.js';

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'rulake-readme-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

it('README quick start runs: ~700 B sent for 100k vectors, the receiver reads them all back', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  let sent = '';
  {
    // --- Sender (README "Quick start", first block)
    const tier = createFileSystemWitnessStore({ directory });

    function* vectors() {
      for (let i = 0; i < 100_000; i++) yield Float32Array.from({ length: 8 }, () => Math.random());
    }

    const { artifact, payloadBytes } = await handOffVectors(tier, vectors(), 8, { capabilities: ['read'] });
    const message = createHandOffMessage(artifact, { text: 'rerank these candidates' });
    const body = JSON.stringify(createJsonRpcRequest(1, 'SendMessage', { message }));
    console.log(`${payloadBytes} bytes stored, ${body.length} bytes sent`); // ~3.2 MB stored, ~700 B sent
    sent = body;
    expect(payloadBytes).toBeGreaterThan(3_200_000);
    expect(body.length).toBeLessThan(1024);
  }
  {
    // --- Receiver (README "Quick start", second block)
    const tier = createFileSystemWitnessStore({ directory });

    async function onMessage(message: Message) {
      const artifact = readHandOffMessage(message);
      if (!artifact) return;
      const { vectors, witness } = await resolveHandOff(tier, artifact); // checks the read grant and presence
      let count = 0;
      let first = 0;
      // Throws WitnessVerificationError after the last chunk if the stored bytes were altered.
      for await (const vector of vectors) {
        if (count++ === 0) first = vector[0] ?? 0;
      }
      console.log(`read ${count} vectors of ${witness}, first value ${first}`);
    }

    await onMessage((JSON.parse(sent) as { params: { message: Message } }).params.message);
    expect(log).toHaveBeenLastCalledWith(expect.stringMatching(/^read 100000 vectors of [0-9a-f]{64}, first value /));
  }
  {
    // --- Typed artifacts on their own (README "Quick start", third block)
    const artifact = toArtifact({ kind: 'structured_json', value: { score: 0.93 }, schema: 'urn:score:v1' });
    const read = fromArtifact(JSON.parse(JSON.stringify(artifact)));
    if (read.kind === 'structured_json')
      console.log(read.value); // { score: 0.93 }
    else console.log('fell back to raw:', read.note);
    expect(log).toHaveBeenLastCalledWith({ score: 0.93 });
  }
  log.mockRestore();
}, 60_000);
