import { describe, expect, it } from 'vitest';
import { authRoundTrip } from '../src/auth.js';
import { callAgent } from '../src/call-agent.js';
import { delegationRoundTrip } from '../src/delegation.js';
import { governedRoundTrip } from '../src/governed-agent.js';
import { pushRoundTrip } from '../src/push-receiver.js';
import { startShouter } from '../src/serve-agent.js';
import { signedCardRoundTrip } from '../src/signed-card.js';
import { streamFrom } from '../src/stream.js';

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
});
