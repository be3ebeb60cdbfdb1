import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with the n-th request: answer with a status, or hold it until released. */
export type Reply = { status: number; headers?: Record<string, string> } | 'hold';

/** A webhook receiver on 127.0.0.1:0 for push tests. */
export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Requests currently held open. */
  held: ServerResponse[];
  maxInFlight: number;
  /** Answers every held request with 200. */
  releaseAll(): void;
  close(): Promise<void>;
}

export async function startReceiver(replies: Reply[] = [], fallback: Reply = { status: 200 }): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const held: ServerResponse[] = [];
  let inFlight = 0;
  const state = { maxInFlight: 0 };
  const server: Server = createServer((req, res) => {
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    res.on('close', () => {
      inFlight--;
    });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = replies[requests.length - 1] ?? fallback;
      if (reply === 'hold') {
        held.push(res);
        return;
      }
      res.writeHead(reply.status, reply.headers).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    port,
    requests,
    held,
    get maxInFlight() {
      return state.maxInFlight;
    },
    releaseAll() {
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end('ok');
    },
    close() {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
