import { describe, expect, it } from 'vitest';
import {
  createDispatcher,
  createPeerPool,
  createSelectorRegistry,
  Dispatcher,
  lowestLatency,
  PeerPool,
  SelectorRegistry,
} from '../src/index.js';

describe('one construction idiom: createX, with the classes kept as deprecated aliases for one minor', () => {
  it('makes the same objects either way', () => {
    const pool = createPeerPool();
    expect(pool).toBeInstanceOf(PeerPool);
    expect(createSelectorRegistry()).toBeInstanceOf(SelectorRegistry);
    const dispatcher = createDispatcher({
      selfAgentId: 'a',
      pool,
      selector: lowestLatency(),
      remoteExecutor: () => {
        throw new Error('not called');
      },
    });
    expect(dispatcher).toBeInstanceOf(Dispatcher);
    expect(() => createDispatcher({ selfAgentId: '', pool, selector: lowestLatency(), remoteExecutor: () => undefined as never })).toThrow(
      TypeError,
    );
  });
});
