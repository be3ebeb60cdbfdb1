import type { SendMessageRequest } from '@a2aplane/a2a-types';
import { bytesToBase64url, utf8Encode } from '../encoding/base64url.js';
import { sha256 } from './sha256.js';

/**
 * A fingerprint of what a SendMessage asks for: the message without its `messageId` (content,
 * `taskId`, `contextId`, metadata, extensions, references) and the request's `configuration`.
 * A send is a repeat only when caller, messageId AND this fingerprint match (decision 0105), so a
 * reused messageId with another message is not answered with another message's task.
 * The one place that decides "same request": an `Idempotency-Key` header would key on it too.
 * Stores keep it, so its value for a given request never changes between releases.
 */
export function sendFingerprint(params: SendMessageRequest): string {
  const { messageId: _id, ...message } = params.message;
  return sha256Base64url(canonicalJson({ message, configuration: params.configuration }));
}

type NodeHash = (algorithm: 'sha256', data: string, encoding: 'base64url') => string;

/**
 * Node's one-shot `crypto.hash` when the runtime has it (reached through `process.getBuiltinModule`,
 * so the core keeps no static node: import): a send's fingerprint is on every request's path, and
 * the plain-JS digest cost about a tenth of an in-process SendMessage.
 */
const nativeHash: NodeHash | undefined = (() => {
  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  const hash = (getBuiltinModule?.('node:crypto') as { hash?: unknown } | undefined)?.hash;
  return typeof hash === 'function' ? (hash as NodeHash) : undefined;
})();

/** base64url of the SHA-256 of `text`'s UTF-8 bytes, in plain JS. */
export const plainSha256Base64url = (text: string): string => bytesToBase64url(sha256(utf8Encode(text)));

/** base64url of the SHA-256 of `text`'s UTF-8 bytes, natively where the runtime allows. */
export const sha256Base64url: (text: string) => string =
  nativeHash === undefined ? plainSha256Base64url : (text) => nativeHash('sha256', text, 'base64url');

/**
 * JSON with sorted keys, leaving out what the bindings may or may not spell (undefined, empty
 * arrays, objects with nothing else in them; proto3 drops defaults over gRPC), so one request's
 * fingerprint is the same whichever binding the client's retry or fallback took. Array items and
 * the top level are always written; one pass decides absence and writes.
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  return `{${members(value as Record<string, unknown>)}}`;
}

/** An object's present members, sorted by key and comma-joined; '' when none is present. */
function members(object: Record<string, unknown>): string {
  let out = '';
  for (const key of Object.keys(object).sort()) {
    const entry = object[key];
    let text: string;
    if (entry === undefined || (Array.isArray(entry) && entry.length === 0)) continue;
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
      const inner = members(entry as Record<string, unknown>);
      if (inner === '') continue;
      text = `{${inner}}`;
    } else text = canonicalJson(entry);
    out += `${out === '' ? '' : ','}${JSON.stringify(key)}:${text}`;
  }
  return out;
}
