// The in-process micro-benchmarks of the server core (no HTTP): one request shape and one driver.
import type { A2AServer } from '@a2aplane/a2a-server-express';

// What the node:http handler hands the core: headers flattened on first read.
const RAW_HEADERS = { host: '127.0.0.1:1', 'content-type': 'application/json', 'a2a-version': '1.0', connection: 'keep-alive' };

/** A SendMessage request as the core receives it, with a fresh messageId each (a repeat would be answered from the store). */
export function sendMessageCoreRequest(): Parameters<A2AServer['handle']>[0] {
  return {
    method: 'SendMessage',
    params: { message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
    version: '1.0',
    auth: {
      method: 'POST',
      target: '/a2a/jsonrpc',
      get headers(): Record<string, string | undefined> {
        return { ...RAW_HEADERS };
      },
      query: new URLSearchParams(),
    },
  };
}

/** CPU µs per request of `perRun` SendMessage requests through `server.handle`, `concurrency` at a time. */
export async function cpuMicrosPerRequest(server: A2AServer, perRun: number, concurrency: number): Promise<number> {
  let n = 0;
  const worker = async (): Promise<void> => {
    while (n < perRun) {
      n += 1;
      const r = await server.handle(sendMessageCoreRequest());
      if (r.kind !== 'result') throw new Error(JSON.stringify(r));
    }
  };
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / perRun;
}
