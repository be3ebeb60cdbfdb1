import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import type { GrpcLoadGenerator } from './grpc-load-client.js';

/**
 * The worker module, bundled once per bench run with esbuild (packages stay external): worker threads
 * do not get the tsx loader the bench runs under.
 */
let workerFile: Promise<string> | undefined;
function bundledWorker(): Promise<string> {
  workerFile ??= (async () => {
    // Inside the app, so the bundle's imports resolve to the workspace's packages.
    const dir = fileURLToPath(new URL('../../node_modules/.cache/bench/', import.meta.url));
    await mkdir(dir, { recursive: true });
    const outfile = join(dir, 'grpc-unary-worker.mjs');
    await build({
      entryPoints: [fileURLToPath(new URL('./grpc-unary-worker.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outfile,
      logLevel: 'silent',
    });
    return outfile;
  })();
  return workerFile;
}

export interface UnaryWorkerData {
  /** Which client each worker runs (lib/grpc-load-client.ts). */
  generator: GrpcLoadGenerator;
  authority: string;
  /** The encoded SendMessage request and the text in it replaced per call (lib/grpc-h2.ts `RequestTemplate`). */
  message: Uint8Array;
  placeholder: string;
  metadata: Record<string, string>;
  /** Calls this worker keeps in flight. */
  concurrency: number;
}

export interface UnaryWorkerResult {
  calls: number;
  invalid: number;
}

export interface UnaryLoad {
  /** Runs every worker for `seconds` at once; the valid and invalid calls of all of them. */
  run(seconds: number): Promise<{ calls: number; invalid: number; seconds: number }>;
  close(): Promise<void>;
}

/**
 * The gRPC suite's unary load on `threads` worker threads, each with its own HTTP/2 connection and
 * `concurrency / threads` calls in flight. One connection driven from one thread makes the server
 * and the generator take turns: the calls in flight travel as one batch each way, so the server
 * idles while the generator reads the answers and sends the next batch, and calls/s follows the sum
 * of both sides' CPU per call. Threads answer at their own pace, so one thread's batch reaches the
 * server while it works on another's, and the server sets the pace. The CPU of the threads counts
 * in the bench process's `process.cpuUsage()`, as before.
 */
export async function startUnaryLoad(
  authority: string,
  template: { message: Uint8Array; placeholder: string },
  metadata: Record<string, string>,
  concurrency: number,
  threads: number,
  generator: GrpcLoadGenerator,
): Promise<UnaryLoad> {
  if (!(Number.isInteger(threads) && threads >= 1 && concurrency % threads === 0))
    throw new RangeError(`expected threads to be an integer >= 1 dividing concurrency ${concurrency}, got ${threads}`);
  const workers = await Promise.all(
    Array.from({ length: threads }, async () => {
      const data: UnaryWorkerData = { generator, authority, ...template, metadata, concurrency: concurrency / threads };
      const worker = new Worker(await bundledWorker(), { workerData: data });
      await new Promise<void>((resolve, reject) => {
        worker.once('message', () => resolve());
        worker.once('error', reject);
      });
      return worker;
    }),
  );
  const ask = (worker: Worker, seconds: number): Promise<UnaryWorkerResult> =>
    new Promise((resolve, reject) => {
      worker.once('message', (result: UnaryWorkerResult) => resolve(result));
      worker.once('error', reject);
      worker.postMessage({ run: seconds });
    });
  return {
    async run(seconds) {
      const started = performance.now();
      const results = await Promise.all(workers.map((worker) => ask(worker, seconds)));
      return {
        calls: results.reduce((n, r) => n + r.calls, 0),
        invalid: results.reduce((n, r) => n + r.invalid, 0),
        seconds: (performance.now() - started) / 1000,
      };
    },
    async close() {
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolve) => {
              worker.once('exit', () => resolve());
              worker.postMessage({ close: true });
            }),
        ),
      );
    },
  };
}
