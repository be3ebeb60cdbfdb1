import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeToJson, encodeFromJson, GRPC_OPERATIONS, type GrpcOperation } from '@a2aplane/a2a-grpc';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import { sendMessageParams } from './fixtures.js';
import type { LoadResult } from './load.js';

const SEND = GRPC_OPERATIONS.get('SendMessage') as GrpcOperation;
const pass = (bytes: Buffer): Buffer => bytes;

/**
 * The SendMessage request, encoded once; each call copies it and writes a fresh message id over
 * the placeholder (same length), since servers answer a repeated id from their idempotency record.
 */
function requests(): () => Buffer {
  const placeholder = globalThis.crypto.randomUUID();
  const template = Buffer.from(encodeFromJson(SEND.input, sendMessageParams('hello', placeholder)));
  const at = template.indexOf(placeholder);
  return () => {
    const copy = Buffer.from(template);
    copy.write(globalThis.crypto.randomUUID(), at, 'latin1');
    return copy;
  };
}

/**
 * Unary `SendMessage` calls through a @grpc/grpc-js client for `seconds`, `concurrency` in flight;
 * a call counts when its status is OK and its answer decodes to a COMPLETED task (else it failed).
 */
export async function grpcUnaryLoad(authority: string, seconds: number, concurrency: number): Promise<LoadResult> {
  const client = new Client(authority, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  const next = requests();
  const call = () =>
    new Promise<boolean>((resolve) => {
      client.makeUnaryRequest(SEND.path, pass, pass, next(), metadata, (error, reply) => {
        const decoded = error || !reply ? undefined : (decodeToJson(SEND.output, reply) as { task?: { status?: { state?: string } } });
        resolve(decoded?.task?.status?.state === 'TASK_STATE_COMPLETED');
      });
    });
  let calls = 0;
  let failed = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) (await call()) ? calls++ : failed++;
      }),
    );
  } finally {
    client.close();
  }
  const cpu = process.cpuUsage(cpuBefore);
  const elapsedMs = performance.now() - started;
  return {
    requestsPerSecond: (calls * 1000) / elapsedMs,
    latencyP50Ms: Number.NaN,
    latencyP99Ms: Number.NaN,
    total2xx: calls,
    failed,
    valid: failed === 0 && calls > 0,
    generatorCpuMicrosPerRequest: (cpu.user + cpu.system) / calls,
    generatorBusy: (cpu.user + cpu.system) / 1000 / elapsedMs,
  };
}

/**
 * h2load (Debian's nghttp2-client) sending one fixed gRPC `SendMessage` frame: the HTTP/2 floor
 * against a server that answers without reading the id (the fixed body would repeat it).
 * Rejects with a clear reason when h2load is not installed.
 */
export async function h2loadFloor(
  authority: string,
  seconds: number,
  concurrency: number,
): Promise<{ requestsPerSecond: number; ok: number; failed: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-h2load-'));
  try {
    const message = requests()();
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    writeFileSync(join(dir, 'body'), frame);
    const args = ['-D', String(seconds), '-c', '1', '-m', String(concurrency), '-d', join(dir, 'body')];
    for (const header of ['content-type: application/grpc', 'te: trailers', 'a2a-version: 1.0']) args.push('-H', header);
    const output = await new Promise<string>((resolve, reject) =>
      execFile('h2load', [...args, `http://${authority}${SEND.path}`], (error, stdout, stderr) => {
        if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT')
          reject(new Error('h2load not found: install Debian package nghttp2-client (apt-get install nghttp2-client)'));
        else if (error) reject(new Error(`h2load failed: ${stderr || error.message}`));
        else resolve(stdout);
      }),
    );
    const rate = /finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(output);
    const counts = /requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed/.exec(output);
    if (!rate || !counts) throw new Error(`h2load: unexpected output: ${output.slice(0, 400)}`);
    return { requestsPerSecond: Number(rate[1]), ok: Number(counts[1]), failed: Number(counts[2]) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
