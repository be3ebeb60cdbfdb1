import type { A2AClient } from '@a2aplane/a2a-client';
import type { Artifact, Message, Part, StreamResponse, Task } from '@a2aplane/a2a-types';
import { applyArtifactUpdate, type BridgeContent, messageText, resultContent } from './content.js';

/** What the MCP side offers one tool call. */
export interface ToolCallHooks {
  /** Aborts when the MCP client cancels the call (or its session closes). */
  signal: AbortSignal;
  /** Sends an MCP progress notification; absent when the client asked for none. */
  progress?: (message: string | undefined) => Promise<void>;
  /** Asks the user for more input (MCP elicitation); absent when the client cannot. `undefined` = declined. */
  elicit?: (message: string) => Promise<string | undefined>;
}

export interface ToolCallResult {
  content: BridgeContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

interface Round {
  task: Task | undefined;
  message: Message | undefined;
}

const TERMINAL_OK = 'TASK_STATE_COMPLETED';
const NEEDS_INPUT = 'TASK_STATE_INPUT_REQUIRED';
const FINAL = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  NEEDS_INPUT,
  'TASK_STATE_AUTH_REQUIRED',
]);

export const errorResult = (text: string): ToolCallResult => ({ content: [{ type: 'text', text }], isError: true });

/** One round over a stream: folds status and artifact updates into the task, reports progress. */
async function streamRound(
  client: A2AClient,
  message: Message,
  artifacts: Artifact[],
  hooks: ToolCallHooks,
  seen: { taskId?: string },
): Promise<Round> {
  let task: Task | undefined;
  for await (const event of client.sendStreamingMessage({ message }, { signal: hooks.signal })) {
    const next = fold(event, task, artifacts);
    if (next.message) return { task: undefined, message: next.message };
    task = next.task;
    if (task) seen.taskId = task.id;
    if (hooks.progress && (event.statusUpdate || event.artifactUpdate)) {
      await hooks.progress(messageText(event.statusUpdate?.status.message) ?? task?.status.state);
    }
  }
  return { task, message: undefined };
}

function fold(event: StreamResponse, task: Task | undefined, artifacts: Artifact[]): { task?: Task; message?: Message } {
  if (event.message) return { message: event.message };
  if (event.task) {
    for (const artifact of event.task.artifacts ?? []) applyArtifactUpdate(artifacts, artifact, false);
    return { task: event.task };
  }
  if (event.statusUpdate) {
    const { taskId, contextId, status } = event.statusUpdate;
    return { task: { ...(task ?? { id: taskId, contextId }), status } as Task };
  }
  if (event.artifactUpdate) {
    const { taskId, contextId, artifact, append } = event.artifactUpdate;
    applyArtifactUpdate(artifacts, artifact, append);
    return { task: task ?? ({ id: taskId, contextId, status: { state: 'TASK_STATE_WORKING' } } as Task) };
  }
  return task ? { task } : {};
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
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

/** GetTask polling: the first poll soon after the send, then slower, never slower than this. */
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 250;

/**
 * One round over unary calls: a SendMessage that returns at once (so the task id is known before
 * the work ends, and a canceled tool call can cancel it), then GetTask until the task settles.
 */
async function unaryRound(
  client: A2AClient,
  message: Message,
  artifacts: Artifact[],
  hooks: ToolCallHooks,
  seen: { taskId?: string },
): Promise<Round> {
  const sent = await client.sendMessage({ message, configuration: { returnImmediately: true } }, { signal: hooks.signal });
  if (sent.message) return { task: undefined, message: sent.message };
  let task = sent.task as Task;
  seen.taskId = task.id;
  for (let wait = FIRST_POLL_MS; !FINAL.has(task.status.state); wait = Math.min(wait * 2, MAX_POLL_MS)) {
    await hooks.progress?.(messageText(task.status.message) ?? task.status.state);
    await pause(wait, hooks.signal);
    hooks.signal.throwIfAborted();
    task = await client.getTask({ id: task.id }, { signal: hooks.signal });
  }
  artifacts.length = 0;
  for (const artifact of task.artifacts ?? []) applyArtifactUpdate(artifacts, artifact, false);
  return { task, message: undefined };
}

function settled(round: Round, artifacts: Artifact[]): ToolCallResult | undefined {
  const state = round.task?.status.state;
  if (round.message || state === TERMINAL_OK) {
    const { content, structured } = resultContent(artifacts, round.message);
    const result: ToolCallResult = { content };
    if (structured.length === 1 && isRecord(structured[0])) result.structuredContent = structured[0];
    return result;
  }
  if (state === NEEDS_INPUT) return undefined;
  const why = messageText(round.task?.status.message);
  const name = (state ?? 'TASK_STATE_UNSPECIFIED').replace('TASK_STATE_', '').toLowerCase().replace('_', '-');
  return errorResult(`The agent's task ended ${name}${why ? `: ${why}` : ''}.`);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Runs one tool call as A2A messages: a stream when the agent streams, else unary calls. An
 * `input-required` task asks the MCP user (elicitation) at most `maxInputRounds` times, else ends
 * the call with a tool error; an aborted call cancels the task it started.
 */
export async function runToolCall(
  client: A2AClient,
  options: { streaming: boolean; maxInputRounds: number },
  firstParts: Part[],
  hooks: ToolCallHooks,
): Promise<ToolCallResult> {
  const artifacts: Artifact[] = [];
  const seen: { taskId?: string; contextId?: string } = {};
  let parts = firstParts;
  try {
    for (let round = 0; ; round++) {
      const message: Message = {
        messageId: globalThis.crypto.randomUUID(),
        role: 'ROLE_USER',
        parts,
        ...(seen.taskId ? { taskId: seen.taskId, ...(seen.contextId ? { contextId: seen.contextId } : {}) } : {}),
      };
      const result = await (options.streaming ? streamRound : unaryRound)(client, message, artifacts, hooks, seen);
      if (result.task) seen.contextId = result.task.contextId;
      const done = settled(result, artifacts);
      if (done) return done;
      const question = messageText(result.task?.status.message) ?? 'The agent needs more input.';
      if (!hooks.elicit) {
        await cancelQuietly(client, seen.taskId);
        return errorResult(`The agent needs more input and this MCP client does not support elicitation: ${question}`);
      }
      if (round >= options.maxInputRounds) {
        await cancelQuietly(client, seen.taskId);
        return errorResult(`The agent asked for input more than ${options.maxInputRounds} times; its task was canceled.`);
      }
      const answer = await hooks.elicit(question);
      if (answer === undefined) {
        await cancelQuietly(client, seen.taskId);
        return errorResult('The user declined to give the agent the input it asked for; its task was canceled.');
      }
      parts = [{ text: answer }];
    }
  } catch (error) {
    if (hooks.signal.aborted) await cancelQuietly(client, seen.taskId);
    throw error;
  }
}

/** Best effort: the task may have ended meanwhile; the tool call's own outcome does not depend on it. */
async function cancelQuietly(client: A2AClient, taskId: string | undefined): Promise<void> {
  if (!taskId) return;
  try {
    await client.cancelTask({ id: taskId }, { timeoutMs: 5_000 });
  } catch {
    // The task is already final or the agent is gone: nothing left to cancel.
  }
}
