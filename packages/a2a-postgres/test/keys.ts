import { randomBytes } from 'node:crypto';
import { createStaticKeyring, type PushConfigKeyring } from '../src/push/keyring.js';

/** A keyring with one fresh random key (id `k1`), as an operator would configure. */
export function testKeyring(): PushConfigKeyring {
  return createStaticKeyring({ currentKeyId: 'k1', keys: { k1: randomBytes(32) } });
}
