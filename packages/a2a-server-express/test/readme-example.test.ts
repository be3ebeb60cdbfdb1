import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { createA2AServer, createAgentCard, createNodeHttpHandler, createTaskUpdater } from '../src/index.js';

it('the README quick start serves the echo agent', async () => {
  const card = createAgentCard({
    baseUrl: 'http://localhost:3000',
    name: 'Echo',
    description: 'Echoes text',
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['demo'] }],
  });
  const server = createA2AServer({
    card,
    executor: {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.submit();
        task.addArtifact([{ text: `echo: ${context.message.parts.map((p) => p.text ?? '').join('')}` }]);
        task.complete();
      },
    },
  });
  const http = createServer(createNodeHttpHandler(server)).listen(0, '127.0.0.1');
  await new Promise((resolve) => http.once('listening', resolve));
  try {
    const { port } = http.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
    });
    const body = (await response.json()) as { task: { artifacts: { parts: { text: string }[] }[] } };
    expect(body.task.artifacts[0]?.parts[0]?.text).toBe('echo: hi');
  } finally {
    await server.close();
    http.close();
  }
});
