import { type AgentCard, ForbiddenError, UnauthenticatedError } from '@a2aplane/a2a-types';
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

/**
 * An operator's rule beside the card's requirements (the `[[scopes.rules]]` of the operator config):
 * a call to one of `skills` (`*`: every skill) needs every scope in `scopes`, whatever the scheme.
 */
export interface SkillScopeRule {
  skills: readonly string[];
  scopes: readonly string[];
}

/** Scopes required per skill id (`*` for the rules of every skill). */
type CompiledScopeRules = ReadonlyMap<string, readonly string[]>;

const nonEmptyStrings = (value: unknown): value is readonly string[] =>
  Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item !== '');

/** Checks and indexes `skillScopeRules` once, at server creation; `undefined` when there are none. */
export function compileSkillScopeRules(rules: readonly SkillScopeRule[] | undefined): ReadonlyMap<string, readonly string[]> | undefined {
  if (rules === undefined) return undefined;
  if (!Array.isArray(rules)) throw new TypeError(`expected skillScopeRules to be an array, got ${typeof rules}`);
  const compiled = new Map<string, string[]>();
  rules.forEach((rule, index) => {
    if (!nonEmptyStrings(rule?.skills) || !nonEmptyStrings(rule?.scopes)) {
      throw new TypeError(
        `expected skillScopeRules[${index}] to be { skills, scopes } with non-empty string lists, got ${JSON.stringify(rule)}`,
      );
    }
    for (const skill of rule.skills) compiled.set(skill, [...new Set([...(compiled.get(skill) ?? []), ...rule.scopes])]);
  });
  return compiled.size === 0 ? undefined : compiled;
}

/**
 * Refuses a call the operator's scope rules do not allow: every rule naming the skill (or `*`)
 * must be met. A caller without credentials gets `UNAUTHENTICATED`, one whose token lacks a
 * scope `FORBIDDEN` with the scopes it lacks (as for the card's requirements).
 */
function checkScopeRules(rules: CompiledScopeRules | undefined, skillId: string | undefined, principal: Principal | undefined): void {
  if (rules === undefined) return;
  const required = [...(rules.get('*') ?? []), ...((skillId !== undefined && rules.get(skillId)) || [])];
  if (required.length === 0) return;
  const skill = skillId ?? 'default';
  if (principal === undefined) {
    throw new UnauthenticatedError({ message: `Skill ${skill} needs credentials with scopes`, metadata: { limit: 'scope', skill } });
  }
  const held = new Set(principal.scopes ?? []);
  const missing = [...new Set(required)].filter((scope) => !held.has(scope));
  if (missing.length === 0) return;
  throw new ForbiddenError({
    message: `The credentials do not grant skill ${skill}`,
    metadata: { limit: 'scope', skill, missingScopes: missing.join(' ') },
  });
}

/** The card's per-skill requirements, then the operator's rules: what a SendMessage's skill needs. */
export function checkScopes(
  card: AgentCard,
  rules: ReadonlyMap<string, readonly string[]> | undefined,
  skillId: string | undefined,
  principal: Principal | undefined,
): void {
  checkSkillScopes(card, skillId, principal);
  checkScopeRules(rules, skillId, principal);
}
