import { exportPublicJwk, generateKeyPair } from '@a2aplane/a2a-identity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoAgent, startEchoAgent } from '../../../echo-agent/src/index.js';
import { checkCard } from '../../src/ui/lib/card-checks.js';
import { inspectAgent } from '../../src/ui/lib/inspect.js';
import { protocolOf } from '../../src/ui/lib/session.js';
import { startV03Agent, type TestAgent } from '../helpers/agents.js';

// The card inspection the UI runs, here in Node (the same client and verifier code).
let echo: EchoAgent;
let legacy: TestAgent;
beforeAll(async () => {
  echo = await startEchoAgent();
  legacy = await startV03Agent();
});
afterAll(async () => {
  await echo?.close();
  await legacy?.close();
});

describe('inspecting an agent', () => {
  it('checks a pinned key: the agent’s own key is "valid, pinned"; another key is "untrusted key", and the card is still shown', async () => {
    const pinned = await inspectAgent(echo.url, { fetch, allowInsecureLoopback: false, pinnedKeys: [exportPublicJwk(echo.key)] });
    expect(pinned.verdict).toMatchObject({ status: 'valid', pinned: true, agentId: echo.agentId, declaredAgentId: echo.agentId });
    const stranger = await inspectAgent(echo.url, {
      fetch,
      allowInsecureLoopback: false,
      pinnedKeys: [exportPublicJwk(generateKeyPair('EdDSA'))],
    });
    expect(stranger.verdict).toMatchObject({ status: 'untrusted-key', pinned: true });
    expect(stranger.discovered.card.name).toBe('Echo Agent');
    expect(checkCard(stranger.discovered.card, stranger.verdict, '1.0')).toContainEqual({
      level: 'error',
      text: 'signature: untrusted-key',
    });
  });

  it('reads a v0.3 agent from its legacy card and speaks 0.3 to it', async () => {
    const inspection = await inspectAgent(legacy.url, { fetch, allowInsecureLoopback: false });
    expect(inspection.protocolVersion).toBe('0.3');
    expect(protocolOf(inspection.discovered.card)).toBe('0.3');
    expect((inspection.raw as { protocolVersion?: string }).protocolVersion).toMatch(/^0\.3/);
    expect(checkCard(inspection.discovered.card, inspection.verdict, '0.3')[0]).toMatchObject({ level: 'warn' });
  });
});
