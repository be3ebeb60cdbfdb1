// Call an agent: discover its card, send a message, wait for the task, read the artifact.
// Run: pnpm --filter examples example src/call-agent.ts [agent base URL]   (starts its own agent without one)
import { pathToFileURL } from 'node:url';
import { createA2AClient } from '@a2aplane/a2a-client';
import { startShouter } from './serve-agent.js';

export async function callAgent(baseUrl: string, text: string): Promise<{ state: string | undefined; answer: string }> {
  // baseUrl is where /.well-known/agent-card.json is served, not the JSON-RPC endpoint.
  const client = createA2AClient({ baseUrl });
  const { task } = await client.sendMessage({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
  });
  const answer = (task?.artifacts ?? [])
    .flatMap((a) => a.parts.map((p) => p.text ?? ''))
    .join('')
    .trim();
  return { state: task?.status.state, answer };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const given = process.argv[2];
  const agent = given ? undefined : await startShouter();
  try {
    console.log(await callAgent(given ?? agent!.url, 'hello agents'));
  } finally {
    await agent?.close();
  }
}
