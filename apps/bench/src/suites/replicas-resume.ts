// Issue 19 bench: resume across replicas after a real kill. A pool of replica processes (Redis
// task store and event bus, one key prefix) serves streams; every trial SIGKILLs one replica
// mid-stream and resumes on another with the last `Last-Event-ID` seen, then counts the events
// lost, duplicated or altered against the task's event log read from Redis or PostgreSQL (what the task really
// emitted), not against the client's own view. Two kinds of kill:
// - subscriber: the replica serving the SSE stream dies (the load balancer sent the client to a
//   replica that died); the executor runs elsewhere, so the resumed stream must be the whole task;
// - runner: the replica running the executor dies; every event it published before dying must
//   arrive exactly once on the other replica. Nothing ends the orphaned task on this branch (a
//   lease takeover would); the suite reports how many did end.
// Killed replicas restart in the background so the pool stays full. `pnpm bench -- --only replicas-resume`.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseServerSentEvents } from '@a2aplane/a2a-client';
import { createPostgresTaskEventBus, migrate } from '@a2aplane/a2a-postgres';
import { createRedisConnection, createRedisTaskEventBus, type RedisConnection } from '@a2aplane/a2a-redis';
import type { TaskEventBus } from '@a2aplane/a2a-server-express';
import pg from 'pg';
import { build } from 'esbuild';
import { num, passFail, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

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

interface Replica {
  url: string;
  child: ChildProcess;
}

/** Replica child processes; `kill` SIGKILLs one and starts its replacement in the background. */
class ReplicaPool {
  private readonly ready: Replica[] = [];
  private readonly starting = new Set<Promise<void>>();
  private failure: Error | undefined;
  restarts = 0;

  constructor(
    private readonly entry: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  fill(size: number): Promise<void> {
    for (let i = 0; i < size; i++) this.startInBackground();
    return this.waitFor(size);
  }

  private startInBackground(): void {
    const started = this.start().then(
      (replica) => {
        this.ready.push(replica);
      },
      (error: unknown) => {
        this.failure = error instanceof Error ? error : new Error(String(error));
      },
    );
    this.starting.add(started);
    void started.finally(() => this.starting.delete(started));
  }

  private start(): Promise<Replica> {
    return new Promise((resolve, reject) => {
      // No execArgv: the bundle is plain JS, and the bench's own tsx loader would cost a second per start.
      const child = fork(this.entry, [], { env: this.env, execArgv: [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-2000);
      });
      const onExit = (code: number | null): void => reject(new Error(`a replica exited with ${code} before it was ready: ${stderr}`));
      child.once('exit', onExit);
      child.once('message', (message: { type?: string; url?: string }) => {
        child.off('exit', onExit);
        if (message.type === 'ready' && message.url) resolve({ url: message.url, child });
        else reject(new Error(`unexpected message from a replica: ${JSON.stringify(message)}`));
      });
    });
  }

  private async waitFor(count: number): Promise<void> {
    while (this.ready.length < count) {
      if (this.failure) throw this.failure;
      if (this.starting.size === 0) throw new Error(`expected ${count} replicas, ${this.ready.length} running`);
      await Promise.race(this.starting);
    }
  }

  /** `count` distinct running replicas, in random order. */
  async take(count: number): Promise<Replica[]> {
    await this.waitFor(count);
    const picked = [...this.ready].sort(() => Math.random() - 0.5);
    return picked.slice(0, count);
  }

  /** SIGKILL, wait for the exit, start a replacement in the background. */
  async kill(replica: Replica): Promise<void> {
    this.ready.splice(this.ready.indexOf(replica), 1);
    const exited = new Promise((resolve) => replica.child.once('exit', resolve));
    replica.child.kill('SIGKILL');
    await exited;
    this.restarts += 1;
    this.startInBackground();
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.starting);
    await Promise.all(
      this.ready.map(async ({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }
}

const call = (url: string, method: string, params: Json, headers: Record<string, string>, signal: AbortSignal) =>
  fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal,
  });

interface Frame {
  id: string | undefined;
  result: Json;
}

/** The JSON-RPC results of an SSE response with their event ids (the client's SSE parser); ends quietly when aborted. */
async function* frames(response: Response): AsyncGenerator<Frame> {
  try {
    for await (const event of parseServerSentEvents(response.body as ReadableStream<Uint8Array>)) {
      yield { id: event.id, result: ((JSON.parse(event.data) as Json).result ?? {}) as Json };
    }
  } catch (error) {
    if (!(error instanceof Error && error.name === 'AbortError')) throw error;
  }
}

const taskIdOf = (result: Json): string =>
  String((result.task as Json | undefined)?.id ?? (result.statusUpdate as Json | undefined)?.taskId ?? '');
const isFinalFrame = (result: Json): boolean => {
  const state = ((result.statusUpdate as Json | undefined)?.status as Json | undefined)?.state;
  return state === 'TASK_STATE_COMPLETED' || state === 'TASK_STATE_FAILED' || state === 'TASK_STATE_CANCELED';
};

/** Reads frames into `into` until it holds `count` (or the stream ends), leaving the stream open. */
async function readInto(stream: AsyncGenerator<Frame>, into: Frame[], count: number): Promise<void> {
  while (into.length < count) {
    const next = await stream.next();
    if (next.done) return;
    into.push(next.value);
  }
}

interface TrialOutcome {
  /** Events in the task's log when the kill happened (all of them for a subscriber kill: the task completes). */
  expected: number;
  delivered: number;
  lost: number;
  duplicated: number;
  /** Delivered under an id the log does not have, or with other content than the log's event of that id. */
  altered: number;
  /** The resumed stream ended with the task's final event. */
  ended: boolean;
  /** The task had published its final event before the kill (the client read slower than the runner wrote). */
  finishedBeforeKill: boolean;
}

/**
 * One trial: a task streams from its runner; for a subscriber kill the client moves to replica S
 * (resuming after the first event) and S is killed after `k` events; for a runner kill the runner
 * is killed after `k` events. Then the stream resumes on another replica with the last id seen.
 */
async function trial(kind: Kind, pool: ReplicaPool, bus: TaskEventBus): Promise<TrialOutcome> {
  const picked = await pool.take(kind === 'subscriber' ? 3 : 2);
  const runner = picked[0] as Replica;
  const resumeOn = picked.at(-1) as Replica;
  const deadline = AbortSignal.timeout(TRIAL_TIMEOUT_MS);
  const k = 2 + Math.floor(Math.random() * (CHUNKS - 2));
  const delivered: Frame[] = [];
  const lastId = (): string => delivered.at(-1)?.id ?? '';

  const started = new AbortController();
  const first = await call(
    runner.url,
    'SendStreamingMessage',
    {
      message: {
        messageId: globalThis.crypto.randomUUID(),
        role: 'ROLE_USER',
        parts: [{ text: 'go' }],
        metadata: { count: CHUNKS, everyMs: EVERY_MS },
      },
    },
    {},
    AbortSignal.any([started.signal, deadline]),
  );
  const fromRunner = frames(first);
  await readInto(fromRunner, delivered, kind === 'subscriber' ? 1 : k);
  // A runner kill lands while its stream is open; for a subscriber kill the client drops this connection.
  if (kind === 'runner') await pool.kill(runner);
  started.abort();
  await fromRunner.return(undefined);
  const taskId = taskIdOf(delivered[0]?.result ?? {});
  const key = { tenant: '', taskId };

  if (kind === 'subscriber') {
    // The connection to the runner dropped; the load balancer sends the client to S.
    const subscriberReplica = picked[1] as Replica;
    const onVictim = new AbortController();
    const moved = await call(
      subscriberReplica.url,
      'SubscribeToTask',
      { id: taskId },
      { 'Last-Event-ID': lastId() },
      AbortSignal.any([onVictim.signal, deadline]),
    );
    if (moved.status !== 200) throw new Error(`SubscribeToTask on S answered ${moved.status}`);
    const fromVictim = frames(moved);
    await readInto(fromVictim, delivered, k);
    // Killed while its stream is open.
    await pool.kill(subscriberReplica);
    onVictim.abort();
    await fromVictim.return(undefined);
  }
  // What the task really emitted before the kill: its log in Redis.
  const beforeKill = (await bus.read(key))?.events ?? [];

  const watching = new AbortController();
  const resumed = await call(
    resumeOn.url,
    'SubscribeToTask',
    { id: taskId },
    { 'Last-Event-ID': lastId() },
    AbortSignal.any([watching.signal, deadline]),
  );
  if (resumed.status !== 200) throw new Error(`SubscribeToTask on the other replica answered ${resumed.status}`);
  let ended = false;
  let settle: ReturnType<typeof setTimeout> | undefined;
  const newestBeforeKill = beforeKill.at(-1)?.id;
  const caughtUp = (): boolean => newestBeforeKill === undefined || delivered.some((frame) => frame.id === newestBeforeKill);
  // A runner kill leaves the stream open: watch it for SETTLE_MS after it delivered the last event published before the kill.
  const armSettle = (): void => {
    if (kind === 'runner' && settle === undefined && caughtUp()) settle = setTimeout(() => watching.abort(), SETTLE_MS);
  };
  armSettle();
  for await (const frame of frames(resumed)) {
    delivered.push(frame);
    if (isFinalFrame(frame.result)) ended = true;
    armSettle();
  }
  clearTimeout(settle);
  if (deadline.aborted) throw new Error('the trial timed out');

  // The whole log now (a subscriber kill: the task completed; a runner kill: whatever followed the kill).
  const log = (await bus.read(key))?.events ?? [];
  const logById = new Map(log.map((entry) => [entry.id, entry.event]));
  const ids = delivered.map((frame) => frame.id ?? '');
  const unique = new Set(ids);
  const expectedIds = (kind === 'subscriber' ? log : beforeKill).map((entry) => entry.id);
  return {
    expected: expectedIds.length,
    delivered: delivered.length,
    lost: expectedIds.filter((id) => !unique.has(id)).length,
    duplicated: ids.length - unique.size,
    altered: delivered.filter((frame) => {
      const event = logById.get(frame.id ?? '');
      return event === undefined || JSON.stringify(event) !== JSON.stringify(frame.result);
    }).length,
    ended,
    finishedBeforeKill: beforeKill.at(-1)?.final === true,
  };
}

interface KindResult {
  kind: Kind;
  trials: number;
  expected: number;
  delivered: number;
  lost: number;
  duplicated: number;
  altered: number;
  ended: number;
  /** Of the runner kills: tasks whose final event was published before the kill. */
  finishedBeforeKill: number;
  restarts: number;
  failedTrials: number;
  failures: string[];
  seconds: number;
}

/** The trials of one kind on a pool of its own (the two kinds run side by side). */
async function runKind(kind: Kind, trials: number, entry: string, env: NodeJS.ProcessEnv, bus: TaskEventBus): Promise<KindResult> {
  const result: KindResult = {
    kind,
    trials,
    expected: 0,
    delivered: 0,
    lost: 0,
    duplicated: 0,
    altered: 0,
    ended: 0,
    finishedBeforeKill: 0,
    restarts: 0,
    failedTrials: 0,
    failures: [],
    seconds: 0,
  };
  const pool = new ReplicaPool(entry, env);
  try {
    await pool.fill(POOL_SIZE[kind]);
  } catch (error) {
    await pool.close();
    throw error;
  }
  const started = performance.now();
  for (let i = 0; i < trials; i++) {
    try {
      const outcome = await trial(kind, pool, bus);
      result.expected += outcome.expected;
      result.delivered += outcome.delivered;
      result.lost += outcome.lost;
      result.duplicated += outcome.duplicated;
      result.altered += outcome.altered;
      if (outcome.ended) result.ended += 1;
      if (outcome.finishedBeforeKill) result.finishedBeforeKill += 1;
    } catch (error) {
      result.failedTrials += 1;
      if (result.failures.length < 3) result.failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  result.seconds = (performance.now() - started) / 1000;
  result.restarts = pool.restarts;
  await pool.close();
  return result;
}

export function runReplicasResume(options: RunOptions): Promise<SuiteResult> {
  return runResume(options, 'redis');
}

/** The same trials with tasks and event logs in PostgreSQL (`@a2aplane/a2a-postgres`, a schema of the run's own). */
export function runReplicasResumePostgres(options: RunOptions): Promise<SuiteResult> {
  return runResume(options, 'postgres');
}

async function runResume(options: RunOptions, backend: 'redis' | 'postgres'): Promise<SuiteResult> {
  const trials = options.quick ? 50 : 200;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const postgresUrl = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const keyPrefix = `a2a-bench-resume:${process.pid}:${globalThis.crypto.randomUUID()}:`;
  const schema = `bench_resume_${globalThis.crypto.randomUUID().slice(0, 8)}`;
  const dir = await mkdtemp(join(tmpdir(), 'a2a-bench-resume-'));
  const admin: RedisConnection = createRedisConnection({ url: redisUrl, name: 'bench-resume-admin' });
  const pool = backend === 'postgres' ? new pg.Pool({ connectionString: postgresUrl, max: 4 }) : undefined;
  pool?.on('error', () => undefined);
  let bus: TaskEventBus;
  if (pool) {
    await migrate(pool, { schema });
    bus = createPostgresTaskEventBus({ pool, schema });
  } else {
    await admin.connect();
    bus = createRedisTaskEventBus({ client: admin, keyPrefix });
  }
  const entry = join(dir, 'replica.mjs');
  const env = {
    ...process.env,
    REDIS_URL: redisUrl,
    RESUME_KEY_PREFIX: keyPrefix,
    RESUME_BACKEND: backend,
    POSTGRES_URL: postgresUrl,
    RESUME_PG_SCHEMA: schema,
  };
  let results: KindResult[] = [];
  try {
    await build({
      entryPoints: [fileURLToPath(new URL('../servers/resume-replica.ts', import.meta.url))],
      outfile: join(dir, 'replica.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
      // node-postgres's optional native binding and Cloudflare socket are never loaded here.
      external: ['pg-native', 'pg-cloudflare', 'cloudflare:sockets'],
      // node-redis and node-postgres are CommonJS inside; an ESM bundle needs a require.
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    });
    results = await Promise.all((['subscriber', 'runner'] as const).map((kind) => runKind(kind, trials, entry, env, bus)));
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
  const store = backend === 'postgres' ? 'PostgreSQL task store + event bus, one schema' : 'Redis task store + event bus, one key prefix';
  const logOf = backend === 'postgres' ? 'PostgreSQL' : 'Redis';
  const passed = (r: KindResult): boolean => r.lost === 0 && r.duplicated === 0 && r.altered === 0 && r.failedTrials === 0;
  const markdown = [
    `${trials} trials per kind, the two kinds side by side, each on its own pool of replica processes (${POOL_SIZE.subscriber} and ${POOL_SIZE.runner}; ${store}).`,
    `A task streams ${CHUNKS} chunks, one every ${EVERY_MS} ms (${CHUNKS + 3} events). Each trial SIGKILLs a replica after a random`,
    'number of events and resumes the stream on another replica with the last `Last-Event-ID` seen; the killed replica restarts in the',
    "background (a bundled build of `src/servers/resume-replica.ts`: a restart is a plain Node start). What arrived is checked against the task's",
    `event log read from ${logOf}: lost = logged events never delivered, duplicated = an event id delivered twice, altered = delivered under an`,
    'id the log lacks or with other content.',
    '',
    '- **subscriber killed**: the task runs on replica R; the client moves to replica S (resuming after the first event), S is killed, the',
    '  client resumes on T. Expected: the whole log, and the stream ends with the task.',
    '- **runner killed**: the replica running the executor is killed. Expected: every event published before the kill, exactly once; the',
    backend === 'postgres'
      ? `  resumed stream is then watched ${SETTLE_MS} ms; on PostgreSQL nothing ends an orphaned task yet (decision 0075), so a stream ends only when the task had finished before the kill arrived.`
      : `  resumed stream is then watched ${SETTLE_MS} ms. A surviving replica ends the orphaned task FAILED (REPLICA_LOST) only once the dead
  replica's lease has expired (10 s by default, decision 0032), after that watch, so here a stream ends only when the task had finished
  before the kill arrived (the takeover is tested in a2a-redis \`orphans.test.ts\`).`,
    '',
    table(
      [
        'kind',
        'trials',
        'events expected',
        'delivered',
        'lost',
        'duplicated',
        'altered',
        'failed trials',
        'streams ended',
        'task done before the kill',
        'restarts',
        'seconds',
        'goal: 0 lost, 0 duplicated',
      ],
      results.map((r) => [
        r.kind === 'subscriber' ? 'subscriber killed' : 'runner killed',
        String(r.trials),
        num(r.expected),
        num(r.delivered),
        String(r.lost),
        String(r.duplicated),
        String(r.altered),
        String(r.failedTrials),
        `${r.ended}/${r.trials}`,
        `${r.finishedBeforeKill}/${r.trials}`,
        String(r.restarts),
        num(r.seconds, 1),
        passFail(passed(r)),
      ]),
    ),
    ...(results.some((r) => r.failures.length > 0)
      ? ['', `First failures: ${results.flatMap((r) => r.failures.map((f) => `${r.kind}: ${f}`)).join('; ')}`]
      : []),
  ].join('\n');
  return {
    title: `Resume across replicas after a kill (${logOf})`,
    markdown,
    data: { trials, chunksPerTask: CHUNKS, everyMs: EVERY_MS, poolSize: POOL_SIZE, kinds: results },
  };
}
