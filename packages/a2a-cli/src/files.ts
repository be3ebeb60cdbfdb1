import { readFile, writeFile } from 'node:fs/promises';
import { importJwk, type KeyPair, toVerificationKey, type VerificationKey } from '@a2aplane/a2a-identity';
import { CliError } from './errors.js';

function fsReason(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return error instanceof Error ? error.message : String(error);
}

export async function readTextFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${fsReason(error)}`);
  }
}

/** Reads and parses a JSON file; unreadable or invalid JSON is a one-line CliError. */
export async function readJsonFile(path: string): Promise<{ text: string; value: unknown }> {
  const text = await readTextFile(path);
  try {
    return { text, value: JSON.parse(text) as unknown };
  } catch (error) {
    throw new CliError(`${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export async function writeTextFile(path: string, text: string, mode?: number): Promise<void> {
  try {
    await writeFile(path, text, mode === undefined ? 'utf8' : { encoding: 'utf8', mode });
  } catch (error) {
    throw new CliError(`cannot write ${path}: ${fsReason(error)}`);
  }
}

/** A private JWK file, for signing. */
export async function readPrivateKey(path: string): Promise<KeyPair> {
  const { value } = await readJsonFile(path);
  const imported = importJwk(value);
  if (!imported.ok) throw new CliError(`${path} is not a usable JWK: ${imported.reason}`);
  if (!('privateKey' in imported.key)) throw new CliError(`${path} holds a public key; signing needs the private JWK (with "d")`);
  return imported.key as KeyPair;
}

/** A JWK (public or private) or a JWKS file, as verification keys. */
export async function readVerificationKeys(path: string): Promise<VerificationKey[]> {
  const { value } = await readJsonFile(path);
  const entries =
    typeof value === 'object' && value !== null && Array.isArray((value as { keys?: unknown }).keys)
      ? (value as { keys: unknown[] }).keys
      : [value];
  const keys: VerificationKey[] = [];
  const reasons: string[] = [];
  for (const entry of entries) {
    const imported = importJwk(entry);
    if (imported.ok) keys.push(toVerificationKey(imported.key));
    else reasons.push(imported.reason);
  }
  if (keys.length === 0) throw new CliError(`${path} holds no usable JWK${reasons.length > 0 ? `: ${reasons[0]}` : ''}`);
  return keys;
}

/**
 * The Ed25519 public keys of the agents that may sign their requests: a JWKS `{ "keys": [...] }`
 * or a JSON list of JWKs. Every entry must be an Ed25519 public JWK: a private one (with `d`) is
 * refused, since it does not belong in a list the server only verifies with.
 */
export async function readCallerKeys(path: string): Promise<VerificationKey[]> {
  const { value } = await readJsonFile(path);
  const list = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null && Array.isArray((value as { keys?: unknown }).keys)
      ? (value as { keys: unknown[] }).keys
      : undefined;
  if (list === undefined) throw new CliError(`invalid caller key file ${path}: expected a JWKS { "keys": [...] } or a JSON list of JWKs`);
  if (list.length === 0) throw new CliError(`invalid caller key file ${path}: expected at least one key, got none`);
  return list.map((entry, index) => {
    if (typeof entry === 'object' && entry !== null && 'd' in entry)
      throw new CliError(`invalid caller key file ${path}: keys[${index}] is a private key; expected public JWKs only`);
    const imported = importJwk(entry);
    if (!imported.ok) throw new CliError(`invalid caller key file ${path}: keys[${index}]: ${imported.reason}`);
    if (imported.key.algorithm !== 'EdDSA')
      throw new CliError(`invalid caller key file ${path}: expected Ed25519 keys, got ${imported.key.algorithm} at keys[${index}]`);
    return toVerificationKey(imported.key);
  });
}
