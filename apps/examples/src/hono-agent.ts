// Serve an agent inside a Hono app: the fetch binding answers the A2A paths (card, JSON-RPC, REST),
// Hono answers everything else. The same app runs on Deno, Bun, Cloudflare Workers or Node.
// Run on Bun: `export default createHonoApp(...)` in a file of your own, then `bun run that-file.ts`.
import { createA2AServer, createAgentCard, createTaskUpdater } from '@a2aplane/a2a-server-express/core';
import { createFetchHandler } from '@a2aplane/a2a-server-express/fetch';
import { Hono } from 'hono';

/** A Hono app with a shouting agent mounted at the default A2A paths; `baseUrl` is where it is reached. */
export function createHonoApp(baseUrl: string): Hono {
  const server = createA2AServer({
    card: createAgentCard({
      baseUrl,
      name: 'Hono shouter',
      description: 'Answers in capitals, from inside a Hono app.',
      skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases text.', tags: ['example'] }],
    }),
    executor: {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        const text = context.message.parts.map((part) => part.text ?? '').join(' ');
        task.complete(text.toUpperCase());
      },
    },
  });
  const a2a = createFetchHandler(server);
  const app = new Hono();
  // The A2A handler first: it resolves undefined for paths that are not its own, and Hono goes on.
  app.use(async (c, next) => {
    const answered = await a2a(c.req.raw);
    if (answered !== undefined) return answered;
    await next();
  });
  app.get('/', (c) => c.text('an app with an agent inside'));
  return app;
}
