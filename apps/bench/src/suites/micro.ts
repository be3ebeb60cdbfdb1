import {
  createCallAuthorizer,
  type TaskContext,
  childContext,
  createInMemoryBudgetLedger,
  createRootContext,
  createGovernor,
  createTaskPolicyEngine,
  createRecursionPolicy,
  createSpendAggregator,
} from '@a2aplane/a2a-governance';
import {
  agentIdFromPublicKey,
  canonicalize,
  createAllowlistIdentityResolver,
  createHmacWebhookSigner,
  createPinnedKeyResolver,
  createWebhookVerifier,
  generateKeyPair,
  signAgentCard,
  verifyAgentCard,
} from '@a2aplane/a2a-identity';
import { cheapestUnderLatency, lowestLatency, roundRobin, createPeerPool } from '@a2aplane/a2a-routing';
import { parseSendMessageRequest } from '@a2aplane/a2a-types';
import { Bench } from 'tinybench';
import { typicalCard, sendMessageParams } from '../lib/fixtures.js';
import { num, passFail, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

/** Governance paths must reach this (ADR-159's target). */
const GOVERNANCE_GOAL_OPS = 1_000_000;

interface Case {
  name: string;
  group: 'governance' | 'routing' | 'identity' | 'types';
  /** Operations per call of `fn`: cheap paths run in batches so timer overhead does not dominate. */
  batch: number;
  fn: () => unknown;
}

export interface MicroRow {
  name: string;
  group: string;
  opsPerSecond: number;
  rmePercent: number;
  samples: number;
  goal: 'pass' | 'fail' | null;
}

function deepContext(depth: number): TaskContext {
  let context = createRootContext({ rootAgentId: 'agent-0' });
  for (let i = 1; i <= depth; i++) context = childContext(context, { parentTaskId: `task-${i}`, receivingAgentId: `agent-${i}` });
  return context;
}

async function buildCases(): Promise<Case[]> {
  const cases: Case[] = [];
  const B = 1000;

  // BudgetLedger: uncapped fast path.
  const uncapped = createInMemoryBudgetLedger();
  cases.push({
    name: 'BudgetLedger acquire+meter (uncapped fast path)',
    group: 'governance',
    batch: B,
    fn: async () => {
      for (let i = 0; i < B; i++) await uncapped.meter(await uncapped.acquire({}), { usd: 0.001, tokens: 10 });
    },
  });
  // Capped but far from the limit (what a governed server runs).
  const capped = createInMemoryBudgetLedger({ maxUsdPerMinute: 1e12, maxTokensPerMinute: 1e15, maxTasksPerMinute: 1e12 });
  cases.push({
    name: 'BudgetLedger acquire+meter (capped, under the limit)',
    group: 'governance',
    batch: B,
    fn: async () => {
      for (let i = 0; i < B; i++) await capped.meter(await capped.acquire({ estimatedUsd: 0.001 }), { usd: 0.001, tokens: 10 });
    },
  });
  // At the limit, shed: every acquire is refused with BudgetExceededError.
  const shed = createInMemoryBudgetLedger({ maxTasksPerMinute: 1 });
  await shed.acquire({});
  cases.push({
    name: 'BudgetLedger acquire at the limit (shed, rejected)',
    group: 'governance',
    batch: B,
    fn: async () => {
      for (let i = 0; i < B; i++) await shed.acquire({}).catch(() => undefined);
    },
  });
  // Queued: the USD reservation of the holder fills the cap; the next acquire waits in the FIFO
  // and is granted when the holder is metered.
  const queued = createInMemoryBudgetLedger({ maxUsdPerMinute: 1, overflow: { kind: 'queue', maxQueueDepth: 16 } });
  let holder = await queued.acquire({ estimatedUsd: 1 });
  cases.push({
    name: 'BudgetLedger acquire queued, granted on meter',
    group: 'governance',
    batch: B,
    fn: async () => {
      for (let i = 0; i < B; i++) {
        const waiting = queued.acquire({ estimatedUsd: 1 });
        await queued.meter(holder, { usd: 0 });
        holder = await waiting;
      }
    },
  });

  const root = createRootContext({ rootAgentId: 'agent-0' });
  const depth7 = deepContext(7);
  cases.push({
    name: 'TaskContext childContext() at depth 1',
    group: 'governance',
    batch: B,
    fn: () => {
      for (let i = 0; i < B; i++) childContext(root, { parentTaskId: 'task-1', receivingAgentId: 'agent-1' });
    },
  });
  cases.push({
    name: 'TaskContext childContext() at depth 8',
    group: 'governance',
    batch: B,
    fn: () => {
      for (let i = 0; i < B; i++) childContext(depth7, { parentTaskId: 'task-8', receivingAgentId: 'agent-8' });
    },
  });
  const recursion = createRecursionPolicy();
  const depth4 = deepContext(4);
  cases.push({
    name: 'RecursionPolicy check (depth 4, allowed)',
    group: 'governance',
    batch: B,
    fn: () => {
      for (let i = 0; i < B; i++) recursion.check(depth4, 'agent-new');
    },
  });
  const policy = createTaskPolicyEngine({ default: { allowedSkills: ['echo', 'summarize'], maxConcurrency: 1_000_000 } });
  cases.push({
    name: 'TaskPolicyEngine admit+release (skill allowlist, concurrency)',
    group: 'governance',
    batch: B,
    fn: () => {
      for (let i = 0; i < B; i++) {
        const result = policy.admit({ caller: 'caller-1', skill: 'echo' });
        if (result.ok) result.admission.release();
      }
    },
  });
  const governor = createGovernor({
    selfAgentId: 'agent-self',
    budget: createInMemoryBudgetLedger({ maxUsdPerMinute: 1e12, maxTokensPerMinute: 1e15, maxTasksPerMinute: 1e12 }),
    allowUnestimatedUsd: true,
    recursion: createRecursionPolicy(),
    policy: createTaskPolicyEngine({ default: { allowedSkills: ['echo'], maxConcurrency: 1_000_000 } }),
    spend: createSpendAggregator(),
  });
  const incoming = deepContext(2);
  cases.push({
    name: 'Governor admit+finish (budget, recursion, policy, lineage)',
    group: 'governance',
    batch: B,
    fn: async () => {
      for (let i = 0; i < B; i++) {
        const task = await governor.admit({ caller: 'caller-1', skill: 'echo', incoming, parentTaskId: 'task-2' });
        await task.finish({ usd: 0.001, tokens: 10 });
      }
    },
  });

  // The same admission behind the trust gate: an allowlisted, verified caller with a skill rule.
  const callerId = agentIdFromPublicKey(generateKeyPair('EdDSA').publicKey);
  const trusted = createGovernor({
    selfAgentId: 'agent-self',
    authorize: createCallAuthorizer({
      identity: createAllowlistIdentityResolver([callerId]),
      rules: [{ caller: 'tier:1', skills: ['echo'] }],
      tiers: { [callerId]: 1 },
    }),
    budget: createInMemoryBudgetLedger({ maxUsdPerMinute: 1e12, maxTokensPerMinute: 1e15, maxTasksPerMinute: 1e12 }),
    allowUnestimatedUsd: true,
    recursion: createRecursionPolicy(),
    policy: createTaskPolicyEngine({ default: { allowedSkills: ['echo'], maxConcurrency: 1_000_000 } }),
    spend: createSpendAggregator(),
  });
  cases.push({
    name: 'Governor admit+finish (trust allowlist + rules, budget, recursion, policy, lineage)',
    group: 'governance',
    batch: B,
    fn: async () => {
      for (let i = 0; i < B; i++) {
        const task = await trusted.admit({ caller: callerId, callerAgentId: callerId, skill: 'echo', incoming, parentTaskId: 'task-2' });
        await task.finish({ usd: 0.001, tokens: 10 });
      }
    },
  });

  // Routing: selector pick over 100 peers.
  const pool = createPeerPool();
  const card = typicalCard();
  for (let i = 0; i < 100; i++) {
    pool.upsert(`peer-${String(i).padStart(3, '0')}`, card, { ewmaLatencyMs: 10 + ((i * 37) % 90), ewmaCostUsd: 0.001 * ((i * 53) % 100) });
  }
  const task = { skillId: 'echo' };
  const peers = pool.candidates(task);
  if (peers.length !== 100) throw new Error(`expected 100 candidate peers, got ${peers.length}`);
  const selectors = [cheapestUnderLatency({ budgetMs: 60 }), lowestLatency(), roundRobin()];
  for (const selector of selectors) {
    const batch = selector.name === 'round_robin' ? 100 : B;
    cases.push({
      name: `${selector.name}.select over 100 peers`,
      group: 'routing',
      batch,
      fn: () => {
        for (let i = 0; i < batch; i++) selector.select(task, peers);
      },
    });
  }
  cases.push({
    name: 'PeerPool.candidates + lowest_latency over 100 peers',
    group: 'routing',
    batch: 100,
    fn: () => {
      const lowest = selectors[1]!;
      for (let i = 0; i < 100; i++) lowest.select(task, pool.candidates(task));
    },
  });

  // Identity.
  cases.push({
    name: 'JCS canonicalize of a typical card',
    group: 'identity',
    batch: 100,
    fn: () => {
      for (let i = 0; i < 100; i++) canonicalize(card);
    },
  });
  for (const algorithm of ['EdDSA', 'ES256'] as const) {
    const key = generateKeyPair(algorithm);
    const resolver = createPinnedKeyResolver([key]);
    const signed = signAgentCard(card, key);
    const check = await verifyAgentCard(signed.json, resolver);
    if (check.status !== 'valid') throw new Error(`${algorithm} card did not verify: ${check.status}`);
    cases.push({ name: `card sign ${algorithm}`, group: 'identity', batch: 1, fn: () => signAgentCard(card, key) });
    cases.push({
      name: `card verify ${algorithm} (no cache)`,
      group: 'identity',
      batch: 1,
      fn: () => verifyAgentCard(signed.json, resolver),
    });
  }
  const secret = 'bench-webhook-secret-0123456789abcdef';
  const signer = createHmacWebhookSigner(secret);
  const verifier = createWebhookVerifier({ hmacSecret: secret });
  const body = JSON.stringify({ statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } } });
  const headers = signer.sign(body);
  if (!verifier.verify(headers, body).ok) throw new Error('webhook HMAC did not verify');
  cases.push({
    name: 'webhook HMAC-SHA256 sign',
    group: 'identity',
    batch: 100,
    fn: () => {
      for (let i = 0; i < 100; i++) signer.sign(body);
    },
  });
  cases.push({
    name: 'webhook HMAC-SHA256 verify',
    group: 'identity',
    batch: 100,
    fn: () => {
      for (let i = 0; i < 100; i++) verifier.verify(headers, body);
    },
  });

  // Wire model.
  const request = sendMessageParams('summarize this please');
  if (!parseSendMessageRequest(request).success) throw new Error('SendMessage fixture does not parse');
  cases.push({
    name: 'parseSendMessageRequest (zod) of a SendMessage request',
    group: 'types',
    batch: 100,
    fn: () => {
      for (let i = 0; i < 100; i++) parseSendMessageRequest(request);
    },
  });
  return cases;
}

export async function runMicro(options: RunOptions): Promise<SuiteResult> {
  const cases = await buildCases();
  const bench = new Bench({ time: options.quick ? 250 : 1000, warmupTime: options.quick ? 50 : 200 });
  for (const c of cases) bench.add(c.name, c.fn);
  await bench.run();
  const rows: MicroRow[] = cases.map((c, index) => {
    const task = bench.tasks[index]!;
    const result = task.result;
    if (!result || result.error) throw new Error(`${c.name}: ${result?.error?.message ?? 'no result'}`);
    const opsPerSecond = (c.batch * 1000) / result.latency.mean;
    return {
      name: c.name,
      group: c.group,
      opsPerSecond,
      rmePercent: result.latency.rme,
      samples: result.latency.samples.length,
      goal: c.group === 'governance' ? (opsPerSecond >= GOVERNANCE_GOAL_OPS ? 'pass' : 'fail') : null,
    };
  });
  const markdown = [
    `tinybench, ${options.quick ? '250' : '1000'} ms per case; cheap operations run in batches of 100 or 1000 per timed call so timer overhead does not dominate. Goal: every governance path (a2a-governance) >= ${num(GOVERNANCE_GOAL_OPS)} ops/s.`,
    '',
    table(
      ['operation', 'package', 'ops/s', '± %', 'goal >= 1M ops/s'],
      rows.map((r) => [r.name, r.group, num(r.opsPerSecond), r.rmePercent.toFixed(1), r.goal === null ? '—' : passFail(r.goal === 'pass')]),
    ),
  ].join('\n');
  return { title: 'Control-plane micro-benchmarks', markdown, data: rows };
}
