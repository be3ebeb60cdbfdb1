import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { PushConfigCryptoError } from '../errors.js';

/**
 * The operator's keys for push configs at rest (AES-256-GCM). Configs are sealed with the key of
 * `currentKeyId` and keep the id of the key that sealed them, so a key can be rotated: add the new
 * key, make it current, run `rotatePushConfigKeys`, then drop the old one.
 */
export interface PushConfigKeyring {
  /** Id of the key new (and re-sealed) configs are sealed with. */
  readonly currentKeyId: string;
  /** The 32-byte key of `keyId`, or `undefined` when this keyring does not hold it. May look it up (a KMS, a secret store). */
  key(keyId: string): Uint8Array | undefined | Promise<Uint8Array | undefined>;
}

export interface StaticKeyringOptions {
  currentKeyId: string;
  /** Key id -> 32-byte key, raw or base64 (standard or url-safe). */
  keys: Record<string, Uint8Array | string>;
}

const KEY_ID = /^[A-Za-z0-9._:-]{1,64}$/;

function toKey(keyId: string, value: Uint8Array | string): Uint8Array {
  const bytes = typeof value === 'string' ? Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64') : value;
  if (!(bytes instanceof Uint8Array) || bytes.length !== 32) {
    throw new RangeError(
      `expected the key of ${JSON.stringify(keyId)} to be 32 bytes (AES-256), got ${bytes instanceof Uint8Array ? bytes.length : typeof bytes}`,
    );
  }
  return Uint8Array.from(bytes);
}

/** A keyring over keys held in memory (from the environment or a secret file). */
export function createStaticKeyring(options: StaticKeyringOptions): PushConfigKeyring {
  const keys = new Map<string, Uint8Array>();
  for (const [id, value] of Object.entries(options.keys)) {
    if (!KEY_ID.test(id)) throw new TypeError(`expected a key id of 1-64 characters [A-Za-z0-9._:-], got ${JSON.stringify(id)}`);
    keys.set(id, toKey(id, value));
  }
  if (!keys.has(options.currentKeyId)) throw new RangeError(`the current key id ${JSON.stringify(options.currentKeyId)} has no key`);
  return { currentKeyId: options.currentKeyId, key: (keyId) => keys.get(keyId) };
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

async function resolveKey(keyring: PushConfigKeyring, keyId: string): Promise<Uint8Array> {
  const key = await keyring.key(keyId);
  if (!(key instanceof Uint8Array) || key.length !== 32)
    throw new PushConfigCryptoError(`no 32-byte key for key id ${JSON.stringify(keyId)}`, keyId);
  return key;
}

/**
 * Seals `plaintext` with the current key: iv (12 bytes, random) || ciphertext || tag (16 bytes).
 * `aad` binds it to its row (tenant, task, config id): a sealed value copied to another row does not open.
 */
export async function seal(keyring: PushConfigKeyring, plaintext: string, aad: string): Promise<{ keyId: string; sealed: Buffer }> {
  const keyId = keyring.currentKeyId;
  const key = await resolveKey(keyring, keyId);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { keyId, sealed: Buffer.concat([iv, body, cipher.getAuthTag()]) };
}

/** Opens a value `seal` made; `PushConfigCryptoError` when the key is unknown or the value does not authenticate. */
export async function open(keyring: PushConfigKeyring, keyId: string, sealed: Uint8Array, aad: string): Promise<string> {
  const key = await resolveKey(keyring, keyId);
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new PushConfigCryptoError('sealed push config is too short', keyId);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch (error) {
    throw new PushConfigCryptoError('sealed push config does not authenticate', keyId, { cause: error });
  }
}

/** What a sealed push config is bound to. */
export const pushConfigAad = (tenant: string, taskId: string, configId: string): string =>
  JSON.stringify(['a2a-push-config', tenant, taskId, configId]);
