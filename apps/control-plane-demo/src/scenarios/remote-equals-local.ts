import { isDeepStrictEqual } from 'node:util';
import { createRemoteExecutor } from '@a2aplane/a2a-client/routing';
import { createRootContext, readTaskContext } from '@a2aplane/a2a-governance';
import { createLocalExecutor, type Executor } from '@a2aplane/a2a-routing';
import { createA2AServer } from '@a2aplane/a2a-server-express';
import type { SendMessageRequest } from '@a2aplane/a2a-types';
import { hostAgent } from '../agent-host.js';
import { createWorkerExecutor } from '../agents/worker.js';
import { type AgentSummary, type ControlPlane, discoverPeers, summarizePeers } from '../control-plane.js';
import { normalizeRun } from './normalize.js';

export interface RunRecord {
  states: string[];
  final: unknown;
  error?: string;
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

async function run(executor: Executor, text: string, abortAfterUpdates?: number): Promise<RunRecord> {
  const controller = new AbortController();
  const states: string[] = [];
  let updates = 0;
  try {
    const outcome = await executor.execute({
      request: request(text),
      context: createRootContext({ rootAgentId: 'demo-caller' }),
      signal: controller.signal,
      onUpdate: (update) => {
        const state = update.task?.status.state ?? update.statusUpdate?.status.state;
        if (state) states.push(state);
        if (update.artifactUpdate) states.push(`artifact:${update.artifactUpdate.artifact.artifactId}`);
        updates += 1;
        if (abortAfterUpdates !== undefined && updates >= abortAfterUpdates) controller.abort();
      },
    });
    return { states, final: normalizeRun(outcome.final) };
  } catch (error) {
    return { states, final: undefined, error: error instanceof Error ? error.name : String(error) };
  }
}

/**
 * ADR-159 acceptance test 1: the same requests through the local executor (the agent's server
 * core in process) and the remote executor (an HTTP hop to a server running the same agent)
 * give identical status sequences, artifacts and errors, modulo ids and timestamps.
 */
export async function runRemoteEqualsLocal(plane: ControlPlane, options: ScenarioOptions = {}): Promise<RemoteEqualsLocalResult> {
  options.signal?.throwIfAborted();
  options.onProgress?.('scenario 1: starting the worker agent and verifying its card');
  // Both sides run the same agent under the same governance (the operator config's policy).
  const worker = await hostAgent({
    name: 'worker',
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
    const peers = await discoverPeers([worker]);
    const agents = summarizePeers(peers);
    options.onAgents?.(agents);
    const local = createLocalExecutor(inProcess);
    const remote = createRemoteExecutor(peers.get(worker.agentId)!.client);
    const cases: Array<{ name: string; text: string; abortAfterUpdates?: number }> = [
      { name: 'completed task with two artifacts', text: 'summarise the quarterly delegation report' },
      { name: 'failed task', text: 'please fail this one' },
      { name: 'caller cancels mid-task', text: 'a long running analysis', abortAfterUpdates: 2 },
    ];
    const results: RemoteEqualsLocalCase[] = [];
    for (const item of cases) {
      options.signal?.throwIfAborted();
      options.onProgress?.(`scenario 1: ${item.name}`);
      const localRun = await run(local, item.text, item.abortAfterUpdates);
      const remoteRun = await run(remote, item.text, item.abortAfterUpdates);
      results.push({ name: item.name, local: localRun, remote: remoteRun, identical: isDeepStrictEqual(localRun, remoteRun) });
    }
    return { passed: results.every((result) => result.identical), cases: results, agents };
  } finally {
    await inProcess.close();
    await worker.close();
  }
}
