// Issue 19: resume across replicas after a real SIGKILL; what arrived is checked against the task's event log (what
// the task really emitted), not against the client's own view. The report states the method.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseServerSentEvents } from '@a2aplane/a2a-client';
import { createPostgresTaskEventBus, migrate } from '@a2aplane/a2a-postgres';
import { createRedisConnection, createRedisTaskEventBus } from '@a2aplane/a2a-redis';
import type { TaskEventBus } from '@a2aplane/a2a-server-express';
import { build } from 'esbuild';
import pg from 'pg';
import { type ServerChild, startProcess } from '../lib/children.js';
import { columns, num, passFail } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';
import { POSTGRES_URL } from './postgres.js';

type Json = Record<string, unknown>;
type Kind = 'subscriber' | 'runner';
/** Artifact chunks per task: with submitted, working and completed, 23 events. */
const CHUNKS = 20;
const EVERY_MS = 5;
/** Replica processes per kind: one more than a trial uses, so a killed one restarts while the next trials run. */
const POOL_SIZE: Record<Kind, number> = { subscriber: 4, runner: 3 };
/** After a runner kill the resumed stream stays open (nothing ends the task): how long to watch it after it caught up. */
const SETTLE_MS = 100;
const TRIAL_TIMEOUT_MS = 10_000;

/**
 * `size` replica processes; `take` picks distinct ones at random, running ones first; `kill` SIGKILLs one and starts
 * its replacement in the background.
 */
function replicaPool(size: number, start: () => Promise<ServerChild>) {
  type Slot = { ready: Promise<ServerChild>; child?: ServerChild };
  const fill = (): Slot => {
    const slot: Slot = { ready: start().then((child) => (slot.child = child)) };
    slot.ready.catch(() => undefined); // a failed start fails the trial that takes it
    return slot;
  };
  const slots = Array.from({ length: size }, fill);
  const pool = {
    restarts: 0,
    take: (count: number) => {
      const shuffled = [...slots].sort(() => Math.random() - 0.5).sort((a, b) => Number(!a.child) - Number(!b.child));
      return Promise.all(shuffled.slice(0, count).map((slot) => slot.ready));
    },
    async kill(replica: ServerChild): Promise<void> {
      const exited = new Promise((resolve) => replica.process.once('exit', resolve));
      replica.process.kill('SIGKILL');
      await exited;
      slots[slots.findIndex((slot) => slot.child === replica)] = fill();
      pool.restarts += 1;
    },
    async close(): Promise<void> {
      await Promise.allSettled(slots.map((slot) => slot.ready));
      await Promise.all(slots.map((slot) => slot.child?.stop()));
    },
  };
  return pool;
}
type Pool = ReturnType<typeof replicaPool>;

type Frame = { id: string | undefined; result: Json };

/** The JSON-RPC results of an SSE response with their event ids; ends quietly when aborted. */
async function* frames(response: Response): AsyncGenerator<Frame> {
  if (response.status !== 200) throw new Error(`a replica answered ${response.status}`);
  try {
    for await (const event of parseServerSentEvents(response.body as ReadableStream<Uint8Array>)) {
      yield { id: event.id, result: ((JSON.parse(event.data) as Json).result ?? {}) as Json };
    }
  } catch (error) {
    if (!(error instanceof Error && error.name === 'AbortError')) throw error;
  }
}

/** Reads frames into `into` until it holds `count` (or the stream ends), leaving the stream open. */
async function readInto(stream: AsyncGenerator<Frame>, into: Frame[], count: number): Promise<void> {
  while (into.length < count) {
    const next = await stream.next();
    if (next.done) return;
    into.push(next.value);
  }
}

/**
 * One trial. Subscriber kill: the task runs on replica R, the client moves to replica S (resuming after the first
 * event) and S is killed after `k` events; runner kill: R is killed after `k` events. Then the stream resumes on
 * another replica with the last id seen.
 */
async function trial(kind: Kind, pool: Pool, bus: TaskEventBus) {
  const [runner, subscriber, resumeOn] = (await pool.take(kind === 'subscriber' ? 3 : 2)) as [ServerChild, ServerChild, ServerChild?];
  const deadline = AbortSignal.timeout(TRIAL_TIMEOUT_MS);
  const k = 2 + Math.floor(Math.random() * (CHUNKS - 2));
  const delivered: Frame[] = [];
  const lastId = (): string => delivered.at(-1)?.id ?? '';
  const open = async (replica: ServerChild, method: string, params: Json, drop: AbortController) => {
    const response = await fetch(`${replica.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...(delivered.length > 0 ? { 'Last-Event-ID': lastId() } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.any([drop.signal, deadline]),
    });
    return frames(response);
  };

  const metadata = { count: CHUNKS, everyMs: EVERY_MS };
  const message = { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }], metadata };
  const toRunner = new AbortController();
  const fromRunner = await open(runner, 'SendStreamingMessage', { message }, toRunner);
  await readInto(fromRunner, delivered, kind === 'subscriber' ? 1 : k);
  // A runner kill lands while its stream is open; for a subscriber kill the client drops this connection.
  if (kind === 'runner') await pool.kill(runner);
  toRunner.abort();
  await fromRunner.return(undefined);
  const first = delivered[0]?.result ?? {};
  const taskId = String((first.task as Json | undefined)?.id ?? (first.statusUpdate as Json | undefined)?.taskId ?? '');
  const key = { tenant: '', taskId };
  if (kind === 'subscriber') {
    // The connection to the runner dropped; the load balancer sends the client to S, killed while its stream is open.
    const toVictim = new AbortController();
    const fromVictim = await open(subscriber, 'SubscribeToTask', { id: taskId }, toVictim);
    await readInto(fromVictim, delivered, k);
    await pool.kill(subscriber);
    toVictim.abort();
    await fromVictim.return(undefined);
  }
  // What the task really emitted before the kill: its log.
  const beforeKill = (await bus.read(key))?.events ?? [];

  const watching = new AbortController();
  const resumed = await open(resumeOn ?? subscriber, 'SubscribeToTask', { id: taskId }, watching);
  let ended = false;
  let settle: ReturnType<typeof setTimeout> | undefined;
  const newestBeforeKill = beforeKill.at(-1)?.id;
  // A runner kill leaves the stream open: watch it for SETTLE_MS after it delivered the last event published before the kill.
  const armSettle = (): void => {
    const caughtUp = newestBeforeKill === undefined || delivered.some((frame) => frame.id === newestBeforeKill);
    if (kind === 'runner' && settle === undefined && caughtUp) settle = setTimeout(() => watching.abort(), SETTLE_MS);
  };
  armSettle();
  for await (const frame of resumed) {
    delivered.push(frame);
    const state = ((frame.result.statusUpdate as Json | undefined)?.status as Json | undefined)?.state;
    if (state === 'TASK_STATE_COMPLETED' || state === 'TASK_STATE_FAILED' || state === 'TASK_STATE_CANCELED') ended = true;
    armSettle();
  }
  clearTimeout(settle);
  if (deadline.aborted) throw new Error('the trial timed out');

  // The whole log now (a subscriber kill: the task completed; a runner kill: whatever followed the kill).
  const log = (await bus.read(key))?.events ?? [];
  const logById = new Map(log.map((entry) => [entry.id, JSON.stringify(entry.event)]));
  const ids = delivered.map((frame) => frame.id ?? '');
  const unique = new Set(ids);
  const expectedIds = (kind === 'subscriber' ? log : beforeKill).map((entry) => entry.id);
  return {
    // Events in the task's log at the kill (all of them for a subscriber kill: the task completes).
    expected: expectedIds.length,
    delivered: delivered.length,
    lost: expectedIds.filter((id) => !unique.has(id)).length,
    duplicated: ids.length - unique.size,
    // Delivered under an id the log does not have, or with other content than the log's event of that id.
    altered: delivered.filter((frame) => logById.get(frame.id ?? '') !== JSON.stringify(frame.result)).length,
    ended: ended ? 1 : 0,
    // The task had published its final event before the kill (the client read slower than the runner wrote).
    finishedBeforeKill: beforeKill.at(-1)?.final === true ? 1 : 0,
  };
}

/** The trials of one kind on a pool of its own (the two kinds run side by side). */
async function runKind(kind: Kind, trials: number, start: () => Promise<ServerChild>, bus: TaskEventBus) {
  const pool = replicaPool(POOL_SIZE[kind], start);
  const total = { expected: 0, delivered: 0, lost: 0, duplicated: 0, altered: 0, ended: 0, finishedBeforeKill: 0 };
  const failures: string[] = [];
  let started = 0;
  try {
    await pool.take(POOL_SIZE[kind]);
    started = performance.now();
    for (let i = 0; i < trials; i++) {
      try {
        const outcome = await trial(kind, pool, bus);
        for (const field of Object.keys(total) as Array<keyof typeof total>) total[field] += outcome[field];
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return { kind, trials, ...total, failedTrials: failures.length, failures: failures.slice(0, 3), restarts: pool.restarts, seconds };
}

/** The trials with tasks and event logs in Redis (one key prefix) or PostgreSQL (a schema of the run's own). */
export async function runReplicasResume(options: RunOptions, backend: 'redis' | 'postgres'): Promise<SuiteResult> {
  const trials = options.quick ? 50 : 200;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const keyPrefix = `a2a-bench-resume:${process.pid}:${globalThis.crypto.randomUUID()}:`;
  const schema = `bench_resume_${globalThis.crypto.randomUUID().slice(0, 8)}`;
  const dir = await mkdtemp(join(tmpdir(), 'a2a-bench-resume-'));
  const admin = createRedisConnection({ url: redisUrl, name: 'bench-resume-admin' });
  const pool = backend === 'postgres' ? new pg.Pool({ connectionString: POSTGRES_URL, max: 4 }) : undefined;
  pool?.on('error', () => undefined);
  if (pool) await migrate(pool, { schema });
  else await admin.connect();
  const bus = pool ? createPostgresTaskEventBus({ pool, schema }) : createRedisTaskEventBus({ client: admin, keyPrefix });
  const entry = join(dir, 'replica.mjs');
  const env = { ...process.env, REDIS_URL: redisUrl, BENCH_KEY_PREFIX: keyPrefix, POSTGRES_URL, BENCH_PG_SCHEMA: schema };
  let results: Array<Awaited<ReturnType<typeof runKind>>> = [];
  try {
    await build({
      entryPoints: [fileURLToPath(new URL('../servers/ours.ts', import.meta.url))],
      outfile: entry,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'error',
      // node-postgres's optional native binding and Cloudflare socket are never loaded here.
      external: ['pg-native', 'pg-cloudflare', 'cloudflare:sockets'],
      // node-redis and node-postgres are CommonJS inside; an ESM bundle needs a require.
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    });
    // No tsx loader: the bundle is plain JS, and the loader would cost a second per restart.
    const args = ['--port', '0', '--mode', 'stream', '--store', backend, '--short-lived'];
    const start = () => startProcess(process.execPath, [entry, ...args], { env });
    results = await Promise.all((['subscriber', 'runner'] as const).map((kind) => runKind(kind, trials, start, bus)));
  } finally {
    await bus.close();
    if (pool) {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
      await pool.end();
    } else {
      for await (const keys of admin.scanIterator({ MATCH: `${keyPrefix}*`, COUNT: 500 })) if (keys.length > 0) await admin.unlink(keys);
      admin.destroy();
    }
    await rm(dir, { recursive: true, force: true });
  }
  const logOf = backend === 'postgres' ? 'PostgreSQL' : 'Redis';
  const markdown = [
    `${trials} trials per kind, the two kinds side by side, each on its own pool of replica processes (${POOL_SIZE.subscriber} and ${POOL_SIZE.runner}; ${logOf} task store + event bus, one ${backend === 'postgres' ? 'schema' : 'key prefix'}). A task streams ${CHUNKS} chunks, one every ${EVERY_MS} ms (${CHUNKS + 3} events). Each trial SIGKILLs a replica after a random number of events and resumes the stream on another replica with the last \`Last-Event-ID\` seen; the killed replica restarts in the background (a bundled build of \`src/servers/ours.ts --mode stream\`). What arrived is checked against the task's event log read from ${logOf}: lost = logged events never delivered, duplicated = an event id delivered twice, altered = delivered under an id the log lacks or with other content.`,
    '',
    '- **subscriber killed**: the task runs on replica R; the client moves to replica S (resuming after the first event), S is killed, the client resumes on T. Expected: the whole log, and the stream ends with the task.',
    `- **runner killed**: the replica running the executor is killed. Expected: every event published before the kill, exactly once; the resumed stream is then watched ${SETTLE_MS} ms. ${
      backend === 'postgres'
        ? 'On PostgreSQL nothing ends an orphaned task yet (decision 0075)'
        : "A surviving replica ends the orphaned task FAILED (REPLICA_LOST) only once the dead replica's lease has expired (10 s by default, decision 0032; tested in a2a-redis `orphans.test.ts`), after that watch"
    }, so here a stream ends only when the task had finished before the kill arrived.`,
    '',
    columns(results, [
      ['kind', (r) => `${r.kind} killed`],
      ['trials', (r) => r.trials],
      ['events expected', (r) => num(r.expected)],
      ['delivered', (r) => num(r.delivered)],
      ['lost', (r) => r.lost],
      ['duplicated', (r) => r.duplicated],
      ['altered', (r) => r.altered],
      ['failed trials', (r) => r.failedTrials],
      ['streams ended', (r) => `${r.ended}/${r.trials}`],
      ['task done before the kill', (r) => `${r.finishedBeforeKill}/${r.trials}`],
      ['restarts', (r) => r.restarts],
      ['seconds', (r) => num(r.seconds, 1)],
      ['goal: 0 lost, duplicated, altered, failed', (r) => `**${passFail(r.lost + r.duplicated + r.altered + r.failedTrials === 0)}**`],
    ]),
    ...(results.some((r) => r.failures.length > 0)
      ? ['', `First failures: ${results.flatMap((r) => r.failures.map((f) => `${r.kind}: ${f}`)).join('; ')}`]
      : []),
  ].join('\n');
  return { markdown, data: { trials, chunksPerTask: CHUNKS, everyMs: EVERY_MS, poolSize: POOL_SIZE, kinds: results } };
}
