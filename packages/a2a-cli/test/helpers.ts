import { listenOnLoopback } from '@a2aplane/test-utils';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  agentIdFromPublicKey,
  createCallerKeyResolver,
  createHttpSignatureVerifier,
  createJwks,
  generateKeyPair,
  type KeyPair,
  signAgentCard,
  withAgentIdExtension,
} from '@a2aplane/a2a-identity';
import {
  type AgentExecutor,
  createA2AServer,
  createA2ARequestHandler,
  createAgentCard,
  createHttpSignatureAuthenticator,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import { type CliIo, runCli } from '../src/index.js';

export interface RunResult {
  code: number;
  out: string;
  err: string;
}

/** Captured io: plain (non-TTY) streams, an empty env, the global fetch. */
export function captureIo(extra: Partial<CliIo> = {}): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: { write: (s: string) => (out += s), isTTY: false },
      stderr: { write: (s: string) => (err += s), isTTY: false },
      env: {},
      fetch: globalThis.fetch,
      ...extra,
    },
    out: () => out,
    err: () => err,
  };
}

export async function run(argv: string[], extra: Partial<CliIo> = {}): Promise<RunResult> {
  const captured = captureIo(extra);
  const code = await runCli(argv, captured.io);
  return { code, out: captured.out(), err: captured.err() };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Streams the words back with a pause, so cancel can land mid-task. */
function slowEchoExecutor(delayMs: number): AgentExecutor {
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork('echoing');
      const words = context.message.parts
        .map((p) => p.text ?? '')
        .join(' ')
        .split(/\s+/)
        .filter(Boolean);
      // "fail", "reject" or "cancel" as the whole text ends the task in that state.
      if (words.join(' ') === 'fail') return task.fail('asked to fail');
      if (words.join(' ') === 'reject') return task.reject('asked to reject');
      if (words.join(' ') === 'cancel') return task.cancel('asked to cancel');
      for (let i = 0; i < words.length; i++) {
        if (delayMs > 0 && words[i] === 'slow') await abortableSleep(delayMs, context.signal);
        if (context.signal.aborted) return;
        task.addArtifact([{ text: i === 0 ? words[i]! : ` ${words[i]}` }], {
          artifactId: `echo-${context.taskId}`,
          name: 'echo',
          append: i > 0,
          lastChunk: i === words.length - 1,
        });
      }
      task.complete();
    },
  };
}

export type CardMode = 'signed' | 'unsigned' | 'tampered';

export interface TestAgent {
  url: string;
  key: KeyPair;
  close(): Promise<void>;
}

/**
 * A loopback echo agent on 127.0.0.1:0 built with a2a-server-express. `signed` signs the card with
 * a jku to its own /.well-known/jwks.json; `tampered` serves that signed card with a changed name.
 * With `callers`, every request must be signed (RFC 9421) by one of those keys; unsigned ones are refused.
 */
export async function startTestAgent(mode: CardMode = 'signed', options: { callers?: KeyPair[] } = {}): Promise<TestAgent> {
  const key = generateKeyPair('EdDSA');
  const http: Server = createServer();
  const url = await listenOnLoopback(http);
  const card = withAgentIdExtension(
    createAgentCard({
      baseUrl: url,
      name: 'Test Echo',
      description: 'Echoes words.',
      capabilities: { streaming: true, pushNotifications: false },
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes the input text.', tags: ['echo'] }],
    }),
    agentIdFromPublicKey(key.publicKey),
  );
  const authenticate = options.callers
    ? createHttpSignatureAuthenticator({
        verifier: createHttpSignatureVerifier({ resolveKey: createCallerKeyResolver({ keys: options.callers }) }),
      })
    : undefined;
  const server = createA2AServer({ card, executor: slowEchoExecutor(10_000), ...(authenticate ? { authenticate } : {}) });
  const jku = `${url}/.well-known/jwks.json`;
  const handler = createA2ARequestHandler(
    server,
    mode === 'unsigned' ? {} : { cardSigner: { sign: (c) => signAgentCard(c, key, { jku }) } },
  );
  const tamperedJson = JSON.stringify({ ...signAgentCard(card, key, { jku }).card, name: 'Evil Echo' });
  http.on('request', (req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(createJwks([key])));
      return;
    }
    if (mode === 'tampered' && req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(tamperedJson);
      return;
    }
    void handler(req, res).then((handled) => {
      if (!handled) {
        res.writeHead(404);
        res.end();
      }
    });
  });
  return {
    url,
    key,
    close: async () => {
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

export async function tempDir(): Promise<{ path: string; file(name: string): string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'a2a-cli-'));
  return { path, file: (name) => join(path, name), remove: () => rm(path, { recursive: true, force: true }) };
}
