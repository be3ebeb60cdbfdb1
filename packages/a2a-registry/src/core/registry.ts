import { randomUUID } from 'node:crypto';
import { AgentNotFoundError, AgentStateError, RegistryConflictError } from './errors.js';
import {
  type EnrollmentCheckOptions,
  type EnrollmentRefusal,
  type EnrollmentRequest,
  verifyEnrollment,
  type VerifiedEnrollment,
} from './verify-enrollment.js';
import { createInMemoryRegistryStore } from '../store/in-memory-store.js';
import type { RegistryStore } from '../store/registry-store.js';
import type { AgentHealth, AgentQuery, AgentRecord, AgentView, AgentViewPage, RegistryReader } from './types.js';

export interface RegistryOptions extends EnrollmentCheckOptions {
  /** Default: the in-memory store. */
  store?: RegistryStore;
  clock?: () => number;
}

export type EnrollmentOutcome = 'enrolled' | 'updated' | 'rotated';

export type EnrollmentResult =
  | { ok: true; outcome: EnrollmentOutcome; agent: AgentView }
  | { ok: false; reason: EnrollmentRefusal; detail: string };

/** Who asked for a change: recorded as the owner of a new agent. */
export interface Actor {
  operator: string;
}

export interface Registry extends RegistryReader {
  readonly store: RegistryStore;
  /** Verifies and records an agent; the same card URL with a new key is a rotation that keeps history. */
  enroll(request: EnrollmentRequest, actor: Actor): Promise<EnrollmentResult>;
  /** Refuses the agent's current key for good (re-enrollment needs a new key). */
  revoke(agentId: string, reason?: string): Promise<AgentView>;
  /** Hides the agent and stops trusting its key until `enable`. */
  disable(agentId: string, reason?: string): Promise<AgentView>;
  enable(agentId: string): Promise<AgentView>;
  /** Writes the prober's verdict. */
  recordHealth(id: string, health: AgentHealth): Promise<void>;
}

const UNPROBED: AgentHealth = { status: 'unknown', reason: 'not probed yet', consecutiveFailures: 0 };

function toView(record: AgentRecord): AgentView {
  const { revision: _revision, ...view } = record;
  return view;
}

const skillsOf = (enrollment: VerifiedEnrollment) => enrollment.card.skills.map((skill) => skill.id);
const tagsOf = (enrollment: VerifiedEnrollment) => [...new Set(enrollment.card.skills.flatMap((skill) => skill.tags ?? []))];

const LABEL = /^[\w.@:-]{1,64}$/;

/**
 * The record an enrollment writes: a new agent, an update of the same key, or a rotation (a new key
 * at an enrolled card URL) that moves the old AgentID to the history.
 */
function nextRecord(
  existing: AgentRecord | undefined,
  enrollment: VerifiedEnrollment,
  request: EnrollmentRequest,
  actor: Actor,
  at: string,
): { record: AgentRecord; outcome: EnrollmentOutcome } {
  const fields = {
    agentId: enrollment.agentId,
    cardUrl: enrollment.cardUrl,
    origin: enrollment.origin,
    cardText: enrollment.cardText,
    card: enrollment.card,
    keys: [enrollment.key],
    skills: skillsOf(enrollment),
    tags: tagsOf(enrollment),
    updatedAt: at,
  };
  if (!existing) {
    const record: AgentRecord = {
      id: randomUUID(),
      ...fields,
      keySince: at,
      tier: request.tier ?? 'default',
      owner: request.owner ?? actor.operator,
      status: 'active',
      enrolledAt: at,
      keyHistory: [],
      health: UNPROBED,
      revision: 0,
    };
    return { record, outcome: 'enrolled' };
  }
  const rotated = existing.agentId !== enrollment.agentId;
  const record: AgentRecord = {
    ...existing,
    ...fields,
    tier: request.tier ?? existing.tier,
    owner: request.owner ?? existing.owner,
    keySince: rotated ? at : existing.keySince,
    // A new key ends a revocation (the revoked key stays in history); a disabled agent stays disabled.
    status: rotated && existing.status === 'revoked' ? 'active' : existing.status,
    keyHistory: rotated
      ? [
          ...existing.keyHistory,
          {
            agentId: existing.agentId,
            keys: existing.keys,
            from: existing.keySince,
            until: at,
            reason: existing.status === 'revoked' ? 'revoked' : 'rotated',
          },
        ]
      : existing.keyHistory,
    health: rotated || existing.cardUrl !== enrollment.cardUrl ? UNPROBED : existing.health,
  };
  if (rotated && existing.status === 'revoked') delete record.statusReason;
  return { record, outcome: rotated ? 'rotated' : 'updated' };
}

/** The registry core (decision 0070): enrollment, rotation, revocation and reads over a `RegistryStore`. */
export function createRegistry(options: RegistryOptions = {}): Registry {
  const store = options.store ?? createInMemoryRegistryStore();
  const clock = options.clock ?? Date.now;
  const now = () => new Date(clock()).toISOString();

  async function enrollOnce(request: EnrollmentRequest, actor: Actor, enrollment: VerifiedEnrollment): Promise<EnrollmentResult> {
    const holder = await store.findByAgentId(enrollment.agentId);
    if (holder && holder.agentId !== enrollment.agentId) {
      return { ok: false, reason: 'key-retired', detail: `AgentID ${enrollment.agentId} is a former key of agent ${holder.id}` };
    }
    if (holder?.status === 'revoked') return { ok: false, reason: 'revoked', detail: `AgentID ${enrollment.agentId} is revoked` };
    const atUrl = await store.findByCardUrl(enrollment.cardUrl);
    if (holder && atUrl && atUrl.id !== holder.id) {
      return { ok: false, reason: 'conflict', detail: `another agent is enrolled at ${enrollment.cardUrl}` };
    }
    const existing = holder ?? atUrl;
    const { record, outcome } = nextRecord(existing, enrollment, request, actor, now());
    const stored = await store.put(record, existing ? existing.revision : null);
    return { ok: true, outcome, agent: toView(stored) };
  }

  async function change(agentId: string, update: (record: AgentRecord) => AgentRecord): Promise<AgentView> {
    for (let attempt = 0; ; attempt++) {
      const record = await store.findByAgentId(agentId);
      if (!record || record.agentId !== agentId) throw new AgentNotFoundError(agentId);
      try {
        return toView(await store.put({ ...update(record), updatedAt: now() }, record.revision));
      } catch (error) {
        if (!RegistryConflictError.isInstance(error) || attempt >= 2) throw error;
      }
    }
  }

  const label = (value: unknown, what: string): string | undefined => {
    if (value === undefined) return undefined;
    return typeof value === 'string' && LABEL.test(value) ? undefined : `${what} must be 1-64 letters, digits or . _ @ : -`;
  };

  return {
    store,
    async enroll(request, actor) {
      const invalid = label(request?.tier, 'tier') ?? label(request?.owner, 'owner') ?? label(actor?.operator, 'operator');
      if (invalid) return { ok: false, reason: 'invalid-request', detail: invalid };
      const verified = await verifyEnrollment(request, options);
      if (!verified.ok) return verified;
      for (let attempt = 0; ; attempt++) {
        try {
          return await enrollOnce(request, actor, verified.enrollment);
        } catch (error) {
          if (!RegistryConflictError.isInstance(error)) throw error;
          if (attempt >= 2) return { ok: false, reason: 'conflict', detail: error.message };
        }
      }
    },
    revoke(agentId, reason) {
      return change(agentId, (record) => ({ ...record, status: 'revoked', statusReason: reason ?? 'revoked by an operator' }));
    },
    disable(agentId, reason) {
      return change(agentId, (record) => {
        if (record.status === 'revoked') throw new AgentStateError(`agent ${agentId} is revoked`);
        return { ...record, status: 'disabled', statusReason: reason ?? 'disabled by an operator' };
      });
    },
    enable(agentId) {
      return change(agentId, (record) => {
        if (record.status === 'revoked') throw new AgentStateError(`agent ${agentId} is revoked; enroll a new key instead`);
        const { statusReason: _reason, ...rest } = record;
        return { ...rest, status: 'active' };
      });
    },
    async recordHealth(id, health) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const record = await store.get(id);
        if (!record) return;
        try {
          await store.put({ ...record, health }, record.revision);
          return;
        } catch (error) {
          if (!RegistryConflictError.isInstance(error)) throw error;
        }
      }
    },
    async lookupAgent(agentId) {
      const record = await store.findByAgentId(agentId);
      return record ? toView(record) : undefined;
    },
    async findByOrigin(origin) {
      const page = await store.search({ origin, includeInactive: true, limit: 1 });
      const record = page.agents[0];
      return record ? toView(record) : undefined;
    },
    async searchAgents(query: AgentQuery): Promise<AgentViewPage> {
      const page = await store.search(query);
      return { agents: page.agents.map(toView), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
  };
}
