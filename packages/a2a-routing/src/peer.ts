import type { AgentCard } from '@a2aplane/a2a-types';

export type PeerCapability = 'streaming' | 'pushNotifications' | 'extendedAgentCard';

/** What the router knows about one peer (ADR-159 r2 `PeerSnapshot`). */
export interface PeerSnapshot {
  /** The peer's AgentID. */
  id: string;
  card: AgentCard;
  /** Observed latency, exponentially weighted; 0 until the first outcome. */
  ewmaLatencyMs: number;
  /** Observed cost per task in USD, exponentially weighted; 0 until a cost is reported. */
  ewmaCostUsd: number;
  /** Requests started and not yet ended. */
  openTasks: number;
  /** Exponentially weighted share of failed outcomes, 0..1. */
  failureRate: number;
  /** What the pool's negotiator agreed with this peer on discovery, e.g. `{ artifactKindVersion: '1' }`. */
  terms?: Readonly<Record<string, string>>;
}

/** A negotiator's verdict on one card: agreed terms, or why the peer cannot be used. */
export type PeerNegotiation =
  | { ok: true; terms?: Record<string, string> }
  | { ok: false; reason: string; metadata?: Record<string, string> };

/** Checks a discovered card against what this agent speaks (`PeerPoolOptions.negotiate`). */
export type PeerNegotiator = (peer: { id: string; card: AgentCard }) => PeerNegotiation;

/** What a task needs from a peer (ADR-159 r2 `TaskSpec`). */
export interface TaskSpec {
  skillId: string;
  /** Media types the task's input uses; each must be accepted by the peer's skill. */
  inputModes?: string[];
  requiredCapabilities?: PeerCapability[];
  estimatedTokens?: number;
  /** Latency the caller can tolerate; latency-bounded selectors use the tighter of this and their budget. */
  deadlineMs?: number;
}

/** Whether the card lists every capability the task requires. */
export function hasCapabilities(card: AgentCard, required: readonly PeerCapability[] | undefined): boolean {
  if (required === undefined) return true;
  return required.every((capability) => card.capabilities?.[capability] === true);
}

/**
 * Whether a card can take the task: it advertises the skill, the skill (or, when the skill names
 * none, the card's defaults) accepts every input mode, and it lists every required capability.
 * Media types compare case-insensitively.
 */
export function cardQualifies(card: AgentCard, task: TaskSpec): boolean {
  const skill = card.skills.find((candidate) => candidate.id === task.skillId);
  if (skill === undefined) return false;
  if (task.inputModes !== undefined && task.inputModes.length > 0) {
    const accepted = new Set((skill.inputModes ?? card.defaultInputModes).map((mode) => mode.toLowerCase()));
    if (!task.inputModes.every((mode) => accepted.has(mode.toLowerCase()))) return false;
  }
  return hasCapabilities(card, task.requiredCapabilities);
}
