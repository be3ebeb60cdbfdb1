import * as z from 'zod/mini';
import type { AgentCard } from './model/agent-card.js';
import { RUVECTOR_EXTENSION_URI } from './ruvector-metadata.js';

/** The memory tier an agent can read witnesses from (ADR-159 r2, open question 2). */
export const RuvectorMemoryParamsSchema = /*#__PURE__*/ z.object({
  type: z.string(),
  shard: z.optional(z.string()),
  capabilities: z.optional(z.array(z.string())),
  witness_format_version: z.optional(z.number().check(z.int())),
});
export type RuvectorMemoryParams = z.infer<typeof RuvectorMemoryParamsSchema>;

/** `params` of the ruvector card extension. Every key is optional; unknown keys are kept out. */
export const RuvectorCardParamsSchema = /*#__PURE__*/ z.object({
  /** Lowercase hex SHAKE-256 of the agent's Ed25519 public key. */
  agent_id: z.optional(z.string().check(z.regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex characters'))),
  /** Webhook signature algorithms the agent can produce: `hmac-sha256`, `ed25519`. */
  webhook_algos: z.optional(z.array(z.string())),
  /** Typed-artifact schema versions the agent reads. */
  artifact_kind_versions_supported: z.optional(z.array(z.string())),
  memory: z.optional(RuvectorMemoryParamsSchema),
});
export type RuvectorCardParams = z.infer<typeof RuvectorCardParamsSchema>;

/** The ruvector extension params of a card, or `undefined` when absent or malformed. */
export function readRuvectorCardParams(card: Pick<AgentCard, 'capabilities'>): RuvectorCardParams | undefined {
  const extension = card.capabilities.extensions?.find((ext) => ext.uri === RUVECTOR_EXTENSION_URI);
  if (!extension) return undefined;
  const parsed = RuvectorCardParamsSchema.safeParse(extension.params ?? {});
  return parsed.success ? parsed.data : undefined;
}
