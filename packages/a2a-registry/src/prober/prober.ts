import type { OutboundOptions } from '../core/fetch-text.js';
import type { Registry } from '../core/registry.js';
import type { AgentHealth, AgentView } from '../core/types.js';
import { probeExchange } from './exchange.js';
import { createRepeatingRound } from '../core/repeating-round.js';

export interface ProberOptions extends OutboundOptions {
  /** Most agents probed at once; each probe sends one request at a time. Default 8. */
  concurrency?: number;
  /** Timeout of each request of a probe. Default 5000 ms. */
  timeoutMs?: number;
  /** How often a healthy agent is probed, and the base of the backoff. Default 60 000 ms. */
  intervalMs?: number;
  /** Longest wait between probes of a failing agent. Default 1 800 000 ms (30 minutes). */
  maxBackoffMs?: number;
  /** A probe slower than this marks the agent `degraded`. Default 2000 ms. */
  degradedLatencyMs?: number;
  clock?: () => number;
  /**
   * Authenticates each probe call, for agents that serve only known callers: e.g. an RFC 9421
   * signer's `sign` (`createHttpRequestSigner({ key }).sign`) with a key those agents trust.
   * Without it such an agent's authentication refusal makes it `degraded`.
   */
  signRequest?: (request: { method: string; url: string; body?: string }) => Promise<Record<string, string>>;
  /** Told when writing a verdict fails (the round goes on). */
  onError?: (error: unknown) => void;
}

export interface ProbeRound {
  probed: number;
  skipped: number;
}

export interface Prober {
  /** Probes every active agent that is due (healthy ones each interval, failing ones after their backoff). */
  runOnce(): Promise<ProbeRound>;
  /** Probes one agent now, whatever its backoff, and records the verdict. */
  probe(agent: AgentView): Promise<AgentHealth>;
  /** Runs a round every `intervalMs` (rounds never overlap) until `stop`. */
  start(): void;
  stop(): Promise<void>;
  /** Requests in flight now, and the most ever seen at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
}

/**
 * The conformance prober (decision 0072): healthy means the agent answers a real A2A exchange,
 * not that its URL answers. Bounded by `concurrency` whatever the number of agents, per-request
 * timeouts, and an exponential per-agent backoff; requests pass the push sender's SSRF rules.
 */
export function createProber(
  registry: Pick<Registry, 'searchAgents' | 'lookupAgent' | 'recordHealth'>,
  options: ProberOptions = {},
): Prober {
  const concurrency = options.concurrency ?? 8;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new RangeError(`expected concurrency >= 1, got ${String(concurrency)}`);
  const intervalMs = options.intervalMs ?? 60_000;
  const maxBackoffMs = options.maxBackoffMs ?? 1_800_000;
  const clock = options.clock ?? Date.now;
  // When an agent is next due, from its stored verdict: every replica on one store sees the same
  // schedule, so an agent another replica just checked is not probed again (decision 0147).
  const dueAt = (agent: AgentView): number => {
    const checked = agent.health.checkedAt === undefined ? Number.NaN : Date.parse(agent.health.checkedAt);
    if (!Number.isFinite(checked)) return 0;
    const failures = agent.health.status === 'up' ? 0 : agent.health.consecutiveFailures;
    return checked + (failures === 0 ? intervalMs : Math.min(intervalMs * 2 ** (failures - 1), maxBackoffMs));
  };
  let inFlight = 0;
  let maxInFlight = 0;

  const track = async <T>(request: () => Promise<T>): Promise<T> => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      return await request();
    } finally {
      inFlight--;
    }
  };

  async function probe(agent: AgentView): Promise<AgentHealth> {
    const finding = await probeExchange(agent, {
      ...options,
      timeoutMs: options.timeoutMs ?? 5000,
      degradedLatencyMs: options.degradedLatencyMs ?? 2000,
      maxCardBytes: 65_536,
      track,
      clock,
      ...(options.signRequest ? { sign: options.signRequest } : {}),
    });
    const at = new Date(clock()).toISOString();
    const up = finding.status === 'up';
    const failures = up ? 0 : agent.health.consecutiveFailures + 1;
    const health: AgentHealth = {
      status: finding.status,
      reason: finding.reason,
      ...(finding.latencyMs !== undefined ? { latencyMs: finding.latencyMs } : {}),
      checkedAt: at,
      ...(up ? { lastSuccessAt: at } : agent.health.lastSuccessAt ? { lastSuccessAt: agent.health.lastSuccessAt } : {}),
      consecutiveFailures: failures,
    };
    try {
      await registry.recordHealth(agent.id, health);
    } catch (error) {
      options.onError?.(error);
    }
    return health;
  }

  async function runOnce(): Promise<ProbeRound> {
    const due: AgentView[] = [];
    let skipped = 0;
    let cursor: string | undefined;
    do {
      const page = await registry.searchAgents({ limit: 100, ...(cursor ? { cursor } : {}) });
      for (const agent of page.agents) {
        if (dueAt(agent) <= clock()) due.push(agent);
        else skipped++;
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    let next = 0;
    let probed = 0;
    const worker = async (): Promise<void> => {
      while (next < due.length) {
        const listed = due[next++] as AgentView;
        // Read again just before probing: another replica may have checked it since the listing.
        const agent = await registry.lookupAgent(listed.agentId).catch(() => listed);
        if (!agent || agent.id !== listed.id || agent.status !== 'active' || dueAt(agent) > clock()) {
          skipped++;
          continue;
        }
        probed++;
        await probe(agent).catch((error: unknown) => options.onError?.(error));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
    return { probed, skipped };
  }

  const rounds = createRepeatingRound(() => runOnce(), intervalMs, options.onError);

  return {
    runOnce,
    probe,
    start: rounds.start,
    stop: rounds.stop,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
  };
}
