import { isDeepStrictEqual } from 'node:util';
import type { A2AClient } from '@a2aplane/a2a-client';
import { createRemoteExecutor } from '@a2aplane/a2a-client/routing';
import { createRootContext, readTaskContext } from '@a2aplane/a2a-governance';
import { createLocalExecutor, type Executor } from '@a2aplane/a2a-routing';
import { type A2AServer, createA2AServer } from '@a2aplane/a2a-server-express';
import type { SendMessageRequest, StreamResponse } from '@a2aplane/a2a-types';
import { hostAgent } from '../agent-host.js';
import { createWorkerExecutor } from '../agents/worker.js';
import {
  type AgentSummary,
  type ControlPlane,
  countSignedCalls,
  createKeyDirectory,
  discoverPeers,
  type SignedCalls,
  summarizePeers,
} from '../control-plane.js';
import { normalizeRun } from './normalize.js';

export interface RunRecord {
  /** What the caller saw: states and artifact ids, in order. */
  states: string[];
  /** The outcome the executor returned (normalized), `undefined` when it rejected. */
  final: unknown;
  error?: string;
  /** The task as the agent stored it once the run was over (GetTask, full history), normalized. */
  record: unknown;
  /** The agent's whole event log of the task (SubscribeToTask from event 0), normalized: its status history. */
  log: unknown[];
}

/** How the scenario reads back a task from the agent that ran it. */
interface TaskReader {
  getTask(id: string): Promise<unknown>;
  eventLog(id: string): Promise<unknown[]>;
}

export interface RemoteEqualsLocalCase {
  name: string;
  local: RunRecord;
  remote: RunRecord;
  identical: boolean;
}

export interface RemoteEqualsLocalResult {
  passed: boolean;
  cases: RemoteEqualsLocalCase[];
  agents: AgentSummary[];
  /** The remote worker served only requests signed by the demo (RFC 9421), verified as its AgentID. */
  signedCalls: SignedCalls;
}

export interface ScenarioOptions {
  onProgress?: (line: string) => void;
  /** Called once the scenario's agents listen, with their URLs and AgentIDs. */
  onAgents?: (agents: AgentSummary[]) => void;
  /** Aborting (Ctrl-C) stops the scenario; its agents are closed before it rejects. */
  signal?: AbortSignal;
}

const WORK_SKILL = { id: 'work', name: 'Work', description: 'Summarises text.', tags: ['demo'] };

const request = (text: string): SendMessageRequest => ({
  message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], metadata: { skillId: 'work' } },
});

const stateOf = (update: StreamResponse): string[] => {
  const out: string[] = [];
  const state = update.task?.status.state ?? update.statusUpdate?.status.state;
  if (state) out.push(state);
  if (update.artifactUpdate) out.push(`artifact:${update.artifactUpdate.artifact.artifactId}`);
  return out;
};

async function run(executor: Executor, reader: TaskReader, text: string, abortAfterUpdates?: number): Promise<RunRecord> {
  const controller = new AbortController();
  const states: string[] = [];
  let updates = 0;
  let taskId: string | undefined;
  let final: unknown;
  let error: string | undefined;
  try {
    const outcome = await executor.execute({
      request: request(text),
      context: createRootContext({ rootAgentId: 'demo-caller' }),
      signal: controller.signal,
      onUpdate: (update) => {
        taskId ??= update.task?.id;
        states.push(...stateOf(update));
        updates += 1;
        if (abortAfterUpdates !== undefined && updates >= abortAfterUpdates) controller.abort();
      },
    });
    final = normalizeRun(outcome.final);
  } catch (caught) {
    error = caught instanceof Error ? caught.name : String(caught);
  }
  // The executor resolves or rejects only once the task is settled (an abort cancels it first).
  const record = taskId === undefined ? undefined : normalizeRun(await reader.getTask(taskId));
  const log = taskId === undefined ? [] : (normalizeRun(await reader.eventLog(taskId)) as unknown[]);
  return { states, final, ...(error === undefined ? {} : { error }), record, log };
}

/** Reads tasks back from the in-process server core, as a caller of the same process would. */
function localReader(server: A2AServer): TaskReader {
  return {
    async getTask(id) {
      const response = await server.handle({ method: 'GetTask', params: { id }, version: '1.0' });
      if (response.kind !== 'result')
        throw new Error(`GetTask failed: ${response.kind === 'error' ? response.error.message : response.kind}`);
      return response.result;
    },
    async eventLog(id) {
      const response = await server.handle({ method: 'SubscribeToTask', params: { id }, version: '1.0', lastEventId: '0' });
      if (response.kind !== 'stream')
        throw new Error(`SubscribeToTask failed: ${response.kind === 'error' ? response.error.message : response.kind}`);
      const events: unknown[] = [];
      for await (const event of response.events) events.push(event.data);
      return events;
    },
  };
}

/** Reads tasks back over HTTP with the same client the remote executor used. */
function remoteReader(client: A2AClient): TaskReader {
  return {
    getTask: (id) => client.getTask({ id }),
    async eventLog(id) {
      const events: unknown[] = [];
      for await (const event of client.subscribeToTask({ id }, { lastEventId: '0' })) events.push(event);
      return events;
    },
  };
}

/**
 * ADR-159 acceptance test 1: the same requests through the local executor (the agent's server
 * core in process) and the remote executor (an HTTP hop to a server running the same agent)
 * give identical results modulo ids and timestamps: what the caller saw, and the full task
 * records the agents keep (history with metadata, status and its message, artifacts, the whole
 * event log), including a caller that aborts mid-task (both tasks end CANCELED).
 */
export async function runRemoteEqualsLocal(plane: ControlPlane, options: ScenarioOptions = {}): Promise<RemoteEqualsLocalResult> {
  options.signal?.throwIfAborted();
  options.onProgress?.('scenario 1: starting the worker agent and verifying its card');
  // Both sides run the same agent under the same governance (the operator config's policy); the
  // remote one serves only signed callers, and the demo signs its requests with its own key.
  const keys = createKeyDirectory(['worker']);
  const worker = await hostAgent({
    name: 'worker',
    key: keys.keyOf('worker'),
    callerKeys: keys.publicKeys,
    skill: WORK_SKILL,
    governor: (agentId) => plane.governorFor(agentId),
    executor: () => createWorkerExecutor({ stepDelayMs: 20 }),
  });
  const localGovernor = plane.governorFor(worker.agentId);
  const inProcess = createA2AServer({
    card: worker.server.card,
    executor: createWorkerExecutor({ stepDelayMs: 20 }),
    governance: { admit: (input) => localGovernor.admit(input), readTaskContext },
  });
  try {
    const peers = await discoverPeers([worker], { as: keys.demo });
    const agents = summarizePeers(peers);
    options.onAgents?.(agents);
    const local = createLocalExecutor(inProcess);
    const client = peers.get(worker.agentId)!.client;
    const remote = createRemoteExecutor(client);
    const readLocal = localReader(inProcess);
    const readRemote = remoteReader(client);
    const cases: Array<{ name: string; text: string; abortAfterUpdates?: number }> = [
      { name: 'completed task with two artifacts', text: 'summarise the quarterly delegation report' },
      { name: 'failed task', text: 'please fail this one' },
      { name: 'caller cancels mid-task', text: 'a long running analysis', abortAfterUpdates: 2 },
    ];
    const results: RemoteEqualsLocalCase[] = [];
    for (const item of cases) {
      options.signal?.throwIfAborted();
      options.onProgress?.(`scenario 1: ${item.name}`);
      const localRun = await run(local, readLocal, item.text, item.abortAfterUpdates);
      const remoteRun = await run(remote, readRemote, item.text, item.abortAfterUpdates);
      results.push({ name: item.name, local: localRun, remote: remoteRun, identical: isDeepStrictEqual(localRun, remoteRun) });
    }
    const signedCalls = countSignedCalls([worker], keys.demoAgentId);
    const passed = results.every((result) => result.identical) && signedCalls.requests > 0 && signedCalls.verified === signedCalls.requests;
    return { passed, cases: results, agents, signedCalls };
  } finally {
    await inProcess.close();
    await worker.close();
  }
}
