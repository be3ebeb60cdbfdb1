import { ForbiddenError, UnauthenticatedError } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import {
  type CallAuthorization,
  createCallAuthorizer,
  createGovernanceEvents,
  createInMemoryBudgetLedger,
  Governor,
  type IdentityResolver,
  materializeConfig,
  validateOperatorConfig,
} from '../src/index.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);
const allowlist = (ids: string[]): IdentityResolver => ({ isAllowed: (id) => ids.includes(id) });
const allowAll: IdentityResolver = { isAllowed: () => true };

function refusal(verdict: CallAuthorization | Promise<CallAuthorization>): { reason: string; limit: string | undefined } {
  if (verdict instanceof Promise) throw new Error('expected a synchronous verdict');
  if (verdict.allowed) throw new Error('expected a refusal');
  return { reason: verdict.error.reason, limit: verdict.error.metadata.limit };
}

describe('createCallAuthorizer: trust allowlist and skill rules (ADR-159 r2 open question 2)', () => {
  it('serves an allowlisted AgentID, refuses an unlisted one (FORBIDDEN) and an unverified caller (UNAUTHENTICATED)', () => {
    const authorizer = createCallAuthorizer({ identity: allowlist([A]) });
    expect(authorizer.authorize({ caller: A, callerAgentId: A, skill: 'echo' })).toEqual({ allowed: true });
    expect(authorizer.authorize({ caller: A, callerAgentId: A.toUpperCase(), skill: 'echo' })).toEqual({ allowed: true });
    expect(refusal(authorizer.authorize({ caller: B, callerAgentId: B, skill: 'echo' }))).toEqual({
      reason: 'FORBIDDEN',
      limit: 'allowlist',
    });
    expect(refusal(authorizer.authorize({ caller: 'api-key-user', skill: 'echo' }))).toEqual({
      reason: 'UNAUTHENTICATED',
      limit: 'unverified',
    });
  });

  it('lets unverified callers through only when told (the allow-all default keeps unsigned peers working)', () => {
    const open = createCallAuthorizer({ identity: allowAll, requireVerifiedCaller: false });
    expect(open.authorize({ caller: 'anonymous', skill: 'echo' })).toEqual({ allowed: true });
    expect(open.authorize({ caller: B, callerAgentId: B, skill: 'echo' })).toEqual({ allowed: true });
  });

  it('applies rules by AgentID, by tier and by *, and needs a verified caller once there are rules', () => {
    const authorizer = createCallAuthorizer({
      identity: allowAll,
      requireVerifiedCaller: false,
      tiers: { [B]: 2 },
      rules: [
        { caller: A, skills: ['admin'] },
        { caller: 'tier:2', skills: ['rag.query'] },
        { caller: '*', skills: ['echo'] },
      ],
    });
    expect(authorizer.authorize({ caller: A, callerAgentId: A, skill: 'admin' })).toEqual({ allowed: true });
    expect(authorizer.authorize({ caller: A, callerAgentId: A, skill: 'echo' })).toEqual({ allowed: true });
    expect(refusal(authorizer.authorize({ caller: A, callerAgentId: A, skill: 'rag.query' }))).toEqual({
      reason: 'FORBIDDEN',
      limit: 'rules',
    });
    expect(authorizer.authorize({ caller: B, callerAgentId: B, skill: 'rag.query' })).toEqual({ allowed: true });
    expect(refusal(authorizer.authorize({ caller: B, callerAgentId: B, skill: 'admin' }))).toEqual({ reason: 'FORBIDDEN', limit: 'rules' });
    expect(authorizer.authorize({ caller: C, callerAgentId: C, skill: 'echo' })).toEqual({ allowed: true });
    expect(refusal(authorizer.authorize({ caller: 'anonymous', skill: 'echo' }))).toEqual({
      reason: 'UNAUTHENTICATED',
      limit: 'unverified',
    });
    const everything = createCallAuthorizer({ identity: allowAll, rules: [{ caller: A, skills: ['*'] }] });
    expect(everything.authorize({ caller: A, callerAgentId: A, skill: 'anything' })).toEqual({ allowed: true });
  });

  it('awaits an asynchronous identity resolver', async () => {
    const authorizer = createCallAuthorizer({ identity: { isAllowed: async (id) => id === A } });
    await expect(authorizer.authorize({ caller: A, callerAgentId: A, skill: 's' })).resolves.toEqual({ allowed: true });
    const refused = await authorizer.authorize({ caller: B, callerAgentId: B, skill: 's' });
    expect(refused.allowed).toBe(false);
  });

  it('rejects bad options with "expected X, got Y" TypeErrors', () => {
    expect(() => createCallAuthorizer({} as never)).toThrow(/expected identity to be an IdentityResolver/);
    expect(() => createCallAuthorizer({ identity: allowAll, rules: [{ caller: 'tier:9', skills: ['s'] }] })).toThrow(
      /expected rules\[0\]\.caller/,
    );
    expect(() => createCallAuthorizer({ identity: allowAll, rules: [{ caller: A, skills: [''] }] })).toThrow(/expected rules\[0\]\.skills/);
    expect(() => createCallAuthorizer({ identity: allowAll, tiers: { nope: 1 } })).toThrow(/expected tiers keys to be AgentIDs/);
    expect(() => createCallAuthorizer({ identity: allowAll, tiers: { [A]: 7 as never } })).toThrow(/expected tiers\./);
  });
});

describe('Governor: authorize is the first gate, before the budget', () => {
  it('a refused caller never reaches the budget, and the event names the stage and reason', async () => {
    const budget = createInMemoryBudgetLedger({ maxTasksPerMinute: 1 });
    const events = createGovernanceEvents();
    const governor = new Governor({ selfAgentId: 'self', authorize: createCallAuthorizer({ identity: allowlist([A]) }), budget, events });
    const forbidden = await governor.admit({ caller: B, callerAgentId: B, skill: 's' }).catch((error: unknown) => error);
    expect(ForbiddenError.isInstance(forbidden)).toBe(true);
    const unauthenticated = await governor.admit({ caller: 'key-1', skill: 's' }).catch((error: unknown) => error);
    expect(UnauthenticatedError.isInstance(unauthenticated)).toBe(true);
    expect(budget.snapshot().inFlight).toBe(0);
    // The one task of the window is still free for the allowlisted caller.
    const task = await governor.admit({ caller: A, callerAgentId: A, skill: 's' });
    await task.finish({});
    expect(events.counts()).toMatchObject({
      'rejected.authorize': 2,
      'rejected.authorize.allowlist': 1,
      'rejected.authorize.unverified': 1,
      'accepted.authorize': 1,
      'accepted.budget': 1,
    });
  });

  it('takes the asynchronous path with an asynchronous resolver, same outcome', async () => {
    const governor = new Governor({
      selfAgentId: 'self',
      authorize: createCallAuthorizer({ identity: { isAllowed: async (id) => id === A } }),
    });
    await expect(governor.admit({ caller: A, callerAgentId: A, skill: 's' })).resolves.toMatchObject({ context: { rootAgentId: 'self' } });
    await expect(governor.admit({ caller: B, callerAgentId: B, skill: 's' })).rejects.toMatchObject({ reason: 'FORBIDDEN' });
  });
});

describe('operator config [trust]', () => {
  it('validates and materializes the allowlist, tiers and rules (AgentIDs lower-cased)', () => {
    const parsed = validateOperatorConfig({
      trust: { allowlist: [A.toUpperCase()], tiers: { [B]: 2 }, rules: [{ caller: 'tier:2', skills: ['echo'] }] },
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.violations));
    const { trust } = materializeConfig(parsed.config, { knownSelectors: [] });
    expect(trust).toEqual({ allowlist: [A], tiers: { [B]: 2 }, rules: [{ caller: 'tier:2', skills: ['echo'] }] });
    expect(materializeConfig({}, { knownSelectors: [] }).trust).toBeUndefined();
  });

  it('names every bad trust field', () => {
    const parsed = validateOperatorConfig({
      trust: { allowlist: ['agent-7'], tiers: { [A]: 5 }, rules: [{ caller: 'boss', skills: [] }], extra: 1 },
    });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    const fields = parsed.violations.map((v) => v.field);
    expect(fields).toEqual(
      expect.arrayContaining(['trust', 'trust.allowlist[0]', `trust.tiers.${A}`, 'trust.rules[0].caller', 'trust.rules[0].skills']),
    );
  });
});
