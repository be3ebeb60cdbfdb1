import type { SendMessageRequest } from '@a2aplane/a2a-types';
import { bytesToBase64url, utf8Encode } from '../encoding/base64url.js';
import { sha256 } from './sha256.js';

/**
 * A fingerprint of what a SendMessage asks for: the message without its `messageId` (content,
 * `taskId`, `contextId`, metadata, extensions, references) and the request's `configuration`.
 * A send is a repeat only when caller, messageId AND this fingerprint match (decision 0105), so a
 * reused messageId with another message is not answered with another message's task.
 * The one place that decides "same request": an `Idempotency-Key` header would key on it too.
 */
export function sendFingerprint(params: SendMessageRequest): string {
  const { messageId: _id, ...message } = params.message;
  return bytesToBase64url(sha256(utf8Encode(canonicalJson({ message, configuration: params.configuration }))));
}

/**
 * JSON with sorted keys, leaving out what the bindings may or may not spell (undefined, empty
 * arrays, empty objects; proto3 drops defaults over gRPC), so one request's fingerprint is the
 * same whichever binding the client's retry or fallback took.
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  const keys = Object.keys(value).sort();
  let out = '';
  for (const key of keys) {
    const entry = (value as Record<string, unknown>)[key];
    if (isAbsent(entry)) continue;
    out += `${out === '' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(entry)}`;
  }
  return `{${out}}`;
}

function isAbsent(value: unknown): boolean {
  if (value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  return (
    typeof value === 'object' && value !== null && Object.keys(value).every((key) => isAbsent((value as Record<string, unknown>)[key]))
  );
}
