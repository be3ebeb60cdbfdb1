// The agent every binding serves in the conformance suite. It imports only the framework-neutral
// core and the fetch entry: the runtime hosts (Deno, Bun) load a bundle of this file.
import { type A2AServer, createA2AServer, createAgentCard, createTaskUpdater } from '../../src/core/index.js';
import { createFetchHandler } from '../../src/fetch/index.js';
import type { HttpHandlerOptions } from '../../src/http/options.js';
import { checkWebhookUrl } from '../../src/push/webhook-url.js';

export const ALLOWED_ORIGIN = 'http://app.example';

/** The handler options of every binding under test: small limits so the suite can cross them. */
export const CONFORMANCE_HTTP_OPTIONS: HttpHandlerOptions = {
  maxBodyBytes: 4096,
  heartbeatMs: 10,
  cors: { origins: [ALLOWED_ORIGIN], maxAgeSeconds: 120 },
  jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'conformance' }] },
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `wait` runs until canceled, `slow` sends five artifacts 20 ms apart, anything else is echoed. */
export function createConformanceServer(baseUrl: string): A2AServer {
  return createA2AServer({
    card: createAgentCard({
      baseUrl,
      name: 'conformance',
      description: 'The agent of the binding conformance suite',
      capabilities: { streaming: true, pushNotifications: false },
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['test'] }],
    }),
    executor: {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        const text = context.message.parts.map((part) => part.text ?? '').join('');
        task.submit();
        task.startWork();
        if (text === 'wait') {
          await new Promise<void>((resolve) => {
            if (context.signal.aborted) resolve();
            context.signal.addEventListener('abort', () => resolve(), { once: true });
          });
          return;
        }
        if (text === 'slow') {
          for (let i = 0; i < 5; i++) {
            await sleep(20);
            task.addArtifact([{ text: `part ${i}` }], { artifactId: `a${i}`, lastChunk: true });
          }
        } else {
          task.addArtifact([{ text: `echo: ${text}` }], { artifactId: 'out', lastChunk: true });
        }
        task.complete('done');
      },
    },
  });
}

/**
 * What a fetch runtime host serves: the A2A handler, `/_stats` (the server's live counts),
 * `/_globals` (which Node globals the runtime has) and `/_webhook-check` (the default webhook URL
 * check run in that runtime), paths of the host's own,
 * and a 404 of its own for everything else (the handler's fall-through).
 */
export function createConformanceHost(baseUrl: string): { server: A2AServer; fetch(request: Request): Promise<Response> } {
  const server = createConformanceServer(baseUrl);
  const handle = createFetchHandler(server, CONFORMANCE_HTTP_OPTIONS);
  return {
    server,
    async fetch(request) {
      const answered = await handle(request);
      if (answered !== undefined) return answered;
      const path = new URL(request.url).pathname;
      if (path === '/_stats') return Response.json(server.stats());
      if (path === '/_globals') {
        const global = globalThis as Record<string, unknown>;
        return Response.json({ Buffer: typeof global.Buffer, process: typeof global.process });
      }
      // The default webhook check where it runs: `localhost` resolves wherever node:dns exists.
      if (path === '/_webhook-check') return Response.json(await checkWebhookUrl('https://localhost/hook', { allowLoopback: true }));
      return new Response('not found by the host', { status: 404 });
    },
  };
}
