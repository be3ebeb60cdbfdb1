import { writeFile } from 'node:fs/promises';
import { exportPrivateJwk, generateKeyPair } from '@a2aplane/a2a-identity';
import type { StreamResponse, Task } from '@a2aplane/a2a-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES, runCli } from '../src/index.js';
import { freePort } from '@a2aplane/test-utils';
import { captureIo, run, startTestAgent, type TestAgent, tempDir } from './helpers.js';

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent('signed');
});
afterAll(async () => {
  await agent?.close();
});

const sendJson = async (text: string, ...extra: string[]): Promise<Task> => {
  const { code, out, err } = await run(['send', '--allow-insecure', agent.url, text, '--json', ...extra]);
  expect(err).toBe('');
  expect(code).toBe(0);
  const result = JSON.parse(out) as { task?: Task };
  expect(result.task).toBeDefined();
  return result.task as Task;
};

const waitFor = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('a2a send (spec §3.1.1 SendMessage, §3.1.2 SendStreamingMessage)', () => {
  it('prints the completed task and its artifact', async () => {
    const { code, out } = await run(['send', '--allow-insecure', agent.url, 'hello cli world']);
    expect(code).toBe(0);
    expect(out).toMatch(/^task \S+ {2}completed {2}context \S+\n/);
    expect(out).toContain('echo: hello cli world');
  });

  it('--json prints the SendMessage result; --context continues the conversation', async () => {
    const first = await sendJson('one');
    expect(first.status.state).toBe('TASK_STATE_COMPLETED');
    const second = await sendJson('two', '--context', first.contextId as string);
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
  });

  it('--stream prints status lines and joins appended artifact chunks on one line', async () => {
    const { code, out } = await run(['send', '--allow-insecure', agent.url, 'a streamed echo', '--stream']);
    expect(code).toBe(0);
    expect(out).toContain('working echoing');
    expect(out).toContain('echo: a streamed echo\n');
    expect(out.trimEnd().split('\n').at(-1)).toMatch(/completed$/);
  });

  it('--stream --json prints one StreamResponse per line', async () => {
    const { code, out } = await run(['send', '--allow-insecure', agent.url, 'x y', '--stream', '--json']);
    expect(code).toBe(0);
    const events = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as StreamResponse);
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate?.artifact.parts[0]?.text)).toEqual(['x', ' y']);
    expect(events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('an unreachable agent exits 1 with one line', async () => {
    const port = await freePort();
    const { code, err } = await run(['send', '--allow-insecure', `http://127.0.0.1:${port}`, 'hi']);
    expect(code).toBe(EXIT_CODES.failure);
    expect(err).toBe(`error: cannot reach http://127.0.0.1:${port}: connection refused\n`);
  });

  it('missing text and unknown options are usage errors', async () => {
    expect((await run(['send', '--allow-insecure', agent.url])).code).toBe(EXIT_CODES.usage);
    const unknown = await run(['send', '--allow-insecure', agent.url, 'x', '--bogus']);
    expect(unknown.code).toBe(EXIT_CODES.usage);
    expect(unknown.err).toContain("Unknown option '--bogus'");
  });
});

describe('a2a get / list / cancel / subscribe (spec §3.1.3-§3.1.6)', () => {
  it('get shows a task; --json is the Task', async () => {
    const task = await sendJson('fetch me');
    const human = await run(['get', '--allow-insecure', agent.url, task.id]);
    expect(human.code).toBe(0);
    expect(human.out).toContain(`task ${task.id}  completed`);
    const json = await run(['get', '--allow-insecure', agent.url, task.id, '--json']);
    expect((JSON.parse(json.out) as Task).artifacts?.[0]?.parts.map((p) => p.text).join('')).toBe('fetch me');
  });

  it('get of an unknown task is the agent error in one line, exit 1', async () => {
    const { code, err } = await run(['get', '--allow-insecure', agent.url, 'no-such-task']);
    expect(code).toBe(EXIT_CODES.failure);
    expect(err).toMatch(/^error: agent error TASK_NOT_FOUND: .*\n$/);
  });

  it('list filters by context and status', async () => {
    const task = await sendJson('listed');
    const { code, out } = await run([
      'list',
      '--allow-insecure',
      agent.url,
      '--context',
      task.contextId as string,
      '--status',
      'completed',
      '--json',
    ]);
    expect(code).toBe(0);
    const page = JSON.parse(out) as { tasks: Task[] };
    expect(page.tasks.map((t) => t.id)).toEqual([task.id]);
    const human = await run(['list', '--allow-insecure', agent.url, '--page-size', '100']);
    expect(human.out).toContain(task.id);
    expect((await run(['list', '--allow-insecure', agent.url, '--status', 'sleeping'])).code).toBe(EXIT_CODES.usage);
    expect((await run(['list', '--allow-insecure', agent.url, '--page-size', '0'])).code).toBe(EXIT_CODES.usage);
  });

  it('subscribe follows a running task and cancel ends it as canceled', async () => {
    const task = await sendJson('very slow echo', '--no-wait');
    expect(task.status.state).not.toBe('TASK_STATE_COMPLETED');
    const watcher = captureIo();
    const subscribed = runCli(['subscribe', '--allow-insecure', agent.url, task.id], watcher.io);
    await waitFor(() => watcher.out().includes(task.id));
    const canceled = await run(['cancel', '--allow-insecure', agent.url, task.id]);
    expect(canceled.code).toBe(0);
    expect(canceled.out).toContain(`task ${task.id}  canceled`);
    expect(await subscribed).toBe(0);
    expect(watcher.out()).toContain('echo: very');
    expect(watcher.out().trimEnd().split('\n').at(-1)).toMatch(/canceled$/);
  });

  it('aborting the io signal stops a subscription with exit 130', async () => {
    const task = await sendJson('another slow one', '--no-wait');
    const controller = new AbortController();
    const watcher = captureIo({ signal: controller.signal });
    const subscribed = runCli(['subscribe', '--allow-insecure', agent.url, task.id], watcher.io);
    await waitFor(() => watcher.out().includes(task.id));
    controller.abort();
    expect(await subscribed).toBe(EXIT_CODES.interrupted);
    await run(['cancel', '--allow-insecure', agent.url, task.id]);
  });
});

describe('--sign-with: an agent that requires verified callers (RFC 9421)', () => {
  it('send, get, list, subscribe and cancel are signed with the private JWK; unsigned calls are refused', async () => {
    const caller = generateKeyPair('EdDSA');
    const strict = await startTestAgent('signed', { callers: [caller] });
    const dir = await tempDir();
    try {
      const keyFile = dir.file('caller.jwk.json');
      await writeFile(keyFile, JSON.stringify(exportPrivateJwk(caller)));
      const signed = (...argv: string[]) => run([...argv, '--allow-insecure', '--sign-with', keyFile]);
      const sent = await signed('send', strict.url, 'very slow signed echo', '--no-wait', '--json');
      expect(sent.err).toBe('');
      const task = (JSON.parse(sent.out) as { task: Task }).task;
      expect((await signed('get', strict.url, task.id)).code).toBe(0);
      expect((await signed('list', strict.url, '--json')).out).toContain(task.id);
      const watcher = captureIo();
      const subscribed = runCli(['subscribe', '--allow-insecure', '--sign-with', keyFile, strict.url, task.id], watcher.io);
      await waitFor(() => watcher.out().includes(task.id));
      const canceled = await signed('cancel', strict.url, task.id);
      expect(canceled.out).toContain(`task ${task.id}  canceled`);
      expect(await subscribed).toBe(0);

      for (const argv of [
        ['send', strict.url, 'hi'],
        ['get', strict.url, task.id],
        ['list', strict.url],
        ['cancel', strict.url, task.id],
      ]) {
        const unsigned = await run([...argv, '--allow-insecure']);
        expect(unsigned.code, argv[0]).toBe(EXIT_CODES.failure);
        expect(unsigned.err, argv[0]).toMatch(/UNAUTHENTICATED/);
      }
      // A key the agent does not know is refused too.
      const strangerFile = dir.file('stranger.jwk.json');
      await writeFile(strangerFile, JSON.stringify(exportPrivateJwk(generateKeyPair('EdDSA'))));
      expect((await run(['list', strict.url, '--allow-insecure', '--sign-with', strangerFile])).err).toMatch(/UNAUTHENTICATED/);
    } finally {
      await strict.close();
      await dir.remove();
    }
  });

  it('--sign-with must be a readable Ed25519 private JWK (exit 1, one line)', async () => {
    const dir = await tempDir();
    try {
      const es256 = dir.file('es256.jwk.json');
      await writeFile(es256, JSON.stringify(exportPrivateJwk(generateKeyPair('ES256'))));
      for (const file of [es256, dir.file('missing.json')]) {
        const result = await run(['list', agent.url, '--allow-insecure', '--sign-with', file]);
        expect(result.code, file).not.toBe(0);
        expect(result.err.trim().split('\n'), file).toHaveLength(1);
      }
    } finally {
      await dir.remove();
    }
  });
});
