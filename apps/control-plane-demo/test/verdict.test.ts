import { describe, expect, it } from 'vitest';
import { DEMO_EXIT_CODES, judge } from '../src/verdict.js';

const pass = { passed: true };
const fail = { passed: false };

describe('demo verdict (exit code of pnpm demo)', () => {
  it('passes and exits 0 only when all three acceptance tests, the trust check, the registry, OpenID Connect and MCP scenarios passed', () => {
    const verdict = judge({
      remoteEqualsLocal: pass,
      constantSizeHandOff: pass,
      boundedRecursion: pass,
      trustAllowlist: pass,
      registry: pass,
      openIdConnect: pass,
      mcpDelegation: pass,
    });
    expect(verdict).toEqual({
      passed: true,
      exitCode: DEMO_EXIT_CODES.passed,
      outcomes: [
        { name: 'remoteEqualsLocal', passed: true },
        { name: 'constantSizeHandOff', passed: true },
        { name: 'boundedRecursion', passed: true },
        { name: 'trustAllowlist', passed: true },
        { name: 'registry', passed: true },
        { name: 'openIdConnect', passed: true },
        { name: 'mcpDelegation', passed: true },
      ],
    });
  });

  it.each([
    ['remoteEqualsLocal' as const],
    ['constantSizeHandOff' as const],
    ['boundedRecursion' as const],
    ['trustAllowlist' as const],
    ['registry' as const],
    ['openIdConnect' as const],
    ['mcpDelegation' as const],
  ])('one failed test (%s) fails the demo: exit 1', (name) => {
    const verdict = judge({
      remoteEqualsLocal: pass,
      constantSizeHandOff: pass,
      boundedRecursion: pass,
      trustAllowlist: pass,
      registry: pass,
      openIdConnect: pass,
      mcpDelegation: pass,
      [name]: fail,
    });
    expect(verdict.passed).toBe(false);
    expect(verdict.exitCode).toBe(DEMO_EXIT_CODES.failed);
    expect(verdict.outcomes.find((outcome) => outcome.name === name)).toEqual({ name, passed: false });
  });

  it('a scenario that threw fails with its error', () => {
    const verdict = judge({
      remoteEqualsLocal: pass,
      constantSizeHandOff: { error: 'Error: boom' },
      boundedRecursion: pass,
      trustAllowlist: pass,
      registry: pass,
      openIdConnect: pass,
      mcpDelegation: pass,
    });
    expect(verdict.exitCode).toBe(1);
    expect(verdict.outcomes[1]).toEqual({ name: 'constantSizeHandOff', passed: false, error: 'Error: boom' });
  });

  it('a scenario that did not run, or returned no boolean true, fails', () => {
    expect(judge({ remoteEqualsLocal: pass, constantSizeHandOff: pass }).outcomes[2]).toEqual({
      name: 'boundedRecursion',
      passed: false,
      error: 'did not run',
    });
    expect(judge({ remoteEqualsLocal: pass, constantSizeHandOff: pass, boundedRecursion: pass }).outcomes[3]).toEqual({
      name: 'trustAllowlist',
      passed: false,
      error: 'did not run',
    });
    expect(judge({ remoteEqualsLocal: pass, constantSizeHandOff: pass, boundedRecursion: { passed: 'yes' } }).exitCode).toBe(1);
    expect(judge({ remoteEqualsLocal: pass, constantSizeHandOff: pass, boundedRecursion: null }).exitCode).toBe(1);
    expect(judge({}).exitCode).toBe(1);
  });

  it('an interrupted run never passes and exits 130, even if what ran passed', () => {
    const verdict = judge({ remoteEqualsLocal: pass }, true);
    expect(verdict.passed).toBe(false);
    expect(verdict.exitCode).toBe(DEMO_EXIT_CODES.interrupted);
    expect(verdict.outcomes[1]).toEqual({ name: 'constantSizeHandOff', passed: false, error: 'interrupted' });
  });
});
