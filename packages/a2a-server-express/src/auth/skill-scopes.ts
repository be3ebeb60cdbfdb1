import { type AgentCard, ForbiddenError } from '@a2aplane/a2a-types';
import type { Principal } from './types.js';

/**
 * Refuses a call to a skill whose `securityRequirements` (spec §4.4.5) the principal does not
 * meet: one requirement must name the principal's scheme, and the principal must hold every
 * scope that requirement lists for it. Skills without requirements pass (card-level scope lists
 * are not checked here). The
 * caller learns the scopes it lacks (they are public in the card), never anything about others.
 */
export function checkSkillScopes(card: AgentCard, skillId: string | undefined, principal: Principal | undefined): void {
  if (principal === undefined || skillId === undefined) return;
  const skill = card.skills.find((s) => s.id === skillId);
  const requirements = skill?.securityRequirements;
  if (requirements === undefined || requirements.length === 0) return;
  const held = new Set(principal.scopes ?? []);
  let missing: string[] | undefined;
  for (const requirement of requirements) {
    const schemes = requirement.schemes ?? {};
    const names = Object.keys(schemes);
    if (names.length === 0) return;
    if (!names.includes(principal.scheme)) continue;
    const lacking = (schemes[principal.scheme]?.list ?? []).filter((scope) => !held.has(scope));
    if (lacking.length === 0) return;
    if (missing === undefined || lacking.length < missing.length) missing = lacking;
  }
  throw new ForbiddenError({
    message: `The credentials do not grant skill ${skillId}`,
    metadata: { limit: 'scope', skill: skillId, ...(missing ? { missingScopes: missing.join(' ') } : {}) },
  });
}
