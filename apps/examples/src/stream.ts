// Stream: SendStreamingMessage over SSE; each event as it arrives (resumed automatically on a drop).
// Run: pnpm --filter examples example src/stream.ts
import { pathToFileURL } from 'node:url';
import { createA2AClient } from '@a2aplane/a2a-client';
import { startShouter } from './serve-agent.js';

export async function streamFrom(baseUrl: string, text: string): Promise<string[]> {
  const client = createA2AClient({ baseUrl });
  const seen: string[] = [];
  for await (const event of client.sendStreamingMessage({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
  })) {
    if (event.task) seen.push(`task ${event.task.status.state}`);
    else if (event.statusUpdate) seen.push(`status ${event.statusUpdate.status.state}`);
    else if (event.artifactUpdate) seen.push(`artifact ${event.artifactUpdate.artifact.parts.map((p) => p.text).join('')}`);
    else if (event.message) seen.push('message');
  }
  return seen;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const agent = await startShouter();
  try {
    for (const line of await streamFrom(agent.url, 'one two three')) console.log(line);
  } finally {
    await agent.close();
  }
}
