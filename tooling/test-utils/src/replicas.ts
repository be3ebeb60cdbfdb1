import { type ChildProcess, fork } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Message } from '@a2aplane/a2a-types';
import { closeServer, listenOnLoopback } from './loopback.js';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds or `ms` pass (a bounded wait, not a timing assertion); throws naming `what`. */
export async function waitFor(what: string, check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Forks a TypeScript fixture, run from source (tsx and the `@a2aplane/source` condition), with
 * `env` added to this process's environment, and resolves its first IPC message: a replica in a
 * child process a test can SIGKILL. Rejects if the child exits before it sends one.
 */
export async function forkFixture<M>(fixture: URL, env: Record<string, string>): Promise<{ child: ChildProcess; message: M }> {
  const child = fork(fileURLToPath(fixture), [], {
    execArgv: ['--conditions=@a2aplane/source', '--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const message = await new Promise<M>((resolve, reject) => {
      child.once('message', (m) => resolve(m as M));
      child.once('exit', (code) => reject(new Error(`the fixture ${fixture.pathname} exited (${code}) before it was ready`)));
    });
    return { child, message };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** Kills a child with SIGKILL (nothing gets to clean up) and resolves once it is gone. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** A webhook receiver (see `startHoldingReceiver`). */
export interface HoldingReceiver {
  url: string;
  /** While true every request is held open (never answered); then each is answered 200. */
  state: { holding: boolean };
  /** Answered requests per `Idempotency-Key`. */
  delivered: Map<string, number>;
  /** The `Idempotency-Key`s of the requests held open. */
  heldKeys: string[];
  close(): Promise<void>;
}

/** A push receiver on 127.0.0.1:0 that holds every request open while `holding`, else answers 200, recording keys. */
export async function startHoldingReceiver(): Promise<HoldingReceiver> {
  const held: ServerResponse[] = [];
  const heldKeys: string[] = [];
  const delivered = new Map<string, number>();
  const state = { holding: true };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = String(req.headers['idempotency-key']);
      if (state.holding) {
        heldKeys.push(key);
        held.push(res);
        return;
      }
      delivered.set(key, (delivered.get(key) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  const base = await listenOnLoopback(server);
  return {
    url: `${base}/hook`,
    state,
    delivered,
    heldKeys,
    close() {
      for (const res of held.splice(0)) res.destroy();
      return closeServer(server);
    },
  };
}

let nextMessage = 0;

/** A `ROLE_USER` message of `text` (plus `extra`) with an id unique to this process and run. */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: `m-${process.pid}-${++nextMessage}-${Date.now()}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** A gate the test opens to let an executor go on. */
export function createGate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** Posts a v1.0 JSON-RPC `SendMessage` of `text` to `url` (the JSON-RPC mount) and resolves the reply. */
export async function sendMessage(
  url: string,
  text: string,
  options: { returnImmediately?: boolean } = {},
): Promise<{ result?: unknown; error?: { message: string; data?: unknown } }> {
  const body = {
    jsonrpc: '2.0',
    id: nextMessage + 1,
    method: 'SendMessage',
    params: {
      message: userMessage(text),
      ...(options.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
    },
  };
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { result?: unknown; error?: { message: string; data?: unknown } };
}

/** Reads a stream to its end. */
export async function readAll<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const event of events) out.push(event);
  return out;
}
