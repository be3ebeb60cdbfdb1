// A governed agent: a Governor (ADR-159) admits each task before the executor runs it: a global
// budget (here at most 2 tasks a minute, then shed), the recursion guard and per-caller policy.
// A refused call reaches the client as a typed error (BUDGET_EXCEEDED) and the executor never runs.
// Run: pnpm --filter examples example src/governed-agent.ts
import { pathToFileURL } from 'node:url';
import { createA2AClient } from '@a2aplane/a2a-client';
import {
  createInMemoryBudgetLedger,
  materializeConfig,
  readTaskContext,
  createGovernor,
  createTaskPolicyEngine,
  createRecursionPolicy,
} from '@a2aplane/a2a-governance';
import { startShouter } from './serve-agent.js';

export async function governedRoundTrip(): Promise<string[]> {
  // The same shape as an operator config file (a2aplane.toml / .yaml / .json), inline here.
  const options = materializeConfig({ budget: { global: { max_tasks_per_minute: 2, overflow: 'shed' } } }, { knownSelectors: [] });
  const governor = createGovernor({
    selfAgentId: 'shouter',
    budget: options.budget && createInMemoryBudgetLedger(options.budget),
    recursion: createRecursionPolicy(options.recursion),
    policy: createTaskPolicyEngine(options.policy),
  });
  const agent = await startShouter({ server: { governance: { admit: (input) => governor.admit(input), readTaskContext } } });
  try {
    const client = createA2AClient({ baseUrl: agent.url });
    const outcomes: string[] = [];
    for (const text of ['one', 'two', 'three']) {
      try {
        const { task } = await client.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
        outcomes.push(`${text}: ${task?.status.state}`);
      } catch (error) {
        outcomes.push(`${text}: ${(error as { reason?: string }).reason ?? String(error)}`);
      }
    }
    return outcomes;
  } finally {
    await agent.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await governedRoundTrip()) console.log(line);
}
