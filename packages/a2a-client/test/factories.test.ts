import { describe, expect, it } from 'vitest';
import { CardResolver, createCardResolver } from '../src/index.js';

describe('createCardResolver (CardResolver stays as a deprecated alias for one minor)', () => {
  it('makes the same resolver, with the same option checks', () => {
    expect(createCardResolver()).toBeInstanceOf(CardResolver);
    expect(() => createCardResolver(null as never)).toThrow(TypeError);
  });
});
