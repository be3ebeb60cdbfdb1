// Run: cd apps/bench && npx tsx src/seams-micro.ts task 10000  (a quick before/after check of the server core, not a suite of `pnpm bench`).
// In-process throughput of createA2AServer.handle (no HTTP): SendMessage in task mode (echo executor),
// blocking, N requests at a fixed concurrency. Prints req/s and CPU µs per request.
import { createA2AServer, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { microCard as card } from './lib/fixtures.js';

const mode = process.argv[2] ?? 'task';
const total = Number(process.argv[3] ?? 20000);
const concurrency = 64;
const server = createA2AServer({
  card: card as never,
  executor: {
    async execute(context, events) {
      if (mode === 'message') {
        events.publish({ messageId: crypto.randomUUID(), role: 'ROLE_AGENT', parts: [{ text: 'ok' }] });
        return;
      }
      const t = createTaskUpdater(context, events);
      t.submit();
      t.startWork();
      t.addArtifact([{ text: 'echo' }], { artifactId: 'a', lastChunk: true });
      t.complete('done');
    },
  },
});
let n = 0;
async function worker(): Promise<void> {
  while (n < total) {
    n += 1;
    const r = await server.handle({
      method: 'SendMessage',
      params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      version: '1.0',
    });
    if (r.kind !== 'result') throw new Error(JSON.stringify(r));
  }
}
for (let round = 0; round < 4; round++) {
  n = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (round > 0)
    console.log(
      `${mode} round ${round}: ${Math.round((total / ms) * 1000)} req/s, ${Math.round((cpu.user + cpu.system) / total)} µs CPU/req`,
    );
}
await server.close();
