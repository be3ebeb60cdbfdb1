import { describe, expect, it } from 'vitest';
import { cloneStored } from '../src/store/clone.js';

describe('cloneStored (the task store copy)', () => {
  it('deep-copies plain JSON data: equal to structuredClone, sharing nothing with the input', () => {
    const task = {
      id: 't',
      status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:00.000Z' },
      history: [
        { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }, { data: { n: 1, list: [1, null, 'a'], deep: { a: { b: true } } } }] },
      ],
      metadata: { absent: undefined, zero: 0, empty: '' },
    };
    const copy = cloneStored(task);
    expect(copy).toStrictEqual(structuredClone(task));
    expect(copy.history[0]).not.toBe(task.history[0]);
    expect(copy.history[0]?.parts[1]).not.toBe(task.history[0]?.parts[1]);
    expect(Object.hasOwn(copy.metadata, 'absent')).toBe(true);
  });

  it('leaves what is not plain data to structuredClone (dates, maps, cycles, sparse arrays)', () => {
    const when = new Date('2026-01-01T00:00:00Z');
    const withDate = cloneStored({ when });
    expect(withDate.when).toBeInstanceOf(Date);
    expect(withDate.when).not.toBe(when);
    expect(cloneStored({ map: new Map([['a', 1]]) }).map.get('a')).toBe(1);
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const copy = cloneStored(cyclic);
    expect(copy.self).toBe(copy);
    // biome-ignore lint/suspicious/noSparseArray: the case under test
    expect(cloneStored([1, , 3])).toStrictEqual(structuredClone([1, , 3]));
  });

  it("never lets an own __proto__ key (from JSON.parse) change the copy's prototype", () => {
    const parsed = JSON.parse('{"a":1,"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const copy = cloneStored(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(copy).toStrictEqual(structuredClone(parsed));
  });

  it('copies own properties only, also when Object.prototype has enumerable ones', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 'yes';
    try {
      const copy = cloneStored({ a: { b: 1 } });
      expect(Object.hasOwn(copy, 'polluted')).toBe(false);
      expect(Object.hasOwn(copy.a, 'polluted')).toBe(false);
      expect(Object.keys(copy)).toEqual(['a']);
    } finally {
      delete proto.polluted;
    }
  });

  it('fails like structuredClone on values it cannot copy', () => {
    expect(() => cloneStored({ fn: () => 1 })).toThrow(/could not be cloned/);
  });
});
