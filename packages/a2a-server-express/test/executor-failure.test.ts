import { InternalError, PolicyViolationError, type Task } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentExecutor } from '../src/index.js';
import { rpc, startServer, type TestServer, userMessage } from './helpers.js';

const opened: TestServer[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const server of opened.splice(0)) await server.close();
});

/** An executor that starts its task, then throws `error`. */
const throwing = (error: unknown): AgentExecutor => ({
  async execute(context, events) {
    events.publish({ id: context.taskId, contextId: context.contextId, status: { state: 'TASK_STATE_WORKING' } });
    throw error;
  },
});

async function send(options: Parameters<typeof startServer>[0]): Promise<Task> {
  const server = await startServer(options);
  opened.push(server);
  const { body } = await rpc(server.url, 'SendMessage', { message: userMessage('x') });
  return (body.result as { task: Task }).task;
}

describe('an executor that throws (nothing swallowed, nothing leaked)', () => {
  it('is reported on stderr by default, once, with its stack', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await send({ executor: throwing(new Error('database password is hunter2')) });
    const lines = stderr.mock.calls.map((call) => String(call[0]));
    expect(lines.filter((line) => line.startsWith('a2a server: executor failed: Error: database password is hunter2'))).toHaveLength(1);
    expect(lines[0]).toMatch(/\n\s+at /); // the stack, for the operator
  });

  it('ends the task FAILED with a status message that says so, without the thrown text', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const task = await send({ executor: throwing(new Error('database password is hunter2')) });
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    const [text, data] = task.status.message?.parts ?? [];
    expect(text?.text).toBe("The agent failed while working on this task; the agent's log has the details");
    expect(data?.data).toMatchObject({ reason: new InternalError().reason });
    expect(JSON.stringify(task)).not.toContain('hunter2');
  });

  it('passes an A2A error through as it is (it is made for the wire)', async () => {
    const refusal = new PolicyViolationError({ message: 'Skill not allowed for this caller', metadata: { field: 'allowedSkills' } });
    const task = await send({ executor: throwing(refusal), onError: () => undefined });
    expect(task.status.message?.parts[0]?.text).toBe('Skill not allowed for this caller');
    expect(task.status.message?.parts[1]?.data).toMatchObject({ reason: 'POLICY_VIOLATION', metadata: { field: 'allowedSkills' } });
  });

  it('onError: false reports nowhere; a function of your own replaces the default', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await send({ executor: throwing(new Error('quiet')), onError: false });
    const heard: string[] = [];
    await send({ executor: throwing(new Error('mine')), onError: (message) => heard.push(message) });
    expect(stderr).not.toHaveBeenCalled();
    expect(heard).toEqual(['executor failed']);
  });
});

describe('events after the server ended the run', () => {
  it('an executor still publishing after its task was canceled is not reported as a fault', async () => {
    const heard: string[] = [];
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const published = new Promise<void>((resolve) => {
      const executor: AgentExecutor = {
        async execute(context, events) {
          events.publish({ id: context.taskId, contextId: context.contextId, status: { state: 'TASK_STATE_WORKING' } });
          await released; // ignores its signal, as a slow executor may
          events.publish({ taskId: context.taskId, contextId: context.contextId, status: { state: 'TASK_STATE_WORKING' } });
          resolve();
        },
      };
      void (async () => {
        const server = await startServer({ executor, onError: (message) => heard.push(message) });
        opened.push(server);
        const sent = await rpc(server.url, 'SendMessage', { message: userMessage('x'), configuration: { returnImmediately: true } });
        const id = (sent.body.result as { task: Task }).task.id;
        const canceled = await rpc(server.url, 'CancelTask', { id });
        expect((canceled.body.result as Task).status.state).toBe('TASK_STATE_CANCELED');
        release();
      })();
    });
    await published;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).toEqual([]);
  });
});
