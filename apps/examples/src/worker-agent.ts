// A Cloudflare Workers-style module (`export default { fetch }`), which Deno (`deno serve`) and Bun
// also run as it is. It loads no `node:` module: the core and the fetch binding are Web-standard.
//
// State: the in-memory task store lives in one isolate. A runtime may run many isolates and drop
// any of them between requests, so a task started in one may not be found by the next request;
// long-running or resumable tasks need a shared store and bus (see "Deploy on fetch runtimes" in
// docs/server.md).
import { createA2AServer, createAgentCard, createTaskUpdater } from '@a2aplane/a2a-server-express/core';
import { type A2AFetchHandler, createFetchHandler } from '@a2aplane/a2a-server-express/fetch';

let handler: A2AFetchHandler | undefined;

/** The agent of this isolate, made on its first request (the card names the origin it was reached at). */
function agentFor(origin: string): A2AFetchHandler {
  handler ??= createFetchHandler(
    createA2AServer({
      card: createAgentCard({
        baseUrl: origin,
        name: 'Worker shouter',
        description: 'Answers in capitals, from a Workers-style module.',
        skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases text.', tags: ['example'] }],
      }),
      executor: {
        async execute(context, events) {
          const task = createTaskUpdater(context, events);
          task.complete(
            context.message.parts
              .map((part) => part.text ?? '')
              .join(' ')
              .toUpperCase(),
          );
        },
      },
    }),
  );
  return handler;
}

export default {
  async fetch(request: Request): Promise<Response> {
    const answered = await agentFor(new URL(request.url).origin)(request);
    return answered ?? new Response('Not found', { status: 404 });
  },
};
