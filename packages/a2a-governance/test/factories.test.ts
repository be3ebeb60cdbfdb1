import { describe, expect, it } from 'vitest';
import {
  createGovernor,
  createRecursionPolicy,
  createSpendAggregator,
  createTaskPolicyEngine,
  Governor,
  RecursionPolicy,
  SpendAggregator,
  TaskPolicyEngine,
} from '../src/index.js';

describe('one construction idiom: createX, with the classes kept as deprecated aliases for one minor', () => {
  it('makes the same objects either way', () => {
    expect(createTaskPolicyEngine({ default: { maxConcurrency: 2 } })).toBeInstanceOf(TaskPolicyEngine);
    expect(createRecursionPolicy({ maxCallDepth: 3 }).maxCallDepth).toBe(3);
    expect(createRecursionPolicy()).toBeInstanceOf(RecursionPolicy);
    expect(createSpendAggregator()).toBeInstanceOf(SpendAggregator);
    const made = createGovernor({ selfAgentId: 'a' });
    expect(made).toBeInstanceOf(Governor);
    expect(new Governor({ selfAgentId: 'b' }).selfAgentId).toBe('b');
  });

  it('checks options the same way', () => {
    expect(() => createGovernor({ selfAgentId: '' })).toThrow(TypeError);
    expect(() => createRecursionPolicy({ maxCallDepth: -1 })).toThrow(RangeError);
  });
});
