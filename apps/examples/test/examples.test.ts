import { describe, expect, it } from 'vitest';
import { authRoundTrip } from '../src/auth.js';
import { callAgent } from '../src/call-agent.js';
import { delegationRoundTrip } from '../src/delegation.js';
import { governedRoundTrip } from '../src/governed-agent.js';
import { createHonoApp } from '../src/hono-agent.js';
import { pushRoundTrip } from '../src/push-receiver.js';
import { startShouter } from '../src/serve-agent.js';
import { signedCardRoundTrip } from '../src/signed-card.js';
import { streamFrom } from '../src/stream.js';
import worker from '../src/worker-agent.js';
import { createA2AClient } from '@a2aplane/a2a-client';

// Every example runs here, as `pnpm test` runs it in CI: what each prints is what it promises.
describe('examples', () => {
  it('serve-agent + call-agent: the served agent answers a blocking call', async () => {
    const agent = await startShouter();
    try {
      expect(await callAgent(agent.url, 'hello agents')).toEqual({ state: 'TASK_STATE_COMPLETED', answer: 'HELLO AGENTS' });
    } finally {
      await agent.close();
    }
  });

  it('stream: status and artifact events arrive in order, ending completed', async () => {
    const agent = await startShouter();
    try {
      const seen = await streamFrom(agent.url, 'one two');
      expect(seen[0]).toMatch(/^task /);
      expect(seen).toContain('artifact ONE ');
      expect(seen.at(-1)).toBe('status TASK_STATE_COMPLETED');
    } finally {
      await agent.close();
    }
  });

  it('signed-card: the card declares the key’s AgentID and verifies on discovery', async () => {
    const result = await signedCardRoundTrip();
    expect(result.agentId).toMatch(/^[0-9a-f]{64}$/);
    expect(result.verification).toBe('valid');
    expect(result.answer).toBe('SIGNED HELLO');
  });

  it('push-receiver: signed webhook calls arrive with the token, up to completed', async () => {
    const { token, states } = await pushRoundTrip();
    expect(token).toBe('my-token');
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
  });

  it('governed-agent: the budget admits two tasks a minute, the third is BUDGET_EXCEEDED', async () => {
    expect(await governedRoundTrip()).toEqual(['one: TASK_STATE_COMPLETED', 'two: TASK_STATE_COMPLETED', 'three: BUDGET_EXCEEDED']);
  });

  it('delegation: the worker answers through the front agent and sees the lineage and a traceparent', async () => {
    const { answer, traceparent } = await delegationRoundTrip();
    expect(answer).toBe('DO THE WORK (depth 1, path front > worker)');
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });

  it('auth: a call with the API key is served, one without is UNAUTHENTICATED', async () => {
    expect(await authRoundTrip()).toEqual({ withKey: 'TASK_STATE_COMPLETED', withoutKey: 'UNAUTHENTICATED' });
  });

  // The fetch examples run in-process: the client's own `fetch` option hands each request to the app.
  const answerFrom = async (fetch: (request: Request) => Promise<Response>, text: string) => {
    const client = createA2AClient({ baseUrl: 'http://agent.example', fetch: (input, init) => fetch(new Request(input, init)) });
    const { task } = await client.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
    return { state: task?.status.state, answer: task?.status.message?.parts.map((part) => part.text ?? '').join('') };
  };

  it('hono-agent: the A2A paths are the agent, the others are the Hono app', async () => {
    const app = createHonoApp('http://agent.example');
    expect(await answerFrom((request) => Promise.resolve(app.fetch(request)), 'from hono')).toEqual({
      state: 'TASK_STATE_COMPLETED',
      answer: 'FROM HONO',
    });
    expect(await (await app.request('/')).text()).toBe('an app with an agent inside');
    expect((await app.request('/nowhere')).status).toBe(404);
  });

  it('worker-agent: the Workers-style module serves the card and the agent, 404 elsewhere', async () => {
    expect(await answerFrom((request) => worker.fetch(request), 'from a worker')).toEqual({
      state: 'TASK_STATE_COMPLETED',
      answer: 'FROM A WORKER',
    });
    const card = await worker.fetch(new Request('http://agent.example/.well-known/agent-card.json'));
    expect(((await card.json()) as { supportedInterfaces: { url: string }[] }).supportedInterfaces[0]?.url).toBe(
      'http://agent.example/a2a/jsonrpc',
    );
    expect((await worker.fetch(new Request('http://agent.example/other'))).status).toBe(404);
  });
});
